/**
 * Live screens and remote control. Browsers watch on the `/live` namespace; the instance holding a phone's agent
 * asks it to stream while anyone anywhere watches, passes its frames on the live bus (never the console's event
 * stream), and stops it within a moment of the last watcher leaving. Each watcher gets a frame only once it has
 * acknowledged the previous one: a slow viewer gets fewer frames, never late ones, and the phone is told to ease off.
 *
 * One person controls a phone at a time (the database says who); their inputs go to the phone in order and each is
 * answered with its latency. Every watch and control is a usage session; control left unused is released after a
 * prompt; sessions of an instance that died are closed by the others.
 *
 * `attachLive` opens the namespace; `LiveScreens` is where its rooms meet: it routes each browser message, bus signal
 * and timer to the room whose state it changes (live.watchers.ts, live.video.ts, live.control.ts, live.held.ts,
 * live.inspect.ts), so no room needs to know how the others are reached.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Adapter } from 'socket.io-adapter';
import type { Ack, LiveFrame, LiveVideo } from '@farm/agent-protocol';
import { LIVE_NAMESPACE, liveClientMessages, type LiveAnswer, type LiveClientMessageName } from '@farm/contracts';
import type { ChangeFeed } from '../events/changes.ts';
import type { Db } from '../shared/types.ts';
import { LocalLiveBus, RedisLiveBus, type LiveBus, type LiveSignal } from './live.bus.ts';
import { LiveRules, type LiveHoldings } from './live.rules.ts';
import type { LiveHub, LivePhone, RealtimeServer } from '../shared/sockets.types.ts';
import { crossSite, personOf, unavailable } from './handshake.ts';
import { LiveControl, USAGE_STALE_MS } from './live.control.ts';
import { LiveGroup } from './live.group.ts';
import { LiveHeld } from './live.held.ts';
import { LiveInspect } from './live.inspect.ts';
import { NOT_STREAMING, refuse, type LiveNamespace, type LiveSocket, type Message } from './live.shared.ts';
import { LiveWatchers } from './live.watchers.ts';

/** How often an instance repeats who watches here (the phone's instance forgets a count it has not heard again). */
const ANNOUNCE_MS = 1000;
const USAGE_TOUCH_MS = 10_000;
const IDLE_CHECK_MS = 2000;

export async function attachLive(app: FastifyInstance, io: RealtimeServer, options: { redisUrl?: string | undefined }): Promise<LiveHub> {
  const warn = (error: unknown) => app.log.warn({ err: error }, 'live screen');
  const bus: LiveBus = options.redisUrl ? await RedisLiveBus.connect(options.redisUrl, warn) : new LocalLiveBus();
  const nsp = io.of(LIVE_NAMESPACE) as unknown as LiveNamespace;
  // The server's adapter would keep what is sent to a socket for recovery (in memory, or in the Redis stream with
  // several instances): frames must never be kept, so this namespace has the plain adapter, which only delivers.
  await Promise.resolve(nsp.adapter.close()).catch(() => undefined);
  nsp.adapter = new Adapter(nsp as unknown as ConstructorParameters<typeof Adapter>[0]);
  nsp.use((socket, next) => {
    const refused = crossSite(app, socket.handshake.headers);
    if (refused) return next(refused);
    personOf(app, socket.handshake.headers.cookie).then(
      (person) => {
        if (person instanceof Error) return next(person);
        socket.data = person;
        next();
      },
      (error: unknown) => next(unavailable(app, error)),
    );
  });
  return new LiveScreens(nsp, bus, app.ctx.db, app.ctx.changes, app.ctx.config.liveControlIdleMs, app.log);
}

/**
 * This instance's live screens: the watchers and controllers connected here (the watchers' side), the phones whose
 * agents are connected here (the phones' side), and what each hears of the others on the live bus. Each browser
 * message, bus signal and timer has its named handler in the room that owns its state.
 */
class LiveScreens implements LiveHub {
  private readonly warn: (error: unknown) => void;
  private readonly timers: NodeJS.Timeout[];
  private readonly rules: LiveRules<LiveSocket>;
  private readonly watchers: LiveWatchers;
  private readonly control: LiveControl;
  private readonly held: LiveHeld;
  private readonly inspect: LiveInspect;
  private readonly group: LiveGroup;

  constructor(
    nsp: LiveNamespace,
    private readonly bus: LiveBus,
    db: Db,
    changes: ChangeFeed,
    idleMs: number,
    log: FastifyBaseLogger,
  ) {
    const promptBeforeMs = Math.min(60_000, Math.floor(idleMs / 5));
    this.warn = (error) => log.warn({ err: error }, 'live screen');
    this.watchers = new LiveWatchers(
      bus,
      db,
      // A group's followers are held but watched in the small stream: only the controller's own watch gets the large one.
      {
        controllerOf: (deviceId) => this.control.streamController(deviceId),
        leave: (socket, deviceId, reason) => this.control.leave(socket, deviceId, reason),
      },
      this.warn,
    );
    this.control = new LiveControl(bus, db, changes, this.watchers, { idleMs, promptBeforeMs }, (workspaceId) => this.rules.check(workspaceId), this.warn, {
      ended: (socket, deviceId, reason) => this.group.controlEnded(socket, deviceId, reason),
      followerOf: (socket, deviceId) => this.group.followerOf(socket, deviceId),
      handed: (socket, deviceId) => this.group.controlHanded(socket, deviceId),
    });
    this.held = new LiveHeld(bus);
    this.inspect = new LiveInspect(bus, db, this.watchers, this.held);
    this.group = new LiveGroup(bus, db, this.control, this.watchers, this.held, this.warn);
    nsp.on('connection', (socket: LiveSocket) => this.connect(socket, log));
    bus.onSignal((message) => this.heard(message));
    this.timers = [
      setInterval(() => this.announceAll(), ANNOUNCE_MS),
      setInterval(() => this.control.checkIdle(), Math.min(IDLE_CHECK_MS, Math.max(250, Math.floor(promptBeforeMs / 4)))),
      setInterval(() => void this.control.keepUsage().catch(this.warn), USAGE_TOUCH_MS),
      setInterval(() => void this.control.closeStale().catch(this.warn), USAGE_STALE_MS / 3),
    ];
    for (const timer of this.timers) timer.unref();
    // A signed-out session's live screens close with its other sockets; lost rights end controls and watches.
    this.rules = new LiveRules(db, bus, changes, this.holdings(nsp), this.warn);
  }

  // ── a browser's socket: each message parsed with its schema and answered by its handler ──────────────────

  private connect(socket: LiveSocket, log: FastifyBaseLogger): void {
    const on = <N extends LiveClientMessageName>(name: N, handle: (socket: LiveSocket, message: Message<N>) => Promise<LiveAnswer<object>>) => {
      (socket.on as (event: string, listener: (raw: unknown, ack?: (answer: unknown) => void) => void) => void)(name, (raw, ack) => {
        const parsed = liveClientMessages[name].safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          ack?.(refuse(`${issue?.path.join('.') || name}: ${issue?.message ?? 'is not valid'}`));
          return;
        }
        handle(socket, parsed.data as Message<N>).then(
          (answer) => ack?.(answer),
          (error: unknown) => {
            log.warn({ err: error, message: name }, 'live message failed');
            ack?.(refuse('The server could not do that just now; try again'));
          },
        );
      });
    };
    on('live.watch', (from, message) => this.watchers.onWatch(from, message));
    on('live.unwatch', (from, message) => this.watchers.onUnwatch(from, message));
    on('live.control', (from, message) => this.control.onControl(from, message));
    on('live.release', (from, message) => this.control.onRelease(from, message));
    on('live.input', (from, message) => this.control.onInput(from, message));
    on('live.keep', (from, message) => this.control.onKeep(from, message));
    on('live.ask', (from, message) => this.control.onAsk(from, message));
    on('live.handover', (from, message) => this.control.onHandover(from, message));
    on('live.inspect', (from, message) => this.inspect.onInspect(from, message));
    on('live.group.start', (from, message) => this.group.onStart(from, message));
    on('live.group.leader', (from, message) => this.group.onLeader(from, message));
    on('live.group.add', (from, message) => this.group.onAdd(from, message));
    on('live.group.drop', (from, message) => this.group.onDrop(from, message));
    on('live.group.act', (from, message) => this.group.onAct(from, message));
    on('live.group.stop', (from) => this.group.onStop(from));
    socket.on('disconnect', () => {
      this.group.forget(socket);
      this.watchers.disconnected(socket);
    });
  }

  // ── what the other instances say on the live bus ─────────────────────────────────────────────────────────

  private heard(message: LiveSignal): void {
    switch (message.t) {
      case 'watchers':
        this.held.heardWatchers(message);
        return;
      case 'status':
        this.watchers.heardStatus(message);
        // A group's phone that disconnected leaves the group (live control keeps a single phone across a blip).
        if (!message.streaming && message.reason === NOT_STREAMING.gone) void this.group.phoneGone(message.deviceId).catch(this.warn);
        return;
      case 'input':
        this.held.heardInput(message);
        return;
      case 'input.ack':
        this.control.heardInputAck(message);
        return;
      case 'control':
        this.control.heardControl(message);
        return;
      case 'ask':
        this.control.heardAsk(message);
        return;
      case 'keyframe':
        this.held.heardKeyFrame(message);
        return;
      case 'inspect':
        this.inspect.heardInspect(message);
        return;
      case 'inspect.result':
        this.inspect.heardInspectResult(message);
        return;
      case 'group':
        this.group.heardGroup(message);
        return;
      case 'group.result':
        this.group.heardGroupResult(message);
        return;
      case 'rules':
        // Heard by live.rules.ts, which ends what no longer passes the rules.
        return;
    }
  }

  // ── timers: announcements (idle control, usage kept alive and dead instances' sessions are the control's) ──

  private announceAll(): void {
    this.watchers.announceAll();
    this.held.reconcileAll();
  }

  /** This instance's live screens as the rules see and end them (live.rules.ts). */
  private holdings(nsp: LiveNamespace): LiveHoldings<LiveSocket> {
    return {
      sockets: () => nsp.sockets.values(),
      watches: () => this.watchers.all(),
      controls: () => this.control.all(),
      endControl: (deviceId, reason) => this.control.end(deviceId, reason),
      endWatch: async (socket, deviceId, reason) => {
        socket.emit('live.status', { deviceId, streaming: false, reason });
        await this.watchers.unwatch(socket, deviceId, 'access changed');
      },
    };
  }

  // ── LiveHub: what the agents' namespace tells of the phones connected here ───────────────────────────────

  phoneReady(phone: LivePhone): void {
    this.held.phoneReady(phone);
  }

  phoneGone(deviceId: string, socketId: string): void {
    this.held.phoneGone(deviceId, socketId);
  }

  frame(deviceId: string, frame: LiveFrame): Ack {
    return this.held.frame(deviceId, frame);
  }

  video(deviceId: string, packet: LiveVideo): Ack {
    return this.held.video(deviceId, packet);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.rules.close();
    await this.control.releaseAll();
    await this.watchers.close();
    this.control.clearPending();
    this.inspect.clearPending();
    this.group.clearPending();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await this.bus.close();
  }
}
