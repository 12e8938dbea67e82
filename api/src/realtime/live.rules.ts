/**
 * Permissions that change take effect on open live screens at once, on every instance. A live socket carries the
 * person as they were when it connected; a demotion, a phone reassigned or unassigned, a member deactivated or a
 * session ended must not leave them controlling (or watching) a phone until they reconnect.
 *
 * Where such a change is made, this instance hears it on its change feed and says so on the live bus (`rules`, with
 * the workspace and any ended sessions); every instance, this one included, then cuts the ended sessions' live
 * sockets and checks its watches and controls of that workspace against the database again: the person's role and
 * membership, and the phone's assignee. The same check runs on each keep-alive and on the usage timer, so a signal
 * lost with Redis is made good within seconds.
 *
 * The rules themselves: a watcher must be an active member of the phone's workspace; a controller must be too, and be
 * an operator or the VA the phone is assigned to (`mayControl`).
 */
import type { Change, ChangeFeed } from '../events/changes.ts';
import { mayControl } from '../modules/usage/usage.queries.ts';
import type { Db } from '../shared/types.ts';
import type { LiveBus, LiveSignal } from './live.bus.ts';
import { rightsOf } from './live.queries.ts';
import type { SocketPerson } from './handshake.ts';

/** How long the changes of one workspace are gathered before its live screens are checked. */
const RECHECK_DEBOUNCE_MS = 50;

/** What the rules need of a live socket. */
export interface RuledSocket {
  data: SocketPerson;
  disconnect(close: boolean): unknown;
}

/** The live screens of this instance, as the rules see them and end them. */
export interface LiveHoldings<S extends RuledSocket> {
  sockets(): Iterable<S>;
  watches(): Iterable<{ socket: S; deviceId: string }>;
  controls(): Iterable<{ socket: S; deviceId: string; deviceName: string }>;
  /** Ends a control held here: the controller is told `reason`, the phone is freed. */
  endControl(deviceId: string, reason: string): Promise<void>;
  /** Ends a watch held here: the watcher is told `reason`. */
  endWatch(socket: S, deviceId: string, reason: string): Promise<void>;
}

export type RulesSignal = Extract<LiveSignal, { t: 'rules' }>;

export const RULE_REASONS = {
  control: (deviceName: string) => `Your access changed: you can control only the phones assigned to you, and ${deviceName} is not`,
  gone: 'This phone is no longer in your workspace',
} as const;

/** The change, if it may take something away from someone holding a live screen: the workspace and ended sessions. */
export function revocationOf(change: Change): { workspaceId: string; sessionIds: string[] } | undefined {
  switch (change.event) {
    case 'auth.revoked':
      return { workspaceId: change.workspaceId, sessionIds: change.payload.sessionIds };
    // A role, a deactivation: anyone of the workspace may have lost a right.
    case 'user.updated':
      return { workspaceId: change.workspaceId, sessionIds: [] };
    // A phone someone controls who is not its assignee (an operator, or a VA it was just taken from), or one removed.
    case 'device.updated':
      return change.payload.controlledById && change.payload.controlledById !== change.payload.assignedToId
        ? { workspaceId: change.workspaceId, sessionIds: [] }
        : undefined;
    case 'device.deleted':
      return { workspaceId: change.workspaceId, sessionIds: [] };
    default:
      return undefined;
  }
}

/**
 * Follows the changes made here, passes them to every instance on the live bus, and applies what any instance
 * says to this instance's live screens. `close` stops following.
 */
export class LiveRules<S extends RuledSocket> {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;
  /** Checks begun here, counted; and for each socket, the count of the check whose read set its role. */
  private begun = 0;
  private readonly roleRead = new WeakMap<S, number>();

  constructor(
    private readonly db: Db,
    private readonly bus: LiveBus,
    changes: ChangeFeed,
    private readonly here: LiveHoldings<S>,
    private readonly warn: (error: unknown) => void,
  ) {
    this.unsubscribe = changes.subscribe((change) => {
      const revocation = revocationOf(change);
      if (!revocation) return;
      // Ended sessions lose their sockets here at once, whatever Redis is doing; the others hear it on the bus.
      this.cut(revocation.sessionIds);
      // A change another process announced reaches every instance's feed already: each checks its own.
      if (change.local) {
        this.schedule(revocation.workspaceId);
        return;
      }
      this.bus.signal({ t: 'rules', from: this.bus.instanceId, ...revocation });
    });
    bus.onSignal((message) => {
      if (message.t !== 'rules') return;
      // Sessions ended on another instance: this one's cache of them (auth.plugin.ts) and its sockets go too.
      if (message.from !== this.bus.instanceId && message.sessionIds.length > 0)
        changes.publish({ workspaceId: message.workspaceId, event: 'auth.revoked', payload: { sessionIds: message.sessionIds }, local: true });
      this.cut(message.sessionIds);
      this.schedule(message.workspaceId);
    });
  }

  /** Disconnects this instance's live sockets of the sessions. */
  cut(sessionIds: readonly string[]): void {
    if (sessionIds.length === 0) return;
    const ended = new Set(sessionIds);
    for (const socket of [...this.here.sockets()]) if (ended.has(socket.data.sessionId)) socket.disconnect(true);
  }

  private schedule(workspaceId: string): void {
    if (this.pending.has(workspaceId)) return;
    const timer = setTimeout(() => {
      this.pending.delete(workspaceId);
      this.check(workspaceId).catch(this.warn);
    }, RECHECK_DEBOUNCE_MS);
    timer.unref();
    this.pending.set(workspaceId, timer);
  }

  /**
   * Checks the live screens held here (of one workspace, or all) against the database: sockets of people no longer
   * active members are disconnected, each socket learns its person's current role (from the latest check that read
   * it: checks overlap, a keep-alive's with a change's), and controls and watches that no longer pass the rules end.
   * Answers how many ended.
   */
  async check(workspaceId?: string): Promise<number> {
    const inScope = (socket: S) => workspaceId === undefined || socket.data.workspaceId === workspaceId;
    const sockets = [...this.here.sockets()].filter(inScope);
    const controls = [...this.here.controls()].filter((control) => inScope(control.socket));
    const watches = [...this.here.watches()].filter((watch) => inScope(watch.socket));
    if (sockets.length === 0 && controls.length === 0 && watches.length === 0) return 0;
    const userIds = [...new Set(sockets.map((socket) => socket.data.userId))];
    const deviceIds = [...new Set([...controls, ...watches].map((held) => held.deviceId))];
    this.begun += 1;
    const read = this.begun;
    const { members, devices } = await rightsOf(this.db, userIds, deviceIds);
    const roles = new Map(members.map((member) => [`${member.workspaceId}:${member.userId}`, member.role]));
    const phones = new Map(devices.map((device) => [device.id, device]));
    let ended = 0;
    for (const socket of sockets) {
      const role = roles.get(`${socket.data.workspaceId}:${socket.data.userId}`);
      if (!role) {
        // No longer a member here: nothing of this workspace is theirs to see.
        socket.disconnect(true);
        ended += 1;
      } else if ((this.roleRead.get(socket) ?? 0) < read) {
        // A check that began later may have answered first (the keep-alive's read was slow, a demotion came between):
        // the role it read is the newer, and an older read must not write the old role back.
        socket.data.role = role;
        this.roleRead.set(socket, read);
      }
    }
    for (const control of controls) {
      const device = phones.get(control.deviceId);
      const member = roles.has(`${control.socket.data.workspaceId}:${control.socket.data.userId}`);
      if (member && device?.workspaceId === control.socket.data.workspaceId && mayControl(control.socket.data, device)) continue;
      await this.here.endControl(control.deviceId, device ? RULE_REASONS.control(control.deviceName) : RULE_REASONS.gone).catch(this.warn);
      ended += 1;
    }
    for (const watch of watches) {
      const device = phones.get(watch.deviceId);
      if (device?.workspaceId === watch.socket.data.workspaceId) continue;
      await this.here.endWatch(watch.socket, watch.deviceId, RULE_REASONS.gone).catch(this.warn);
      ended += 1;
    }
    return ended;
  }

  close(): void {
    this.unsubscribe();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
