/** The watchdogs and warm-up against a real database. */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../db.ts';
import { account, device, recorder, scheduledPosts, useTestDatabase, workspace } from '../../test/farm.ts';
import { processAccountsWarmup, warmupSlots } from '../accounts/warmup.ts';
import { processPostsDue } from '../posts/posts.due.ts';
import { processDevicesWatchdog } from './devices.ts';
import { processStuckPosts } from './posts.ts';

let db: Db;
useTestDatabase((opened) => (db = opened), { quick: { heartbeatMs: 1000, stuckPostMs: 60_000 } });

describe('watchdogs', () => {
  it('takes a phone offline after three silent heartbeats, socket or not, and says so once', async () => {
    const ws = await workspace(db);
    const quiet = await device(db, ws, { name: 'Pixel quiet' });
    const chatty = await device(db, ws, { name: 'Pixel chatty' });
    const never = await device(db, ws, { name: 'Pixel never', seen: false, status: 'online' });
    await db
      .updateTable('devices')
      .set({ lastSeenAt: new Date(Date.now() - 3500) })
      .where('id', '=', quiet.id)
      .execute();
    const { changes, deps } = recorder(db);
    await processDevicesWatchdog(undefined, deps);
    await processDevicesWatchdog(undefined, deps);
    const status = async (id: string) => (await db.selectFrom('devices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    expect(await status(quiet.id)).toBe('offline');
    expect(await status(chatty.id)).toBe('online');
    // Never heard from: not the silence watchdog's business (it shows "Never connected").
    expect(await status(never.id)).toBe('online');
    const said = changes.filter((c) => c.event === 'activity.created').map((c) => (c.payload as { action: string }).action);
    expect(said.filter((action) => action.startsWith('Pixel quiet went offline: no heartbeat for'))).toHaveLength(1);
  });

  it('says on a due post why it has not reached a phone, and clears it once it has', async () => {
    const ws = await workspace(db);
    const offline = await device(db, ws, { name: 'Pixel 7 #04' });
    await db.updateTable('devices').set({ status: 'offline' }).where('id', '=', offline.id).execute();
    const acct = await account(db, ws, offline.id);
    const [post] = await scheduledPosts(db, ws, acct.id, 1, new Date(Date.now() - 2 * 60_000));
    const pausedAccount = await account(db, ws, offline.id, { status: 'paused' });
    const [held] = await scheduledPosts(db, ws, pausedAccount.id, 1, new Date(Date.now() - 2 * 60_000));
    const channel = await account(db, ws, offline.id, { platform: 'youtube' });
    const [byHand] = await scheduledPosts(db, ws, channel.id, 1, new Date(Date.now() - 2 * 60_000));
    const { deps } = recorder(db);
    await processStuckPosts(undefined, deps);
    const read = (id: string) => db.selectFrom('posts').select(['waitingCode', 'waitingMessage']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await read(post!.id)).toEqual({ waitingCode: null, waitingMessage: 'The scheduler has not picked it up yet: check that the workers are running' });
    await processPostsDue(undefined, deps);
    await processStuckPosts(undefined, deps);
    expect(await read(post!.id)).toEqual({ waitingCode: 'device_offline', waitingMessage: 'Waiting for a person: Pixel 7 #04 is offline' });
    expect(await read(held!.id)).toEqual({ waitingCode: null, waitingMessage: 'The account is paused: resume it to publish' });
    // No recipe publishes on YouTube: a person posts it, whether or not the phone's agent is connected.
    expect(await read(byHand!.id)).toEqual({
      waitingCode: null,
      waitingMessage: 'Waiting for a person: no recipe publishes on this platform, so it is posted by hand',
    });
    await db
      .updateTable('tasks')
      .set({ dispatchedAt: new Date(), leaseExpiresAt: new Date(Date.now() + 60_000) })
      .where('postId', '=', post!.id)
      .execute();
    await processStuckPosts(undefined, deps);
    expect(await read(post!.id)).toEqual({ waitingCode: null, waitingMessage: null });
  });
});

describe('account warm-up', () => {
  it('dates a warm-up, gives the account its warm-up runs, and makes it active at the end', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const acct = await account(db, ws, phone.id, { status: 'warmup' });
    const day = new Date().toISOString().slice(0, 10);
    const [first] = warmupSlots(acct.id, day, 'UTC');
    const { changes, deps } = recorder(db);
    await processAccountsWarmup(undefined, { ...deps, now: () => new Date(first!.getTime() + 1000) });
    const dated = await db.selectFrom('accounts').selectAll().where('id', '=', acct.id).executeTakeFirstOrThrow();
    expect(dated.warmupEndDate!.getTime() - dated.warmupStartDate!.getTime()).toBe(7 * 86_400_000);
    const tasks = await db.selectFrom('tasks').selectAll().where('accountId', '=', acct.id).execute();
    expect(tasks).toEqual([expect.objectContaining({ type: 'warmup', sourceKey: `warmup:${acct.id}:${day}:0`, title: `Warm-up for @${acct.username}` })]);
    // The same slot makes nothing twice.
    await db.updateTable('tasks').set({ status: 'completed' }).where('accountId', '=', acct.id).execute();
    await processAccountsWarmup(undefined, { ...deps, now: () => new Date(first!.getTime() + 2000) });
    expect(await db.selectFrom('tasks').select('id').where('accountId', '=', acct.id).execute()).toHaveLength(1);

    await sql`update accounts set warmup_end_date = now() - interval '1 minute' where id = ${acct.id}`.execute(db);
    await processAccountsWarmup(undefined, deps);
    expect((await db.selectFrom('accounts').select('status').where('id', '=', acct.id).executeTakeFirstOrThrow()).status).toBe('active');
    expect(
      changes.some(
        (c) => c.event === 'activity.created' && (c.payload as { action: string }).action === `@${acct.username} finished warming up and is now active`,
      ),
    ).toBe(true);
  });
});
