/**
 * The phone agent's connection: the hello that says what the phone is and can do (and whether its host holds it),
 * the server's answer (its name in the console, the heartbeat interval, or a refusal), coming back after the server
 * let go of the phone on purpose, heartbeats at the interval the server gives, screenshots (on a timer, on command,
 * within the server's limit per phone), the operator's commands, telling the server when the host holds its work,
 * and when the phone's transport went and came back (`phone.away`, `phone.back`).
 */
import { helloAnswer, PROTOCOL_VERSION, serverMessages, type AgentMessage } from '../messages.ts';
import type { AgentFeature } from '../live.ts';
import { beating, type Beating } from './beating.ts';
import type { PhoneAgentState } from './phone-agent.state.ts';

/** A hold for an app job is said again this often: the server lets a hold lapse after five minutes (HOLD_MAX_MS). */
const HOLD_RENEW_MS = 60_000;

export class Connection {
  private heartbeatMs = 5000;
  /** Says the hold again while app jobs hold the phone. */
  private renew: NodeJS.Timeout | undefined;
  private heartbeat: Beating | undefined;
  private readonly screenshots: Beating | undefined;
  /** Told by the server to send no screenshot before this time (its limit per phone). */
  private screenshotsWaitUntil = 0;
  /** The device's name in the console, once the server said hello back. */
  deviceName: string | undefined;
  /** Why the server refused this agent, when it did. */
  refused: string | undefined;
  /** The phone's transport went and its host waits for it: said again after each hello until it is back. */
  private awayReason: AgentMessage<'phone.away'>['reason'] | undefined;
  /** How the phone came back, kept until a hello was answered (said once, on the first connection that can). */
  private pendingBack: AgentMessage<'phone.back'> | undefined;

  /** `replay` sends what was made while disconnected, once the server let the agent in, before it counts as ready. */
  constructor(
    private readonly state: PhoneAgentState,
    private readonly replay: () => Promise<void>,
  ) {
    const every = state.options.screenshotMs;
    if (every) this.screenshots = beating(() => void this.screenshot(), every);
  }

  /** Connected (again): says hello, and once let in sends what waited, then is ready. */
  async hello(): Promise<void> {
    const raw = await this.state.request('agent.hello', await this.helloMessage());
    const answer = helloAnswer.safeParse(raw);
    if (!answer.success || !answer.data.ok) {
      this.refused = answer.success && !answer.data.ok ? answer.data.error : 'no answer';
      this.state.log(`the server refused this agent: ${this.refused}`);
      return;
    }
    this.deviceName = answer.data.deviceName;
    this.state.backend.named?.(answer.data.deviceName);
    this.heartbeatMs = answer.data.heartbeatMs;
    this.heartbeat?.stop();
    this.heartbeat = beating(() => this.beat(), this.heartbeatMs);
    this.state.log(`connected as ${answer.data.deviceName} (protocol ${answer.data.protocol}, heartbeat ${this.heartbeatMs} ms)`);
    await this.replay();
    this.state.ready = true;
    if (this.awayReason) this.state.socket.emit('phone.away', { reason: this.awayReason });
    this.sendBack();
  }

  /** The phone's transport went; its host waits for it (the console shows it reconnecting). */
  away(reason: AgentMessage<'phone.away'>['reason']): void {
    this.awayReason = reason;
    if (this.state.ready && this.state.socket.connected) this.state.socket.emit('phone.away', { reason });
  }

  /** The phone is back: how, and what it runs now (its UI reader and apps, read again as for a hello). */
  async back(how: Pick<AgentMessage<'phone.back'>, 'awayMs' | 'transport' | 'rebooted'>): Promise<void> {
    this.awayReason = undefined;
    const { backend } = this.state;
    const uiReader = await backend.uiReader?.().catch(() => undefined);
    const apps = await backend.installedApps?.().catch(() => undefined);
    this.pendingBack = { ...how, ...(uiReader ? { uiReader } : {}), ...(apps ? { apps } : {}) };
    this.sendBack();
  }

  private sendBack(): void {
    const back = this.pendingBack;
    if (!back || !this.state.ready || !this.state.socket.connected) return;
    this.pendingBack = undefined;
    this.state.socket.emit('phone.back', back);
  }

  private async helloMessage(): Promise<AgentMessage<'agent.hello'>> {
    const backend = this.state.backend;
    const facts = backend.describe();
    const phone = backend.state();
    const uiReader = await backend.uiReader?.().catch(() => undefined);
    const apps = await backend.installedApps?.().catch(() => undefined);
    const features: AgentFeature[] = [...this.state.features(), ...(uiReader?.kind === 'ui-server' ? (['ui-server'] as const) : [])];
    return {
      protocol: PROTOCOL_VERSION,
      ...facts,
      battery: phone.battery,
      charging: phone.charging,
      screenOn: phone.screenOn,
      ...(features.length > 0 ? { features } : {}),
      ...(uiReader ? { uiReader } : {}),
      ...(apps ? { apps } : {}),
      ...(this.state.held ? { holding: true } : {}),
    };
  }

  /** The handshake failed (a refused credential says so here). */
  connectError(error: Error): void {
    this.state.log(`cannot connect: ${error.message}`);
    this.state.options.onRefused?.(error.message);
  }

  disconnected(reason: string): void {
    const { state } = this;
    state.ready = false;
    state.log(`disconnected: ${reason}`);
    // The server let go of this phone on purpose (an instance stopping, a credential revoked): come back, through
    // whichever instance answers; a credential that no longer holds is refused at the handshake, and that ends it.
    if (reason === 'io server disconnect') {
      setTimeout(() => {
        if (!state.closed && !state.socket.connected && !state.socket.active) state.socket.connect();
      }, state.options.reconnectionDelayMs ?? 1000).unref();
    }
  }

  /** `command`: an operator's command to the phone. */
  readonly command = (raw: unknown): void => {
    const parsed = serverMessages.command.safeParse(raw);
    if (!parsed.success) return;
    this.state.log(`command: ${parsed.data.name}`);
    if (parsed.data.name === 'screenshot') void this.screenshot();
    this.state.backend.command?.(parsed.data.name);
  };

  /**
   * The host holds this phone's work (around an adb server restart) or lets go of it: the server is told at once, on
   * this connection, so a result sent after it finds the phone held and no new task follows it.
   */
  hold(holding: boolean): void {
    this.held(() => (this.state.holding = holding));
  }

  /**
   * An app job was queued for the phone (or ran) and holds it from new tasks, or one ended. The server hears a hold
   * as the host's (`agent.hold`); as it lets a hold lapse after a few minutes, one held for an install is said again
   * every minute until the last job ended.
   */
  appJob(active: boolean): void {
    this.held(() => (this.state.appJobs = Math.max(0, this.state.appJobs + (active ? 1 : -1))));
    if (this.state.appJobs > 0 && !this.renew) {
      this.renew = setInterval(() => this.state.socket.connected && this.state.socket.emit('agent.hold', { holding: true }), HOLD_RENEW_MS);
      this.renew.unref();
    } else if (this.state.appJobs === 0 && this.renew) {
      clearInterval(this.renew);
      this.renew = undefined;
    }
  }

  /** Makes a change to what holds the phone and tells the server when the answer changed. */
  private held(change: () => void): void {
    const { state } = this;
    const before = state.held;
    change();
    // Not connected: the next hello says it.
    if (state.held !== before && state.socket.connected) state.socket.emit('agent.hold', { holding: state.held });
  }

  private beat(): void {
    const { socket, backend } = this.state;
    if (!socket.connected) return;
    const phone = backend.state();
    socket.emit('agent.heartbeat', {
      battery: phone.battery,
      status: this.state.busy ? 'busy' : phone.status,
      charging: phone.charging,
      screenOn: phone.screenOn,
      ...(phone.foregroundApp ? { foregroundApp: phone.foregroundApp.slice(0, 200) } : {}),
    });
  }

  async screenshot(): Promise<void> {
    const { socket, backend } = this.state;
    if (!socket.connected || Date.now() < this.screenshotsWaitUntil) return;
    const shot = await backend.screenshot().catch(() => undefined);
    if (!shot) return;
    socket.emit('agent.screenshot', { mime: shot.mime, data: shot.data.toString('base64'), capturedAt: new Date().toISOString() }, (answer) => {
      // The server's limit per phone: no screenshot is taken (nor sent) until it says the next may go.
      if (!answer.ok && answer.retryAfterMs) this.screenshotsWaitUntil = Date.now() + answer.retryAfterMs;
    });
  }

  /** Stops the heartbeats and the screenshots. */
  close(): void {
    clearInterval(this.renew);
    this.screenshots?.stop();
    this.heartbeat?.stop();
  }
}
