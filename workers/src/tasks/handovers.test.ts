/**
 * A comment a phone handed to a VA (tasks.hand_over): while the VA has yet to write it, it takes from the account's
 * comment allowance for the day (so a phone does not hand over more than the cap); once marked done it counts one
 * comment toward the day's cap, and a failed or cancelled one counts none.
 */
import { describe, expect, it } from 'vitest';
import type { Db } from '../db.ts';
import { Outboxes } from '../outbox.ts';
import { account, device, useTestDatabase, workspace } from '../../test/farm.ts';
import { createTasks, moveTaskByPerson } from './lifecycle.ts';
import { allowanceOf } from './work.ts';

let db: Db;
useTestDatabase((opened) => (db = opened), { quick: true });

const caps = { likes: 10, follows: 10, comments: 3, posts: 1 };

async function handOver(ws: string, deviceId: string, accountId: string, index: number) {
  const [row] = await db.transaction().execute((tx) =>
    createTasks(
      tx,
      [
        {
          workspaceId: ws,
          title: `Comment on @sunny.trails's post from @acme`,
          type: 'engage',
          priority: 'medium',
          deviceId,
          work: { kind: 'manual', description: null },
          sourceKey: `handover:t1:1:${index}`,
          accountId,
          handOver: { kind: 'comment', author: 'sunny.trails', account: 'acme', platform: 'instagram', link: null, profileUrl: null, frame: null },
        },
      ],
      new Outboxes(),
    ),
  );
  return row!;
}

const commentsToday = async (accountId: string) =>
  (await db.selectFrom('accountDailyActions').select('comments').where('accountId', '=', accountId).execute()).reduce((sum, row) => sum + row.comments, 0);

describe('comments handed to a VA', () => {
  it('take from the allowance while waiting, count one each when done, none when failed', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const acct = await account(db, ws, phone.id);
    const first = await handOver(ws, phone.id, acct.id, 0);
    const second = await handOver(ws, phone.id, acct.id, 1);
    expect((await allowanceOf(db, ws, acct.id, caps)).comments).toBe(1);

    await db.transaction().execute((tx) => moveTaskByPerson(tx, first, 'completed', new Outboxes().for(ws)));
    expect(await commentsToday(acct.id)).toBe(1);
    // Done: counted in the day's actions, no longer as waiting.
    expect((await allowanceOf(db, ws, acct.id, caps)).comments).toBe(1);

    await db.transaction().execute((tx) => moveTaskByPerson(tx, second, 'failed', new Outboxes().for(ws)));
    expect(await commentsToday(acct.id)).toBe(1);
    expect((await allowanceOf(db, ws, acct.id, caps)).comments).toBe(2);
  });
});
