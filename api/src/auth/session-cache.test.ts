import { describe, expect, it } from 'vitest';
import { SessionCache } from './auth.plugin.ts';
import type { SessionUser } from './auth.queries.ts';

const person = (sessionId: string): SessionUser => ({
  sessionId,
  lastSeenAt: new Date(),
  id: 'u1',
  email: 'ana@farm.test',
  name: 'Ana',
  role: 'operator',
  createdAt: new Date(),
  workspaceId: 'w1',
  workspaceName: 'Farm',
  deactivatedAt: null,
});

function deferred() {
  let resolve!: (value: SessionUser | undefined) => void;
  const promise = new Promise<SessionUser | undefined>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('session cache', () => {
  it('lets reads arriving during a lookup share it, and remembers the answer', async () => {
    const cache = new SessionCache(1000);
    const lookup = deferred();
    let lookups = 0;
    const find = () => {
      lookups += 1;
      return lookup.promise;
    };
    const answers = Promise.all(Array.from({ length: 64 }, () => cache.load('token', find)));
    lookup.resolve(person('s1'));
    expect((await answers).every((session) => session?.sessionId === 's1')).toBe(true);
    expect(lookups).toBe(1);
    expect(cache.get('token')?.sessionId).toBe('s1');
  });

  it('does not remember a lookup that was under way when the session was revoked', async () => {
    const cache = new SessionCache(1000);
    const lookup = deferred();
    const before = cache.load('token', () => lookup.promise);
    cache.forget(['s1']);
    let lookups = 0;
    const after = cache.load('token', async () => {
      lookups += 1;
      return undefined;
    });
    lookup.resolve(person('s1'));
    await before;
    expect(await after).toBeNull();
    expect(lookups).toBe(1);
    expect(cache.get('token')).toBeNull();
  });

  it('shares nothing when caching is off: each read looks up', async () => {
    const cache = new SessionCache(0);
    let lookups = 0;
    const find = async () => {
      lookups += 1;
      return person('s1');
    };
    await Promise.all([cache.load('token', find), cache.load('token', find)]);
    expect(lookups).toBe(2);
    expect(cache.get('token')).toBeUndefined();
  });
});
