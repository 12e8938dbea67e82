import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { logDroppedFailures, logDroppedFailuresOfCopies } from './redis.ts';

describe('commands nobody waits for', () => {
  it('logs a failure nobody handles, and still fails the caller that waits', async () => {
    const closed = () => Promise.reject(new Error('Connection is closed.'));
    const client = { subscribe: closed, set: closed } as unknown as Redis;
    const warned: string[] = [];
    logDroppedFailures(client, ['subscribe', 'set'], (error, command) => warned.push(`${command}: ${(error as Error).message}`));
    // As ioredis resubscribes after a reconnect: sent, never waited for. Unhandled, the test run would report it.
    void client.subscribe('farm:changes');
    await expect(client.set('key', 'value')).rejects.toThrow('Connection is closed.');
    await new Promise((resolve) => setImmediate(resolve));
    expect(warned).toEqual(['subscribe: Connection is closed.', 'set: Connection is closed.']);
  });

  it('does the same for the copies the client makes', async () => {
    const closed = () => Promise.reject(new Error('Connection is closed.'));
    const client = { duplicate: () => ({ subscribe: closed }) } as unknown as Redis;
    const warned: string[] = [];
    logDroppedFailuresOfCopies(client, ['subscribe'], (error, command) => warned.push(`${command}: ${(error as Error).message}`));
    const copy = client.duplicate();
    void copy.subscribe('farm:socket.io#/#');
    await new Promise((resolve) => setImmediate(resolve));
    expect(warned).toEqual(['subscribe: Connection is closed.']);
  });
});
