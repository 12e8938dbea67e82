/**
 * The phones a farm host speaks for: each one's agent (its own connection to the console, with its journal) and the
 * backend that drives it. A phone is attached when first seen, bound again when it comes back on a new phone object
 * (it went offline and returned, or the recovery ladder opened a new transport to it: the agent and its connection
 * stay, the backend drives the new object, the old one is closed and the live streams start again on the new), and
 * let go when it leaves. What happens to one serial happens in order: a phone that leaves while it is being attached
 * is let go once it is. The host's hold (around an adb server restart) covers phones that come meanwhile.
 *
 * A phone whose transport goes (adb lists it `offline`, or not at all) is waited for, `returnWaitMs` at most: its
 * agent stays connected and tells the console it is away ("Reconnecting"); one that comes back meanwhile is bound
 * again and its agent says how long it was away, on which transport, whether it booted, and what it runs now. One
 * that does not is let go (offline in the console); if it comes back later, its new agent says the same after its hello.
 */
import { DeviceBackend } from '../agent/device-backend.ts';
import { Journal } from '../agent/journal.ts';
import { MediaFetcher } from '../agent/media.ts';
import { PhoneAgent } from '../agent/phone-agent.ts';
import type { AgentState } from '../agent/state.ts';
import type { AgentMessage } from '../messages.ts';
import type { PhoneDevice, PhoneInfo } from '../phone/phone.device.ts';
import type { RecipeRunOptions } from '../recipes/recipe.runner.ts';

export interface HostPhonesOptions {
  server: string;
  /** The host's credential, each phone's connection speaks with it and the phone's serial. */
  token: string;
  state: AgentState;
  agentVersion: string;
  screenshotMs?: number;
  recipeOptions?: Pick<RecipeRunOptions, 'random' | 'clock' | 'pollMs' | 'busyPauseMs'>;
  log: (line: string) => void;
  /** How long a phone whose transport went is waited for before it is let go (60 s by default). */
  returnWaitMs?: number;
}

type AwayReason = AgentMessage<'phone.away'>['reason'];

/** A phone's transport went: since when, and whether it left adb's list (then it comes back on a new transport). */
interface Away {
  since: number;
  reason: AwayReason;
}

interface Attached {
  agent: PhoneAgent;
  backend: DeviceBackend;
  away?: Away & { timer: NodeJS.Timeout };
}

/** What the host knows of a phone coming back: it is read once the phone answers (`null`: it cannot be told). */
export interface PhoneReturn {
  /** How long the phone has been up, from `/proc/uptime`: shorter than its absence means it booted meanwhile. */
  uptimeMs?: () => Promise<number | null>;
}

/** Phones let go after waiting are remembered this long, so one that returns later still says how long it was away. */
const REMEMBER_GONE_MS = 60 * 60_000;

export class HostPhones {
  private readonly attached = new Map<string, Attached>();
  /** Per serial, the last change under way: the next one waits for it. */
  private readonly turns = new Map<string, Promise<void>>();
  /** The host holds its phones' work: no phone takes a new task. */
  private holding = false;
  /** Phones let go while away, by serial (the oldest dropped past a thousand). */
  private readonly departed = new Map<string, Away>();

  constructor(private readonly options: HostPhonesOptions) {}

  /**
   * A phone ready to work: attached when its serial is new, bound again when the serial is attached to another phone
   * object (the one it had is closed), nothing when it is this one already. `onStep` is for simulated phones.
   */
  take(phone: PhoneDevice, extra: { info?: PhoneInfo; onStep?: (label: string) => void } & PhoneReturn = {}): Promise<void> {
    return this.turn(phone.serial, async () => {
      const attached = this.attached.get(phone.serial);
      if (!attached) {
        await this.attach(phone, extra.onStep);
        const departed = this.departed.get(phone.serial);
        this.departed.delete(phone.serial);
        if (departed && Date.now() - departed.since < REMEMBER_GONE_MS) await this.returned(phone.serial, { ...departed, reason: 'gone' }, extra);
        return;
      }
      if (attached.backend.phone === phone) return;
      const away = attached.away;
      if (away) clearTimeout(away.timer);
      delete attached.away;
      await attached.backend.rebind(phone, extra.info);
      await attached.agent.phoneReturned();
      this.options.log(`${phone.serial}: back on a new connection; its agent drives the new one`);
      if (away) await this.returned(phone.serial, away, extra);
    });
  }

  /**
   * The phone's transport went (adb lists it `offline`, or no more): its agent tells the console it is away, and the
   * phone is let go if it is not back within `returnWaitMs`. A phone away already only notes that it left adb's list.
   */
  away(serial: string, reason: AwayReason): Promise<void> {
    return this.turn(serial, async () => {
      const attached = this.attached.get(serial);
      if (!attached) return;
      if (attached.away) {
        if (reason === 'gone') attached.away.reason = 'gone';
        return;
      }
      const waitMs = this.options.returnWaitMs ?? 60_000;
      const timer = setTimeout(() => {
        this.options.log(`${serial}: not back within ${Math.round(waitMs / 1000)} s; let go`);
        void this.leave(serial);
      }, waitMs);
      timer.unref();
      attached.away = { since: Date.now(), reason, timer };
      attached.agent.phoneAway(reason);
    });
  }

  /** The phone left for good (or it stopped answering): its connection closes and its backend lets the phone go. */
  leave(serial: string): Promise<void> {
    return this.turn(serial, async () => {
      const attached = this.attached.get(serial);
      if (!attached) return;
      this.attached.delete(serial);
      if (attached.away) {
        clearTimeout(attached.away.timer);
        this.remember(serial, { since: attached.away.since, reason: attached.away.reason });
      }
      attached.agent.close();
      await attached.backend.close().catch(() => undefined);
    });
  }

  private remember(serial: string, away: Away): void {
    this.departed.delete(serial);
    this.departed.set(serial, away);
    if (this.departed.size > 1000) this.departed.delete(this.departed.keys().next().value!);
  }

  /** Tells the console how the phone came back: after how long, on which transport, whether it booted meanwhile. */
  private async returned(serial: string, away: Away, extra: PhoneReturn): Promise<void> {
    const awayMs = Date.now() - away.since;
    const uptimeMs = await extra.uptimeMs?.().catch(() => null);
    const rebooted = typeof uptimeMs === 'number' && uptimeMs < awayMs;
    const transport = away.reason === 'gone' ? ('new' as const) : ('same' as const);
    this.options.log(
      `${serial}: back after ${Math.round(awayMs / 1000)} s on ${transport === 'new' ? 'a new' : 'the same'} transport${rebooted ? ', rebooted' : ''}`,
    );
    await this.attached.get(serial)?.agent.phoneBack({ awayMs, transport, rebooted });
  }

  private turn(serial: string, work: () => Promise<void>): Promise<void> {
    const next = (this.turns.get(serial) ?? Promise.resolve()).then(work);
    const settled = next.catch(() => undefined);
    this.turns.set(serial, settled);
    void settled.then(() => {
      if (this.turns.get(serial) === settled) this.turns.delete(serial);
    });
    return next;
  }

  private async attach(phone: PhoneDevice, onStep?: (label: string) => void): Promise<void> {
    const { options } = this;
    const media = new MediaFetcher({
      server: options.server,
      credential: { hostToken: options.token, serial: phone.serial },
      dir: options.state.mediaDir,
    });
    const backend = await new DeviceBackend(phone, {
      agentVersion: options.agentVersion,
      media,
      ...(options.recipeOptions ? { recipeOptions: options.recipeOptions } : {}),
      // Only the simulated phones draw their steps; they hold no account of their own to check before a run.
      ...(onStep ? { onStep, preflight: 'no-account' as const } : {}),
    }).start();
    const facts = backend.describe();
    const agent = new PhoneAgent({
      url: options.server,
      auth: { hostToken: options.token, serial: phone.serial, model: facts.model, androidVersion: facts.androidVersion },
      backend,
      journal: new Journal(options.state.journalPath(phone.serial)),
      ...(options.screenshotMs ? { screenshotMs: options.screenshotMs } : {}),
      log: (line) => options.log(`${phone.serial}: ${line}`),
    });
    // A phone that comes back while the host still holds the others is held too (its hello says so).
    if (this.holding) {
      backend.holding = true;
      agent.hold(true);
    }
    this.attached.set(phone.serial, { agent, backend });
  }

  /** Holds every phone's work (around an adb server restart) or lets go of it; phones attached later follow. */
  hold(holding: boolean): void {
    this.holding = holding;
    for (const { agent, backend } of this.attached.values()) {
      backend.holding = holding;
      agent.hold(holding);
    }
  }

  /** The agents running a task or a dry run now. */
  busy(): PhoneAgent[] {
    return [...this.attached.values()].filter(({ agent }) => agent.busy).map(({ agent }) => agent);
  }

  has(serial: string): boolean {
    return this.attached.has(serial);
  }

  get size(): number {
    return this.attached.size;
  }

  get serials(): string[] {
    return [...this.attached.keys()];
  }

  agent(serial: string): PhoneAgent | undefined {
    return this.attached.get(serial)?.agent;
  }

  backend(serial: string): DeviceBackend | undefined {
    return this.attached.get(serial)?.backend;
  }

  /** Whether the phone's transport went and the host waits for it. */
  isAway(serial: string): boolean {
    return this.attached.get(serial)?.away !== undefined;
  }

  /** Lets every phone go, each after what is under way for it. */
  async close(): Promise<void> {
    await Promise.all([...new Set([...this.attached.keys(), ...this.turns.keys()])].map((serial) => this.leave(serial)));
  }
}
