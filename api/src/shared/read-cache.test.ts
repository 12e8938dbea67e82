import { describe, expect, it, vi } from 'vitest';
import { createChangeFeed } from '../events/changes.ts';
import { ReadCache } from './read-cache.ts';

describe('ReadCache', () => {
  it('shares one computation between concurrent reads of a key', async () => {
    const cache = new ReadCache(1000);
    const compute = vi.fn(async () => 7);
    const answers = await Promise.all([cache.get('w', 'k', compute), cache.get('w', 'k', compute)]);
    expect(answers).toEqual([7, 7]);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('drops a workspace entries when a change of it is announced, and only that workspace', async () => {
    const feed = createChangeFeed();
    const cache = new ReadCache(60_000);
    cache.follow(feed);
    let n = 0;
    const compute = async () => ++n;
    expect(await cache.get('a', 'k', compute)).toBe(1);
    expect(await cache.get('b', 'k', compute)).toBe(2);
    feed.publish({ workspaceId: 'a', event: 'device.deleted', payload: { id: 'd1' } });
    expect(await cache.get('a', 'k', compute)).toBe(3);
    expect(await cache.get('b', 'k', compute)).toBe(2);
  });

  it('expires entries after the TTL and forgets failures', async () => {
    const cache = new ReadCache(100);
    let n = 0;
    expect(await cache.get('w', 'k', async () => ++n, 0)).toBe(1);
    expect(await cache.get('w', 'k', async () => ++n, 50)).toBe(1);
    // Past the TTL the last answer is served while one refresh runs; the refreshed one follows.
    expect(await cache.get('w', 'k', async () => ++n, 150)).toBe(1);
    await Promise.resolve();
    expect(await cache.get('w', 'k', async () => ++n, 160)).toBe(2);
    await expect(cache.get('w', 'x', async () => Promise.reject(new Error('db down')), 0)).rejects.toThrow('db down');
    await Promise.resolve();
    expect(await cache.get('w', 'x', async () => 'ok', 1)).toBe('ok');
  });
});
