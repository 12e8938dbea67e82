/**
 * The phones a farm host speaks for: each one's agent (its own connection to the console, with its journal) and the
 * backend that drives it. A phone is attached when first seen, bound again when it comes back on a new phone object
 * (it went offline and returned, or the recovery ladder opened a new transport to it: the agent and its connection
 * stay, the backend drives the new object, the old one is closed and the live streams start again on the new), and
 * let go when it leaves. What happens to one serial happens in order: a phone that leaves while it is being attached
 * is let go once it is. The host's hold (around an adb server restart) covers phones that come meanwhile.
 */
import { DeviceBackend } from '../agent/device-backend.ts';
import { Journal } from '../agent/journal.ts';
import { MediaFetcher } from '../agent/media.ts';
import { PhoneAgent } from '../agent/phone-agent.ts';
import type { AgentState } from '../agent/state.ts';
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
}

interface Attached {
  agent: PhoneAgent;
  backend: DeviceBackend;
}

export class HostPhones {
  private readonly attached = new Map<string, Attached>();
  /** Per serial, the last change under way: the next one waits for it. */
  private readonly turns = new Map<string, Promise<void>>();
  /** The host holds its phones' work: no phone takes a new task. */
  private holding = false;

  constructor(private readonly options: HostPhonesOptions) {}

  /**
   * A phone ready to work: attached when its serial is new, bound again when the serial is attached to another phone
   * object (the one it had is closed), nothing when it is this one already. `onStep` is for simulated phones.
   */
  take(phone: PhoneDevice, extra: { info?: PhoneInfo; onStep?: (label: string) => void } = {}): Promise<void> {
    return this.turn(phone.serial, async () => {
      const attached = this.attached.get(phone.serial);
      if (!attached) return this.attach(phone, extra.onStep);
      if (attached.backend.phone === phone) return;
      await attached.backend.rebind(phone, extra.info);
      await attached.agent.phoneReturned();
      this.options.log(`${phone.serial}: back on a new connection; its agent drives the new one`);
    });
  }

  /** The phone left (unplugged, or it stopped answering): its connection closes and its backend lets the phone go. */
  leave(serial: string): Promise<void> {
    return this.turn(serial, async () => {
      const attached = this.attached.get(serial);
      if (!attached) return;
      this.attached.delete(serial);
      attached.agent.close();
      await attached.backend.close().catch(() => undefined);
    });
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

  /** Lets every phone go, each after what is under way for it. */
  async close(): Promise<void> {
    await Promise.all([...new Set([...this.attached.keys(), ...this.turns.keys()])].map((serial) => this.leave(serial)));
  }
}
