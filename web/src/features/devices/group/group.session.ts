/**
 * One group control session on the `/live` socket: the page watches every phone first (the server holds only phones
 * this socket watches), starts the group, sends the person's actions and keeps the page state as the server's answers
 * and pushes say. Each phone's pictures go to the tile drawing it (or are let go when none does). Apart from React so
 * it can be driven by a stand-in socket in tests.
 */
import type {
  LiveAnswer,
  LiveClientToServer,
  LiveFrameOut,
  LiveGroupActAnswer,
  LiveGroupAnswer,
  LiveGroupResult,
  LiveServerToClient,
  LiveVideoOut,
} from '@farm/contracts';
import type { GroupAction } from '@farm/agent-protocol/group';
import { applyActAnswer, applyGroupAnswer, initialGroupState, mergeResult, retryTargets, type GroupState } from './group.state';

/** What the session needs of the live socket (the app's `LiveSocket` is one). */
export interface GroupSocket {
  readonly connected: boolean;
  emit<E extends keyof LiveClientToServer>(event: E, ...args: Parameters<LiveClientToServer[E]>): unknown;
  on<E extends keyof LiveServerToClient>(event: E, listener: LiveServerToClient[E]): unknown;
  on(event: 'connect' | 'disconnect', listener: () => void): unknown;
  off<E extends keyof LiveServerToClient>(event: E, listener: LiveServerToClient[E]): unknown;
  off(event: 'connect' | 'disconnect', listener: () => void): unknown;
}

/** Where one phone's pictures go while a tile draws it. */
export interface PictureSink {
  video(packet: LiveVideoOut): void;
  /** A JPEG frame; `ack` asks for the next one (call it once drawn, or at once to let the frame go). */
  frame(frame: LiveFrameOut, ack: () => void): void;
}

/** A phone that could not be watched, and why (its tile says so). */
export type WatchState = { kind: 'waiting' } | { kind: 'watching'; streaming: boolean; reason?: string } | { kind: 'refused'; reason: string };

export interface GroupSessionView {
  group: GroupState;
  watch: Record<string, WatchState>;
  /** Phones whose control is about to end for idleness: Keep control answers them all. */
  idle: { deviceIds: string[]; releaseAt: number } | null;
  /** An action is on its way (the buttons wait for its answer). */
  sending: boolean;
}

export interface GroupSessionOptions {
  deviceIds: readonly string[];
  leaderId: string;
  /** This browser decodes H.264: phones send it packets of their `watch` stream. */
  h264: boolean;
  /** Called with every new view of the session. */
  changed: (view: GroupSessionView) => void;
  /** A refusal worded by the server, to show the person. */
  refused: (error: string) => void;
  /** The person controlling a phone was asked to hand it over (their name, as the phone's entry said). */
  asked?: (controllerName: string | null) => void;
  now?: () => number;
}

export class GroupSession {
  private view: GroupSessionView;
  private readonly sinks = new Map<string, PictureSink>();
  /** Each phone's last stream configuration: a tile that starts drawing mid-stream (a new leader) needs it first. */
  private readonly configs = new Map<string, LiveVideoOut>();
  private readonly watched = new Set<string>();
  private started = false;
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly socket: GroupSocket,
    private readonly options: GroupSessionOptions,
  ) {
    this.now = options.now ?? (() => Date.now());
    this.view = {
      group: initialGroupState(options.deviceIds, options.leaderId),
      watch: Object.fromEntries(options.deviceIds.map((deviceId) => [deviceId, { kind: 'waiting' } as WatchState])),
      idle: null,
      sending: false,
    };
    socket.on('connect', this.onConnect);
    socket.on('live.video', this.onVideo);
    socket.on('live.frame', this.onFrame);
    socket.on('live.status', this.onStatus);
    socket.on('live.group.result', this.onResult);
    socket.on('live.group.state', this.onState);
    socket.on('live.released', this.onReleased);
    socket.on('live.idle', this.onIdle);
    if (socket.connected) this.onConnect();
  }

  get state(): GroupSessionView {
    return this.view;
  }

  private set(next: Partial<GroupSessionView>): void {
    if (this.closed) return;
    this.view = { ...this.view, ...next };
    this.options.changed(this.view);
  }

  private setGroup(group: GroupState): void {
    this.set({ group });
  }

  /** The phones in the group now, and those dropped (watched again only when added back). */
  private phoneIds(): string[] {
    return this.view.group.phones.map((phone) => phone.deviceId);
  }

  private watch(deviceId: string): Promise<boolean> {
    return new Promise((resolve) => {
      this.socket.emit('live.watch', { deviceId, ...(this.options.h264 ? { h264: true } : {}) }, (answer) => {
        if (answer.ok) {
          this.watched.add(deviceId);
          this.set({
            watch: { ...this.view.watch, [deviceId]: { kind: 'watching', streaming: answer.streaming, ...(answer.reason ? { reason: answer.reason } : {}) } },
          });
        } else {
          this.set({ watch: { ...this.view.watch, [deviceId]: { kind: 'refused', reason: answer.error } } });
        }
        resolve(answer.ok);
      });
    });
  }

  private unwatch(deviceId: string): void {
    this.watched.delete(deviceId);
    if (this.socket.connected) this.socket.emit('live.unwatch', { deviceId });
  }

  /** Every (re)connect is a new session on the server: watch each phone again, then hold them again. */
  private readonly onConnect = (): void => {
    if (this.closed || this.view.group.status === 'stopped') return;
    this.watched.clear();
    this.started = false;
    const ids = this.phoneIds();
    const leaderId = this.view.group.leaderId;
    // An answer lost with the old connection never comes: nothing is on its way any more.
    this.set({ group: { ...this.view.group, status: 'starting' }, sending: false });
    void Promise.all(ids.map((deviceId) => this.watch(deviceId))).then((watched) => {
      if (this.closed) return;
      const deviceIds = ids.filter((_, index) => watched[index]);
      if (deviceIds.length === 0) {
        this.setGroup({ ...this.view.group, status: 'refused', notice: 'None of these phones can be watched now.' });
        return;
      }
      const leader = deviceIds.includes(leaderId) ? leaderId : (deviceIds[0] ?? leaderId);
      this.socket.emit('live.group.start', { deviceIds, leaderId: leader }, (answer) => {
        if (this.closed) return;
        if (!answer.ok) {
          this.setGroup({ ...this.view.group, status: 'refused', notice: answer.error });
          return;
        }
        this.started = true;
        this.setGroup(applyGroupAnswer(this.view.group, answer));
      });
    });
  };

  private readonly onVideo = (packet: LiveVideoOut, ack: () => void): void => {
    // Acknowledged on arrival, as the live screen does: the tile's player keeps its own pace.
    ack();
    if (packet.config) this.configs.set(packet.deviceId, packet);
    this.pictureCame(packet.deviceId);
    this.sinks.get(packet.deviceId)?.video(packet);
  };

  /** Pictures come: the phone streams, whatever its watch answer said before. */
  private pictureCame(deviceId: string): void {
    const watch = this.view.watch[deviceId];
    if (watch?.kind === 'watching' && !watch.streaming) this.set({ watch: { ...this.view.watch, [deviceId]: { kind: 'watching', streaming: true } } });
  }

  private readonly onFrame = (frame: LiveFrameOut, ack: () => void): void => {
    this.pictureCame(frame.deviceId);
    const sink = this.sinks.get(frame.deviceId);
    if (sink) sink.frame(frame, ack);
    else ack();
  };

  private readonly onStatus = (status: { deviceId: string; streaming: boolean; reason?: string }): void => {
    const current = this.view.watch[status.deviceId];
    if (current?.kind !== 'watching') return;
    this.set({
      watch: {
        ...this.view.watch,
        [status.deviceId]: { kind: 'watching', streaming: status.streaming, ...(status.reason && !status.streaming ? { reason: status.reason } : {}) },
      },
    });
  };

  private readonly onResult = (result: LiveGroupResult): void => {
    this.setGroup(mergeResult(this.view.group, result));
  };

  private readonly onState = (state: LiveGroupAnswer & { reason?: string }): void => {
    this.setGroup(applyGroupAnswer(this.view.group, state, state.reason ?? null));
  };

  private readonly onReleased = (released: { deviceId: string; reason: string }): void => {
    const phones = this.view.group.phones.map((phone) => (phone.deviceId === released.deviceId ? { ...phone, held: false, reason: released.reason } : phone));
    const idle = this.view.idle ? this.withoutIdle(released.deviceId) : null;
    this.set({ group: { ...this.view.group, phones }, idle });
  };

  private withoutIdle(deviceId: string): GroupSessionView['idle'] {
    const idle = this.view.idle;
    if (!idle) return null;
    const deviceIds = idle.deviceIds.filter((id) => id !== deviceId);
    return deviceIds.length > 0 ? { ...idle, deviceIds } : null;
  }

  private readonly onIdle = (prompt: { deviceId: string; releaseInMs: number }): void => {
    const releaseAt = this.now() + prompt.releaseInMs;
    const idle = this.view.idle;
    const deviceIds = idle ? [...new Set([...idle.deviceIds, prompt.deviceId])] : [prompt.deviceId];
    this.set({ idle: { deviceIds, releaseAt: idle ? Math.min(idle.releaseAt, releaseAt) : releaseAt } });
  };

  /** "Keep control": every phone the idle prompt named stays held. */
  keep(): void {
    const idle = this.view.idle;
    if (!idle || !this.socket.connected) return;
    for (const deviceId of idle.deviceIds) this.socket.emit('live.keep', { deviceId });
    this.set({ idle: null });
  }

  /** A tile draws this phone's pictures from now on (null: it stopped). */
  attach(deviceId: string, sink: PictureSink | null): void {
    if (!sink) {
      this.sinks.delete(deviceId);
      return;
    }
    this.sinks.set(deviceId, sink);
    const config = this.configs.get(deviceId);
    if (config) sink.video(config);
  }

  private call<T extends object>(send: (done: (answer: LiveAnswer<T>) => void) => void, ok: (answer: { ok: true } & T) => void): boolean {
    if (this.closed || !this.socket.connected || !this.started) return false;
    send((answer) => {
      if (this.closed) return;
      if (!answer.ok) {
        this.options.refused(answer.error);
        return;
      }
      ok(answer);
    });
    return true;
  }

  /** One action of the person on the leader, for the group (or `only` these phones). */
  act(action: GroupAction, only?: string[]): void {
    if (this.closed || !this.socket.connected || !this.started) return;
    const body = only ? { action, only } : { action };
    this.set({ sending: true });
    this.call<LiveGroupActAnswer>(
      (done) =>
        this.socket.emit('live.group.act', body, (answer) => {
          this.set({ sending: false });
          done(answer);
        }),
      (answer) => this.setGroup(applyActAnswer(this.view.group, answer, action, only)),
    );
  }

  /** "Retry on the ones that missed": the last action again, to the phones whose result was not Done. */
  retry(): void {
    const line = this.view.group.lines[0];
    const only = retryTargets(this.view.group);
    if (!line || only.length === 0) return;
    this.act(line.action, only);
  }

  /** The offered tap by point, where the leader's finger found nothing that names itself. */
  tapByPoint(): void {
    const offer = this.view.group.offerPoint;
    if (!offer) return;
    this.setGroup({ ...this.view.group, offerPoint: null });
    this.act({ kind: 'point', ...offer });
  }

  /** Asks the person controlling a phone of the group to hand it over (live control's ask). */
  askFor(deviceId: string): boolean {
    const controllerName = this.view.group.phones.find((phone) => phone.deviceId === deviceId)?.controlledBy ?? null;
    return this.call<object>(
      (done) => this.socket.emit('live.ask', { deviceId }, done),
      () => this.options.asked?.(controllerName),
    );
  }

  makeLeader(deviceId: string): void {
    this.call<LiveGroupAnswer>(
      (done) => this.socket.emit('live.group.leader', { leaderId: deviceId }, done),
      (answer) => this.setGroup(applyGroupAnswer(this.view.group, answer)),
    );
  }

  drop(deviceId: string): void {
    this.call<LiveGroupAnswer>(
      (done) => this.socket.emit('live.group.drop', { deviceId }, done),
      (answer) => {
        this.setGroup(applyGroupAnswer(this.view.group, answer));
        // A dropped phone is not drawn: its pictures stop until it is added back.
        if (!answer.phones.some((phone) => phone.deviceId === deviceId)) this.unwatch(deviceId);
      },
    );
  }

  /** A dropped phone back in the group: watched again first, as the server asks. */
  add(deviceId: string): void {
    if (this.closed || !this.socket.connected || !this.started) return;
    const add = () =>
      this.call<LiveGroupAnswer>(
        (done) => this.socket.emit('live.group.add', { deviceId }, done),
        (answer) => this.setGroup(applyGroupAnswer(this.view.group, answer)),
      );
    if (this.watched.has(deviceId)) {
      add();
      return;
    }
    void this.watch(deviceId).then((ok) => {
      if (ok) add();
      else {
        const watch = this.view.watch[deviceId];
        this.options.refused(watch?.kind === 'refused' ? watch.reason : 'This phone cannot be watched now.');
      }
    });
  }

  /** Stop all: every phone is released and no longer watched. */
  stop(): void {
    if (this.socket.connected) {
      if (this.started) this.socket.emit('live.group.stop', {});
      for (const deviceId of [...this.watched]) this.unwatch(deviceId);
    }
    this.started = false;
    this.watched.clear();
    this.set({ group: { ...this.view.group, status: 'stopped', offerPoint: null }, idle: null, sending: false });
  }

  /** The page closes: the session stops and the socket's listeners go. */
  close(): void {
    if (this.closed) return;
    if (this.view.group.status !== 'stopped') this.stop();
    this.closed = true;
    this.sinks.clear();
    this.configs.clear();
    this.socket.off('connect', this.onConnect);
    this.socket.off('live.video', this.onVideo);
    this.socket.off('live.frame', this.onFrame);
    this.socket.off('live.status', this.onStatus);
    this.socket.off('live.group.result', this.onResult);
    this.socket.off('live.group.state', this.onState);
    this.socket.off('live.released', this.onReleased);
    this.socket.off('live.idle', this.onIdle);
  }
}
