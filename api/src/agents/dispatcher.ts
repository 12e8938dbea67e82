/**
 * Hands work to the phones connected to this process. Each API instance knows only its own phones. What makes it
 * lease a phone's next task, every trigger named here (the other files point to this list):
 *
 *   1. hello     the phone said hello on this process (agents.handlers.ts `agent.hello`): `attach`, then `wake`.
 *   2. result    the phone sent a result here (agents.handlers.ts `task.result`): `finished`, once the phone has its
 *                answer, at once on this process, not after the settle's wake (3) has gone round the cluster.
 *   3. wake      a `device.wake` announced by any process, after its transaction committed: a task made, returned for
 *                a retry or settled for the phone (the lifecycle in @farm/workers tasks/lifecycle.ts), a task moved
 *                to it (modules/tasks), a person's control released (realtime/live.ts). Other instances' wakes come
 *                over the changes channel (events/jobs.ts).
 *   4. sweep     every SWEEP_MS, the phones free in the database (retries whose backoff ended, a missed wake).
 *
 * After a result, 2, 3 and 4 all fire; the first to run leases the next task and the others find it out.
 * Hand-overs to one phone are serialized here, and the lifecycle's unique index keeps one attempt out per phone
 * whatever happens elsewhere. Leases asked for while one is written go together in the next statement. Work goes to
 * protocol 1 agents in the v1 shape, to protocol 2 agents typed. "Connected here and heard" is the device-status rule
 * of @farm/workers devices/status.ts (`silenceMs`).
 *
 * A phone its farm host holds (around an adb server restart: `agent.hold`, or `holding` in its hello) is given no
 * new work by any of the four until the host lets go, or HOLD_MAX_MS passed (a host that never lets go does not keep
 * a phone idle for good); letting go wakes it.
 *
 * A phone this process gave an attempt is not asked again until that attempt ends: its result (sent here), its
 * withdrawal (announced by any process), a new socket, or the sweep finding it free in the database. A wake in
 * between (a batch of posts falling due while it works) would lease nothing, one statement for each; the result's
 * own wake hands over the next. What the phone holds is the database's to say: a stale mark here delays a lease by
 * one sweep at most, and never lets a second attempt out.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ProtocolVersion, ServerMessage, TaskDispatchV1, TaskDispatchV2 } from '@farm/agent-protocol';
import { describeWork, type TaskWork } from '@farm/agent-protocol/work';
import type { TaskRow } from '@farm/sql';
import { automation, dispatchMany, silenceMs, worksForDispatch } from '@farm/workers';
import type { InternalEventPayload } from '@farm/contracts';
import { devicesWithReadyWork } from './agents.queries.ts';
import type { Db } from '../shared/types.ts';
import type { ChangeFeed } from '../events/changes.ts';
import { writeStatement } from '../events/write.ts';
import { Gathered } from './gathered.ts';

export const SWEEP_MS = 2_000;
/** The longest a host's hold keeps a phone from work: its drain (60 s) and an adb server restart, with room to spare. */
export const HOLD_MAX_MS = 5 * 60_000;

export interface ConnectedPhone {
  socketId: string;
  deviceId: string;
  workspaceId: string;
  deviceName: string;
  protocol: ProtocolVersion;
  heardAt: number;
  /** Its host holds its work (said in its hello). */
  holding?: boolean;
  send<N extends 'task.dispatch' | 'task.cancel'>(event: N, message: ServerMessage<N>): void;
}

/** A phone's lease: its task, and for a protocol 2 phone the work as it receives it. */
interface Lease {
  task: TaskRow;
  work: TaskWork | undefined;
}

export class Dispatcher {
  private readonly phones = new Map<string, ConnectedPhone>();
  private readonly queues = new Map<string, Promise<void>>();
  /** Phones with a hand-over queued that has not begun: a wake meanwhile is answered by it. */
  private readonly waiting = new Set<string>();
  /** The attempt each phone was given by this process and has not ended, as far as this process has heard. */
  private readonly out = new Map<string, { taskId: string; attempt: number }>();
  /** Phones their host holds, each until when at most (see HOLD_MAX_MS). */
  private readonly held = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private closed = false;
  /**
   * Leases, written together with those asked for while one is written: each phone's task, if it got one, with the
   * work a protocol 2 phone receives (its recipes looked up once for the whole batch).
   */
  private readonly leases = new Gathered(async (deviceIds: string[]): Promise<(Lease | undefined)[]> => {
    const leased = await writeStatement({ db: this.db, changes: this.changes }, (db, outboxes) => dispatchMany(db, deviceIds, outboxes));
    const typed = [...leased].flatMap(([deviceId, task]) => (this.phones.get(deviceId)?.protocol === 1 ? [] : [task]));
    // Should the batch's lookup fail, the leases stand and each hand-over looks its own work up.
    const works = await (typed.length === 0 ? Promise.resolve([]) : worksForDispatch(this.db, typed)).then(
      (found) => new Map(found.map((work, index) => [typed[index]!.id, work])),
      (error: unknown) => {
        this.log.warn({ err: error }, 'work for a batch of leases failed');
        return new Map<string, TaskWork>();
      },
    );
    return deviceIds.map((deviceId) => {
      const task = leased.get(deviceId);
      return task && { task, work: works.get(task.id) };
    });
  });

  constructor(
    private readonly db: Db,
    private readonly changes: ChangeFeed,
    private readonly log: FastifyBaseLogger,
  ) {
    this.unsubscribe = changes.subscribe((change) => {
      // Not awaited: a hand-over logs its own failure (wake never rejects), and the change feed waits for no listener.
      if (change.event === 'device.wake') void this.wake(change.payload.deviceId);
      else if (change.event === 'task.withdrawn') this.withdraw(change.payload);
    });
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /** A phone said hello on this process: it may get work. */
  attach(phone: ConnectedPhone): void {
    this.phones.set(phone.deviceId, phone);
    this.out.delete(phone.deviceId);
    if (phone.holding) this.held.set(phone.deviceId, Date.now() + HOLD_MAX_MS);
    else this.held.delete(phone.deviceId);
  }

  /** The phone's host holds its work, or lets go of it (and the phone may take its next task at once). */
  hold(deviceId: string, holding: boolean): void {
    if (holding) this.held.set(deviceId, Date.now() + HOLD_MAX_MS);
    // Not awaited: a hand-over logs its own failure (wake never rejects).
    else if (this.held.delete(deviceId)) void this.wake(deviceId);
  }

  /** Held by its host, and the hold has not run out. */
  holds(deviceId: string): boolean {
    const until = this.held.get(deviceId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.held.delete(deviceId);
    return false;
  }

  /** The phone's socket closed; a newer socket of the same phone stays attached. */
  detach(deviceId: string, socketId: string): void {
    if (this.phones.get(deviceId)?.socketId !== socketId) return;
    this.phones.delete(deviceId);
    this.out.delete(deviceId);
    this.held.delete(deviceId);
  }

  /** The phone sent a result (settling its attempt, or one of an older one): it may take its next task now. */
  finished(deviceId: string): Promise<void> {
    this.out.delete(deviceId);
    return this.wake(deviceId);
  }

  heard(deviceId: string): void {
    const phone = this.phones.get(deviceId);
    if (phone) phone.heardAt = Date.now();
  }

  /** Connected here and heard within three heartbeats. */
  live(deviceId: string): ConnectedPhone | undefined {
    const phone = this.phones.get(deviceId);
    return phone && Date.now() - phone.heardAt < silenceMs() ? phone : undefined;
  }

  /**
   * Leases the phone's next task to it, if it is connected here and has none out. Serialized per phone; wakes that
   * come while a hand-over waits its turn share it, as it begins after them and sees what they announce (a batch of
   * posts falling due for one phone is one lease, not one per post).
   */
  wake(deviceId: string): Promise<void> {
    if (this.closed || !this.phones.has(deviceId)) return Promise.resolve();
    const previous = this.queues.get(deviceId) ?? Promise.resolve();
    if (this.waiting.has(deviceId)) return previous;
    this.waiting.add(deviceId);
    const next = previous
      .then(() => {
        this.waiting.delete(deviceId);
        return this.handOver(deviceId);
      })
      .catch((error: unknown) => this.log.warn({ err: error, deviceId }, 'dispatch failed'))
      .finally(() => {
        if (this.queues.get(deviceId) === next) this.queues.delete(deviceId);
      });
    this.queues.set(deviceId, next);
    return next;
  }

  private async handOver(deviceId: string): Promise<void> {
    const phone = this.live(deviceId);
    if (!phone || this.closed || this.out.has(deviceId) || this.holds(deviceId)) return;
    const lease = await this.leases.run(deviceId);
    if (!lease) return;
    const { task } = lease;
    this.out.set(deviceId, { taskId: task.id, attempt: task.attempt });
    phone.send('task.dispatch', phone.protocol === 1 ? dispatchV1(task) : dispatchV2(task, lease.work ?? (await worksForDispatch(this.db, [task]))[0]!));
  }

  /** An attempt out on one of this process's phones was called off: a protocol 2 phone is told to drop it. */
  withdraw(withdrawn: InternalEventPayload<'task.withdrawn'>): void {
    const given = this.out.get(withdrawn.deviceId);
    if (given?.taskId === withdrawn.taskId && given.attempt === withdrawn.attempt) this.out.delete(withdrawn.deviceId);
    const phone = this.phones.get(withdrawn.deviceId);
    if (!phone || phone.protocol < 2) return;
    phone.send('task.cancel', { taskId: withdrawn.taskId, attempt: withdrawn.attempt, code: withdrawn.code, reason: withdrawn.reason.slice(0, 500) });
  }

  private async sweep(): Promise<void> {
    const live = [...this.phones.keys()].filter((deviceId) => this.live(deviceId) && !this.queues.has(deviceId) && !this.holds(deviceId));
    if (live.length === 0) return;
    try {
      // Free in the database, whatever this process last heard.
      for (const deviceId of await devicesWithReadyWork(this.db, live)) {
        this.out.delete(deviceId);
        void this.wake(deviceId);
      }
    } catch (error) {
      if (!this.closed) this.log.warn({ err: error }, 'dispatch sweep failed');
    }
  }

  /** How many phones this process holds. */
  get size(): number {
    return this.phones.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    await Promise.all(this.queues.values());
    await this.leases.close();
  }
}

/** The v1 shape: the work told in words, for agents of protocol 1. */
export function dispatchV1(task: TaskRow): TaskDispatchV1 {
  const work = task.work as TaskWork;
  const described = work && typeof work === 'object' && 'kind' in work ? describeWork(work) : null;
  return {
    taskId: task.id,
    attempt: task.attempt,
    type: task.type,
    title: task.title,
    description: work?.kind === 'manual' ? task.description : (described ?? task.description),
    deadline: task.deadline?.toISOString() ?? null,
  };
}

/** The v2 shape: the work typed, as the phone runs it. */
export function dispatchV2(task: TaskRow, work: TaskWork): TaskDispatchV2 {
  return {
    protocol: 2,
    taskId: task.id,
    attempt: task.attempt,
    type: task.type,
    title: task.title,
    deadline: task.deadline?.toISOString() ?? null,
    ackWithinMs: automation().ackTimeoutMs,
    work,
  };
}
