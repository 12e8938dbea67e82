import type { FastifyBaseLogger } from 'fastify';
import type { TaskRow } from '@farm/sql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../shared/types.ts';
import { createChangeFeed } from '../events/changes.ts';
import { Dispatcher, HOLD_MAX_MS, SWEEP_MS } from './dispatcher.ts';

/**
 * Each lease the dispatcher asks for, held open until the test lets it finish; it leases the next of `tasks` if the
 * test gave any, else nothing.
 */
const leases = vi.hoisted(() => ({ asked: [] as string[], batches: [] as string[][], finish: [] as (() => void)[], tasks: [] as TaskRow[] }));
/** Each lookup of the work protocol 2 phones receive: the tasks it was for; the next `failing` lookups fail. */
const works = vi.hoisted(() => ({ lookups: [] as string[][], failing: 0 }));

vi.mock('@farm/workers', async (original) => ({
  ...(await original<typeof import('@farm/workers')>()),
  dispatchMany: (_db: unknown, deviceIds: string[]) => {
    leases.asked.push(...deviceIds);
    leases.batches.push([...deviceIds]);
    return new Promise<Map<string, TaskRow>>((resolve) =>
      leases.finish.push(() => {
        const leased = new Map<string, TaskRow>();
        for (const deviceId of deviceIds) {
          const task = leases.tasks.shift();
          if (task) leased.set(deviceId, task);
        }
        resolve(leased);
      }),
    );
  },
  worksForDispatch: async (_db: unknown, tasks: { id: string }[]) => {
    works.lookups.push(tasks.map((task) => task.id));
    if (works.failing > 0) {
      works.failing -= 1;
      throw new Error('the database is away');
    }
    return tasks.map((task) => ({ kind: 'manual', for: task.id }));
  },
}));

/** The sweep's question: which of these phones are free with work waiting (all of them, here). */
vi.mock('./agents.queries.ts', () => ({ devicesWithReadyWork: async (_db: unknown, deviceIds: string[]) => deviceIds }));

function task(id: string, attempt = 1): TaskRow {
  return { id, attempt, type: 'post', title: `Task ${id}`, description: '', deadline: null, work: null } as unknown as TaskRow;
}

const log = { warn: () => undefined } as unknown as FastifyBaseLogger;

function phone(deviceId: string, sent: string[] = [], protocol: 1 | 2 = 1, messages: unknown[] = []) {
  return {
    socketId: `socket-${deviceId}`,
    deviceId,
    workspaceId: 'ws-1',
    deviceName: deviceId,
    protocol,
    heardAt: Date.now(),
    send: (_event: string, message: { taskId: string }) => {
      sent.push(message.taskId);
      messages.push(message);
    },
  };
}

/** Lets every lease asked for so far finish, and the hand-overs behind them begin. */
async function finishLeases(): Promise<void> {
  for (let round = 0; round < 5; round++) {
    for (const finish of leases.finish.splice(0)) finish();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the dispatcher', () => {
  const changes = createChangeFeed();
  let dispatcher: Dispatcher | undefined;

  afterEach(async () => {
    await finishLeases();
    await dispatcher?.close();
    leases.asked.length = 0;
    leases.batches.length = 0;
    leases.tasks.length = 0;
    works.lookups.length = 0;
    works.failing = 0;
    vi.useRealTimers();
  });

  it('answers wakes that come while a hand-over waits its turn with that one hand-over', async () => {
    dispatcher = new Dispatcher({} as Db, changes, log);
    dispatcher.attach(phone('phone-1'));
    dispatcher.attach(phone('phone-2'));

    // A batch of posts falls due for one phone: five wakes at once are one lease.
    const woken = Array.from({ length: 5 }, () => dispatcher!.wake('phone-1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(leases.asked).toEqual(['phone-1']);

    // Wakes during that lease: one more lease after it (the first may have missed what they announce), not three.
    void dispatcher.wake('phone-1');
    void dispatcher.wake('phone-1');
    void dispatcher.wake('phone-1');
    // Another phone's wake is its own (its lease goes with the next statement).
    void dispatcher.wake('phone-2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(leases.asked).toEqual(['phone-1']);
    await finishLeases();
    await Promise.all(woken);
    expect([...leases.asked].sort()).toEqual(['phone-1', 'phone-1', 'phone-2']);

    // Once all is done, the next wake leases again.
    void dispatcher.wake('phone-1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(leases.asked.filter((deviceId) => deviceId === 'phone-1')).toHaveLength(3);
  });

  it('asks for the leases of phones woken while one is written together, in one statement', async () => {
    dispatcher = new Dispatcher({} as Db, changes, log);
    for (const deviceId of ['phone-1', 'phone-2', 'phone-3', 'phone-4']) dispatcher.attach(phone(deviceId));
    void dispatcher.wake('phone-1');
    await new Promise((resolve) => setImmediate(resolve));
    for (const deviceId of ['phone-2', 'phone-3', 'phone-4']) void dispatcher.wake(deviceId);
    await finishLeases();
    expect(leases.batches).toEqual([['phone-1'], ['phone-2', 'phone-3', 'phone-4']]);
  });

  /** A dispatcher that gave phone-1 the task t1, and what the phone was sent. */
  async function givenT1(): Promise<{ dispatcher: Dispatcher; sent: string[] }> {
    const given = new Dispatcher({} as Db, changes, log);
    dispatcher = given;
    const sent: string[] = [];
    given.attach(phone('phone-1', sent));
    leases.tasks.push(task('t1'));
    void given.wake('phone-1');
    await finishLeases();
    expect(sent).toEqual(['t1']);
    return { dispatcher: given, sent };
  }

  it('asks nothing for a phone while the attempt it gave is out, and leases its next task once that attempt ends', async () => {
    const { dispatcher, sent } = await givenT1();
    expect(leases.asked).toEqual(['phone-1']);

    // More posts fall due while t1 runs: no lease is asked for, since none could be given.
    void dispatcher.wake('phone-1');
    void dispatcher.wake('phone-1');
    await finishLeases();
    expect(leases.asked).toEqual(['phone-1']);

    // The phone's result frees it: its next task at once.
    leases.tasks.push(task('t2'));
    void dispatcher.finished('phone-1');
    await finishLeases();
    expect(sent).toEqual(['t1', 't2']);
    expect(leases.asked).toEqual(['phone-1', 'phone-1']);

    // A withdrawal of another attempt changes nothing; of the one out, frees the phone.
    dispatcher.withdraw({ taskId: 't2', deviceId: 'phone-1', attempt: 2, code: 'cancelled', reason: 'Cancelled' });
    void dispatcher.wake('phone-1');
    await finishLeases();
    expect(leases.asked).toHaveLength(2);
    dispatcher.withdraw({ taskId: 't2', deviceId: 'phone-1', attempt: 1, code: 'cancelled', reason: 'Cancelled' });
    void dispatcher.wake('phone-1');
    await finishLeases();
    expect(leases.asked).toHaveLength(3);
  });

  it('leases again for a phone the database finds free, whatever this process last heard of it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval'] });
    const { dispatcher, sent } = await givenT1();

    // The attempt ended somewhere this process did not hear of (say, its announcement was lost): the sweep's look at
    // the database frees the phone.
    leases.tasks.push(task('t2'));
    vi.advanceTimersByTime(SWEEP_MS);
    await finishLeases();
    expect(sent).toEqual(['t1', 't2']);

    // A new socket of the phone starts afresh too.
    dispatcher.attach(phone('phone-1', sent));
    leases.tasks.push(task('t3'));
    void dispatcher.wake('phone-1');
    await finishLeases();
    expect(sent).toEqual(['t1', 't2', 't3']);
  });

  it('looks up the work of a batch’s protocol 2 phones once, and each phone’s alone should that fail', async () => {
    dispatcher = new Dispatcher({} as Db, changes, log);
    const messages: { taskId: string; work: unknown }[] = [];
    dispatcher.attach(phone('phone-1', [], 1, messages));
    dispatcher.attach(phone('phone-2', [], 2, messages));
    dispatcher.attach(phone('phone-3', [], 2, messages));
    void dispatcher.wake('phone-1');
    await new Promise((resolve) => setImmediate(resolve));
    leases.tasks.push(task('t1'), task('t2'), task('t3'));
    for (const deviceId of ['phone-2', 'phone-3']) void dispatcher.wake(deviceId);
    await finishLeases();
    expect(leases.batches).toEqual([['phone-1'], ['phone-2', 'phone-3']]);
    // phone-1 speaks protocol 1 (its work in words, nothing looked up); the other two share one lookup.
    expect(works.lookups).toEqual([['t2', 't3']]);
    expect(messages.map((message) => [message.taskId, message.work])).toEqual([
      ['t1', undefined],
      ['t2', { kind: 'manual', for: 't2' }],
      ['t3', { kind: 'manual', for: 't3' }],
    ]);

    works.failing = 1;
    leases.tasks.push(task('t4'), task('t5'));
    void dispatcher.finished('phone-2');
    await new Promise((resolve) => setImmediate(resolve));
    void dispatcher.finished('phone-3');
    await finishLeases();
    // The first batch's lookup failed: its lease stood and the phone's work was looked up on its own.
    expect(works.lookups.slice(1)).toEqual([['t4'], ['t4'], ['t5']]);
    expect(messages.slice(3).map((message) => message.taskId)).toEqual(['t4', 't5']);
  });

  it('gives a phone its host holds no new work, on a wake, a result or the sweep, until the host lets go', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'Date'] });
    const { dispatcher, sent } = await givenT1();
    // The host restarts its adb server: it holds the phone, whose result for t1 then comes in.
    dispatcher.hold('phone-1', true);
    leases.tasks.push(task('t2'));
    void dispatcher.finished('phone-1');
    void dispatcher.wake('phone-1');
    vi.advanceTimersByTime(SWEEP_MS * 3);
    await finishLeases();
    expect(sent).toEqual(['t1']);
    expect(leases.asked).toEqual(['phone-1']);

    // A new socket of the phone while still held (the phone came back before the host let go) stays held.
    dispatcher.attach({ ...phone('phone-1', sent), holding: true });
    void dispatcher.wake('phone-1');
    vi.advanceTimersByTime(SWEEP_MS);
    await finishLeases();
    expect(sent).toEqual(['t1']);

    // Letting go wakes it: its next task at once.
    dispatcher.hold('phone-1', false);
    await finishLeases();
    expect(sent).toEqual(['t1', 't2']);
  });

  it('lets a hold run out after HOLD_MAX_MS, so a host that never lets go does not keep its phone idle', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'Date'] });
    dispatcher = new Dispatcher({} as Db, changes, log);
    const sent: string[] = [];
    dispatcher.attach({ ...phone('phone-1', sent), holding: true });
    leases.tasks.push(task('t1'));
    void dispatcher.wake('phone-1');
    await finishLeases();
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(HOLD_MAX_MS);
    // Heard since (its heartbeats went on through the hold).
    dispatcher.heard('phone-1');
    vi.advanceTimersByTime(SWEEP_MS);
    await finishLeases();
    expect(sent).toEqual(['t1']);
  });
});
