/** A small farm written straight into a test database: a workspace, phones, accounts, posts, campaigns. */
import { sql } from 'kysely';
import type { Platform } from '@farm/agent-protocol/values';
import type { Db } from '../src/db.ts';
import { Outboxes } from '../src/outbox.ts';
import type { Change } from '../src/changes.ts';
import { configureAutomation, defaultSettings } from '../src/settings.ts';

export async function workspace(db: Db, name = 'Farm') {
  return (await db.insertInto('workspaces').values({ name }).returning('id').executeTakeFirstOrThrow()).id;
}

/** A phone, heard from now (its agent is live) unless `seen` is false. */
export async function device(db: Db, workspaceId: string, overrides: { name?: string; seen?: boolean; status?: 'online' | 'offline' } = {}) {
  return db
    .insertInto('devices')
    .values({
      workspaceId,
      name: overrides.name ?? 'Pixel 7 #01',
      status: overrides.status ?? (overrides.seen === false ? 'offline' : 'online'),
      lastSeenAt: overrides.seen === false ? null : new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function account(
  db: Db,
  workspaceId: string,
  deviceId: string | null,
  overrides: { username?: string; status?: 'active' | 'warmup' | 'paused'; platform?: Platform } = {},
) {
  return db
    .insertInto('accounts')
    .values({
      workspaceId,
      deviceId,
      username: overrides.username ?? `acct_${Math.random().toString(36).slice(2, 8)}`,
      platform: overrides.platform ?? 'instagram',
      status: overrides.status ?? 'active',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function scheduledPosts(db: Db, workspaceId: string, accountId: string, count: number, dueAt = new Date(Date.now() - 1000)) {
  if (count === 0) return [];
  return db
    .insertInto('posts')
    .values(
      Array.from({ length: count }, (_, i) => ({
        workspaceId,
        accountId,
        caption: `Post ${i}`,
        hashtags: ['#farm'],
        status: 'scheduled' as const,
        scheduledAt: dueAt,
      })),
    )
    .returningAll()
    .execute();
}

/** Collects announcements; `deps` for processors. */
export function recorder(db: Db) {
  const changes: Change[] = [];
  return { changes, deps: { db, announce: (change: Change) => changes.push(change) }, outboxes: () => new Outboxes() };
}

/** Quick timings for tests (restored by `restoreSettings`). */
export function quickSettings(overrides: Partial<typeof defaultSettings> = {}) {
  configureAutomation({ ...defaultSettings, ackTimeoutMs: 300, progressWindowMs: 600, backoffBaseMs: 0, ...overrides });
}
export const restoreSettings = () => configureAutomation(defaultSettings);

/** Moves every lease and backoff of the database into the past, as if time had passed. */
export async function age(db: Db, ms: number) {
  await sql`update tasks set lease_expires_at = lease_expires_at - (${ms} * interval '1 millisecond'), next_attempt_at = next_attempt_at - (${ms} * interval '1 millisecond')`.execute(
    db,
  );
}
