/**
 * Who controls which phone from this instance, and their inputs. The database says who controls a phone (one person
 * at a time, on any instance); this room keeps the controllers connected here, passes their inputs to the phone's
 * instance in order and answers each with its latency, releases control left unused after a prompt, and records every
 * take-over, hand-over and release as the phone's usage and activity. Sessions of an instance that died are closed
 * by the others, so a phone is never left held by nobody.
 */
import { randomUUID } from 'node:crypto';
import type { RecordedTarget } from '@farm/agent-protocol';
import { serialize, type DeviceRow } from '@farm/sql';
import type { LiveAnswer, LiveInputAnswer } from '@farm/contracts';
import { closeStaleUsage, releaseControl, takeControl, touchUsage } from '../modules/usage/usage.queries.ts';
import type { ChangeFeed } from '../events/changes.ts';
import type { Outbox } from '../events/outbox.ts';
import { recordActivity, write, writeAcross, type WriteContext } from '../events/write.ts';
import type { Db, Tx } from '../shared/types.ts';
import type { LiveBus } from './live.bus.ts';
import { findMember } from '../shared/members.queries.ts';
import { openControl } from './live.queries.ts';
import type { LiveWatchers } from './live.watchers.ts';
import { INPUT_TIMEOUT_MS, refuse, type LiveSocket, type Message, type Signal } from './live.shared.ts';

/** A usage session not touched for this long belongs to an instance that died: another closes it. */
export const USAGE_STALE_MS = 45_000;

interface Control {
  usageId: string;
  deviceId: string;
  deviceName: string;
  socket: LiveSocket;
  lastUsedAt: number;
  prompted: boolean;
  /** Held as a follower of group control: watched in the small stream, not the controller's. */
  follower?: boolean;
}

/** How long control may go unused, and how long before its release the controller is asked whether they are there. */
export interface IdleRule {
  idleMs: number;
  promptBeforeMs: number;
}

/** What live control tells group control of the phones its sessions hold. */
export interface GroupHooks {
  /** A control held here ended (released, taken over, lost). */
  ended(socket: LiveSocket, deviceId: string, reason: string): void;
  /** Whether this page's group session holds the phone as a follower (so a handed phone gets the small stream). */
  followerOf(socket: LiveSocket, deviceId: string): boolean;
  /** The phone was handed to this page (live control's handover): its group session holds it again. */
  handed(socket: LiveSocket, deviceId: string): void;
}

const NO_GROUP: GroupHooks = { ended: () => undefined, followerOf: () => false, handed: () => undefined };

/** This instance's controllers, per phone, and their inputs waiting for the phone's answer. */
export class LiveControl {
  private readonly controls = new Map<string, Control>();
  private readonly pendingInputs = new Map<string, { answer: (answer: LiveAnswer<LiveInputAnswer>) => void; sentAt: number; timer: NodeJS.Timeout }>();
  private readonly me: string;
  private readonly ctx: WriteContext;

  constructor(
    private readonly bus: LiveBus,
    private readonly db: Db,
    changes: ChangeFeed,
    private readonly watchers: LiveWatchers,
    private readonly idle: IdleRule,
    /** The live rules checked again (of one workspace, or all): a right lost ends control here. */
    private readonly checkRules: (workspaceId?: string) => Promise<unknown>,
    private readonly warn: (error: unknown) => void,
    /** Group control hears of its sessions' phones: a control held here ended, or one was handed to its page. */
    private readonly group: GroupHooks = NO_GROUP,
  ) {
    this.me = bus.instanceId;
    this.ctx = { db, changes };
  }

  /** The socket whose watch of the phone gets the controller's stream: its controller, unless a group follower. */
  streamController(deviceId: string): LiveSocket | undefined {
    const control = this.controls.get(deviceId);
    return control && !control.follower ? control.socket : undefined;
  }

  /**
   * Group control holds a phone as live control does (the same session, usage and rules); `follower`: its stream
   * stays the small one. A phone this socket already controls is kept, with the new role.
   */
  async hold(socket: LiveSocket, deviceId: string, follower: boolean): Promise<LiveAnswer> {
    const own = this.controls.get(deviceId);
    if (own?.socket === socket) {
      own.follower = follower;
      this.watchers.controlMoved(deviceId);
      return { ok: true };
    }
    return this.take(socket, deviceId, { takeOver: false, follower });
  }

  /** Whether this socket holds the phone now. */
  holds(socket: LiveSocket, deviceId: string): boolean {
    return this.controls.get(deviceId)?.socket === socket;
  }

  /** A group action counts as use of each phone it went to: no idle prompt, no release. */
  touch(socket: LiveSocket, deviceId: string): void {
    const control = this.controls.get(deviceId);
    if (control?.socket !== socket) return;
    control.lastUsedAt = Date.now();
    control.prompted = false;
  }

  /** Group control lets one phone go (dropped, or the session stopped). */
  async letGo(socket: LiveSocket, deviceId: string, reason: string): Promise<void> {
    const control = this.controls.get(deviceId);
    if (control?.socket === socket) await this.release(control, reason);
  }

  /** The socket controlling the phone from here, if any. */
  controllerOf(deviceId: string): LiveSocket | undefined {
    return this.controls.get(deviceId)?.socket;
  }

  /** Every control held here. */
  all(): Iterable<Control> {
    return this.controls.values();
  }

  async onControl(socket: LiveSocket, { deviceId, takeOver }: Message<'live.control'>): Promise<LiveAnswer> {
    if (!this.watchers.watchOf(socket, deviceId)) return refuse("Open the phone's live screen before taking control");
    return this.take(socket, deviceId, { takeOver: takeOver ?? false });
  }

  async onRelease(socket: LiveSocket, { deviceId }: Message<'live.release'>): Promise<LiveAnswer> {
    const control = this.controls.get(deviceId);
    if (control?.socket === socket) await this.release(control, 'handed back');
    return { ok: true };
  }

  async onInput(socket: LiveSocket, { deviceId, seq, input, record }: Message<'live.input'>): Promise<LiveAnswer<LiveInputAnswer>> {
    const control = this.controls.get(deviceId);
    if (!control || control.socket !== socket) return refuse('Take control of this phone first');
    control.lastUsedAt = Date.now();
    control.prompted = false;
    const reqId = randomUUID();
    return new Promise<LiveAnswer<LiveInputAnswer>>((resolve) => {
      const timer = setTimeout(() => {
        this.pendingInputs.delete(reqId);
        resolve(refuse('The phone did not answer in time. Is it still connected?'));
      }, INPUT_TIMEOUT_MS);
      this.pendingInputs.set(reqId, { answer: resolve, sentAt: Date.now(), timer });
      this.bus.signal({ t: 'input', from: this.me, reqId, deviceId, seq, input, ...(record ? { record: true } : {}) });
    });
  }

  async onKeep(socket: LiveSocket, { deviceId }: Message<'live.keep'>): Promise<LiveAnswer> {
    // The rules are checked again before control is kept: a right lost since ends it here.
    if (this.controls.get(deviceId)?.socket === socket) await this.checkRules(socket.data.workspaceId);
    const control = this.controls.get(deviceId);
    if (!control || control.socket !== socket) return refuse('You are not in control of this phone any more');
    control.lastUsedAt = Date.now();
    control.prompted = false;
    return { ok: true };
  }

  async onAsk(socket: LiveSocket, { deviceId }: Message<'live.ask'>): Promise<LiveAnswer> {
    if (!this.watchers.watchOf(socket, deviceId)) return refuse("Open the phone's live screen first");
    const current = await openControl(this.db, socket.data.workspaceId, deviceId);
    if (!current) return refuse('Nobody controls this phone now: take control');
    this.bus.signal({ t: 'ask', from: this.me, deviceId, usageId: current.id, userId: socket.data.userId, name: socket.data.name });
    return { ok: true };
  }

  async onHandover(socket: LiveSocket, { deviceId, userId }: Message<'live.handover'>): Promise<LiveAnswer> {
    const control = this.controls.get(deviceId);
    if (!control || control.socket !== socket) return refuse('You are not in control of this phone');
    // Only to an active member of this workspace: a name from elsewhere never reaches the activity feed.
    const to = await findMember(this.db, socket.data.workspaceId, userId);
    if (!to || to.deactivatedAt !== null) return refuse('That person is not a member of this workspace');
    await this.release(control, `handed over to ${to.name}`, userId);
    return { ok: true };
  }

  heardInputAck(message: Signal<'input.ack'>): void {
    if (message.to !== this.me) return;
    const pending = this.pendingInputs.get(message.reqId);
    if (!pending) return;
    this.pendingInputs.delete(message.reqId);
    clearTimeout(pending.timer);
    pending.answer(
      message.ok
        ? { ok: true, latencyMs: Date.now() - pending.sentAt, ...(message.recorded ? { recorded: message.recorded as RecordedTarget } : {}) }
        : refuse(message.error ?? 'The phone could not do that'),
    );
  }

  /** Control changed hands somewhere: a controller here who lost it is told; one it was handed to here takes it. */
  heardControl(message: Signal<'control'>): void {
    const control = this.controls.get(message.deviceId);
    if (control && control.usageId !== message.usageId && message.from !== this.me) {
      this.controls.delete(message.deviceId);
      control.socket.emit('live.released', { deviceId: message.deviceId, reason: message.reason });
      this.group.ended(control.socket, message.deviceId, message.reason);
    }
    const offerTo = message.offerTo;
    if (message.usageId === null && offerTo) {
      // Handed to someone watching here: they have it now.
      const watch = [...this.watchers.of(message.deviceId)].find((candidate) => candidate.socket.data.userId === offerTo);
      if (watch) {
        // Handed to a group control page: held as its session holds the phone (a follower in the small stream).
        const follower = this.group.followerOf(watch.socket, message.deviceId);
        void this.take(watch.socket, message.deviceId, { takeOver: false, handedBy: offerTo, ...(follower ? { follower } : {}) }).then((answer) => {
          if (!answer.ok) watch.socket.emit('live.released', { deviceId: message.deviceId, reason: answer.error });
          else this.group.handed(watch.socket, message.deviceId);
        }, this.warn);
      }
    }
  }

  heardAsk(message: Signal<'ask'>): void {
    for (const control of this.controls.values()) {
      if (control.usageId === message.usageId) control.socket.emit('live.asked', { deviceId: message.deviceId, userId: message.userId, name: message.name });
    }
  }

  /** Control unused for a while: the controller is asked first, then it is released. */
  checkIdle(): void {
    const { idleMs, promptBeforeMs } = this.idle;
    const now = Date.now();
    for (const control of [...this.controls.values()]) {
      const idle = now - control.lastUsedAt;
      if (idle >= idleMs) {
        control.socket.emit('live.released', {
          deviceId: control.deviceId,
          reason: `${control.deviceName} was released after ${spell(idleMs)} without use`,
        });
        void this.release(control, 'idle').catch(this.warn);
      } else if (idle >= idleMs - promptBeforeMs && !control.prompted) {
        control.prompted = true;
        control.socket.emit('live.idle', { deviceId: control.deviceId, deviceName: control.deviceName, releaseInMs: idleMs - idle });
      }
    }
  }

  /** Keeps this instance's usage sessions alive; a control whose session was closed elsewhere ends here. */
  async keepUsage(): Promise<void> {
    await this.checkRules();
    const open = await touchUsage(this.db, [...(await this.watchers.usageIds()), ...[...this.controls.values()].map((control) => control.usageId)]);
    for (const control of [...this.controls.values()]) {
      if (open.has(control.usageId)) continue;
      this.controls.delete(control.deviceId);
      control.socket.emit('live.released', { deviceId: control.deviceId, reason: `Your control of ${control.deviceName} ended` });
      this.group.ended(control.socket, control.deviceId, `Your control of ${control.deviceName} ended`);
    }
  }

  /** Closes the sessions of instances that died, and frees their phones. */
  async closeStale(): Promise<void> {
    const freed = await writeAcross(this.ctx, async (tx, outboxes) => {
      const devices = await closeStaleUsage(tx, USAGE_STALE_MS);
      for (const device of devices)
        await announceFreed(tx, outboxes.for(device.workspaceId), device, `${device.name} was released: its controller's connection was lost`, null);
      return devices;
    });
    for (const device of freed) this.bus.signal({ t: 'control', from: this.me, deviceId: device.id, usageId: null, reason: 'connection lost' });
  }

  /** A watcher left the phone's screen: their control of it ends too. */
  async leave(socket: LiveSocket, deviceId: string, reason: string): Promise<void> {
    const control = this.controls.get(deviceId);
    if (control?.socket === socket) await this.release(control, reason);
  }

  /** Ends a control held here because a rule no longer lets it be (live.rules.ts); the controller is told why. */
  async end(deviceId: string, reason: string): Promise<void> {
    const control = this.controls.get(deviceId);
    if (!control) return;
    await this.release(control, 'access changed');
    control.socket.emit('live.released', { deviceId, reason });
  }

  private async take(socket: LiveSocket, deviceId: string, how: { takeOver: boolean; handedBy?: string; follower?: boolean }): Promise<LiveAnswer> {
    const result = await takeControl(this.db, socket.data, deviceId, how);
    if (!result.ok) return result;
    const previous = this.controls.get(deviceId);
    if (previous && previous.usageId !== result.usageId && previous.socket !== socket) {
      previous.socket.emit('live.released', { deviceId, reason: `${socket.data.name} took over ${result.device.name}` });
      this.group.ended(previous.socket, deviceId, `${socket.data.name} took over ${result.device.name}`);
    }
    this.controls.set(deviceId, {
      usageId: result.usageId,
      deviceId,
      deviceName: result.device.name,
      socket,
      lastUsedAt: Date.now(),
      prompted: false,
      ...(how.follower ? { follower: true } : {}),
    });
    this.watchers.controlMoved(deviceId);
    this.bus.signal({ t: 'control', from: this.me, deviceId, usageId: result.usageId, reason: `${socket.data.name} took over ${result.device.name}` });
    const verb = how.handedBy
      ? `was handed ${result.device.name}`
      : result.replaced && result.replaced.userId !== socket.data.userId
        ? `took over ${result.device.name}`
        : `took control of ${result.device.name}`;
    await write(this.ctx, socket.data.workspaceId, async (_tx, outbox) => {
      outbox.add('device.updated', serialize(result.device));
      await outbox.record(
        { userId: socket.data.userId, action: `${socket.data.name} ${verb}`, deviceId, type: 'info' },
        { action: 'device.controlled', entityType: 'device', entityId: deviceId, data: { usageId: result.usageId } },
      );
    });
    return { ok: true };
  }

  /** Ends a control session held here and frees the phone (its tasks go on); `offerTo` is who it is handed to. */
  private async release(control: Control, reason: string, offerTo?: string): Promise<void> {
    if (this.controls.get(control.deviceId) === control) {
      this.controls.delete(control.deviceId);
      this.watchers.controlMoved(control.deviceId);
      this.group.ended(control.socket, control.deviceId, reason);
    }
    // The phone is freed and said to be in one write: its waiting work may go once it commits.
    const freed = await write(this.ctx, control.socket.data.workspaceId, async (tx, outbox) => {
      const released = await releaseControl(tx, control.usageId, reason);
      if (!released) return false;
      const { device, userName } = released;
      const action = `${userName} ${reason === 'idle' ? `was away: ${device.name} was released` : `stopped controlling ${device.name} (${reason})`}`;
      await announceFreed(tx, outbox, device, action, released.userId);
      return true;
    });
    if (!freed) return;
    this.bus.signal({ t: 'control', from: this.me, deviceId: control.deviceId, usageId: null, reason, ...(offerTo ? { offerTo } : {}) });
  }

  /** The server stops: every control here is released. */
  async releaseAll(): Promise<void> {
    for (const control of [...this.controls.values()]) await this.release(control, 'server stopped').catch(this.warn);
  }

  /** The server stops: inputs still waiting are not answered. */
  clearPending(): void {
    for (const pending of this.pendingInputs.values()) clearTimeout(pending.timer);
  }
}

/** A phone freed in the write: shown free, woken for its waiting work, and said in the activity feed. */
async function announceFreed(tx: Tx, outbox: Outbox, device: DeviceRow, action: string, userId: string | null): Promise<void> {
  outbox.add('device.updated', serialize(device));
  // Its waiting work may go now (a wake: the dispatch triggers are named in agents/dispatcher.ts).
  outbox.internal('device.wake', { deviceId: device.id });
  await recordActivity(tx, { workspaceId: device.workspaceId, userId, action, deviceId: device.id, type: 'info' }, undefined, outbox);
}

/** 15 minutes, 1 minute, 30 seconds. */
function spell(ms: number): string {
  const unit = ms >= 60_000 ? { size: 60_000, name: 'minute' } : { size: 1000, name: 'second' };
  const count = Math.round(ms / unit.size);
  return `${count} ${unit.name}${count === 1 ? '' : 's'}`;
}
