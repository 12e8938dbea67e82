import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../shared/types.ts';
import { createChangeFeed } from './changes.ts';
import { Dispatcher } from './dispatcher.ts';

/** Each lease the dispatcher asks for, held open until the test lets it finish. */
const leases = vi.hoisted(() => ({ asked: [] as string[], finish: [] as (() => void)[] }));

vi.mock('@farm/workers', async (original) => ({
  ...(await original<typeof import('@farm/workers')>()),
  dispatchNext: (_db: unknown, deviceId: string) => {
    leases.asked.push(deviceId);
    return new Promise<undefined>((resolve) => leases.finish.push(() => resolve(undefined)));
  },
}));

const log = { warn: () => undefined } as unknown as FastifyBaseLogger;

function phone(deviceId: string) {
  return {
    socketId: `socket-${deviceId}`,
    deviceId,
    workspaceId: 'ws-1',
    deviceName: deviceId,
    protocol: 2 as const,
    heardAt: Date.now(),
    send: () => undefined,
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
    // Another phone's wake is its own.
    void dispatcher.wake('phone-2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(leases.asked).toEqual(['phone-1', 'phone-2']);
    await finishLeases();
    await Promise.all(woken);
    expect(leases.asked).toEqual(['phone-1', 'phone-2', 'phone-1']);

    // Once all is done, the next wake leases again.
    void dispatcher.wake('phone-1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(leases.asked).toEqual(['phone-1', 'phone-2', 'phone-1', 'phone-1']);
  });
});
