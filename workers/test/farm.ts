/** A small farm written straight into a test database: a workspace, phones, accounts, posts, campaigns. */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Platform } from '@farm/agent-protocol/values';
import { createTestDatabase, type TestDatabase } from '@farm/sql/testing';
import type { Db } from '../src/db.ts';
import { Outboxes } from '../src/outbox.ts';
import type { Change } from '../src/changes.ts';
import { configureAutomation, defaultSettings } from '../src/settings.ts';
import { acceptResult, createTasks, type NewTask, type PhoneResult } from '../src/tasks/lifecycle.ts';

/**
 * One database for the test file, opened before its first test and dropped after its last; `opened` hands it to the
 * file. With `quick`, each test starts on quick timings (`quickSettings`, with the overrides given), restored when the
 * file ends.
 */
export function useTestDatabase(opened: (db: Db, database: TestDatabase) => void, options: { quick?: true | Partial<typeof defaultSettings> } = {}) {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    opened(database.database.db, database);
  });
  const { quick } = options;
  if (quick) beforeEach(() => quickSettings(quick === true ? {} : quick));
  afterAll(async () => {
    if (quick) restoreSettings();
    await database?.drop();
  });
}

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

/** A VA of the workspace (a user and their membership). */
export async function va(db: Db, workspaceId: string, name = 'Vera') {
  const user = await db
    .insertInto('users')
    .values({ email: `${crypto.randomUUID()}@farm.test`, passwordHash: 'x', name, role: 'va' })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
  await db.insertInto('workspaceMembers').values({ workspaceId, userId: user.id, role: 'va' }).execute();
  return user;
}

/** Automation's publishing task for the phone, of a post that is not in the database (it has a source, so it goes to phones). */
export async function publishTask(db: Db, workspaceId: string, deviceId: string | null, overrides: Partial<NewTask> = {}) {
  const [task] = await db.transaction().execute((tx) =>
    createTasks(
      tx,
      [
        {
          workspaceId,
          title: 'Publish a reel',
          type: 'post',
          priority: 'medium',
          deviceId,
          work: {
            kind: 'post.publish',
            postId: crypto.randomUUID(),
            account: { id: crypto.randomUUID(), username: 'reels', platform: 'instagram' },
            caption: 'A reel',
            hashtags: [],
            mediaUrls: [],
          },
          sourceKey: `test:${crypto.randomUUID()}`,
          ...overrides,
        },
      ],
      new Outboxes(),
    ),
  );
  return task!;
}

/** A scheduled post of the account and its publishing task on the phone, as posts.due makes it. */
export async function scheduledPostTask(db: Db, workspaceId: string, deviceId: string, acct: { id: string; username: string }) {
  const [post] = await scheduledPosts(db, workspaceId, acct.id, 1);
  const [task] = await db.transaction().execute((tx) =>
    createTasks(
      tx,
      [
        {
          workspaceId,
          title: `Publish for @${acct.username}`,
          type: 'post',
          priority: 'medium',
          deviceId,
          postId: post!.id,
          accountId: acct.id,
          sourceKey: `post:${post!.id}:${post!.scheduleVersion}`,
          work: {
            kind: 'post.publish',
            postId: post!.id,
            account: { id: acct.id, username: acct.username, platform: 'instagram' },
            caption: post!.caption,
            hashtags: [],
            mediaUrls: [],
          },
        },
      ],
      new Outboxes(),
    ),
  );
  return { post: post!, task: task! };
}

/** A phone's result, written as the agent's handler writes it; the changes it announced collected. */
export async function reportResult(db: Db, deviceId: string, result: PhoneResult) {
  const changes: Change[] = [];
  const outboxes = new Outboxes();
  const verdict = await db.transaction().execute(async (tx) => {
    const task = await tx.selectFrom('tasks').select('workspaceId').where('id', '=', result.taskId).executeTakeFirstOrThrow();
    return acceptResult(tx, deviceId, result, outboxes.for(task.workspaceId), outboxes);
  });
  outboxes.flush((change) => changes.push(change));
  return { verdict, changes };
}
