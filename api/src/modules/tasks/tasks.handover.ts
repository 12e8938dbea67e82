/**
 * A post a phone's run handed to a VA (`task.handover`): comment text is a person's work, so where a routine reaches a
 * post to comment on, the phone reports the post and a VA gets a task, "Comment on @author's post from @account", with
 * the post's address when the phone knew it, the author's profile and the frame the phone saw. It goes to the phone's
 * VA as every person's task on a phone does (none: unassigned, for the operators to give out), pushed live; marked
 * done, it counts one comment toward the account's daily cap (workers' `dailyActionsOf`). Keyed by the phone's task,
 * attempt and index: a hand-over sent twice makes one task.
 */
import { randomUUID } from 'node:crypto';
import type { Ack, AgentMessage } from '@farm/agent-protocol';
import type { RoutineRunWork } from '@farm/agent-protocol/work';
import type { HandOverRecord } from '@farm/contracts';
import { automation, createTasks, Outboxes } from '@farm/workers';
import type { AgentPeer } from '../../agents/agents.features.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Db } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { attemptOfDevice, insertFrameObject } from '../evidence/evidence.queries.ts';
import { lockQuota } from '../uploads/uploads.queries.ts';

export interface HandOverContext extends WriteContext {
  storage: Storage;
}

/** The VA task's title as the console words it, with the real handles. */
export const handOverTitle = (author: string, account: string): string => `Comment on @${author}'s post from @${account}`;

/** Minutes a VA is expected to take over one comment. */
const COMMENT_SECONDS = 5 * 60;

/**
 * The author's profile, where a VA finds the post when its address is unknown. Instagram's post header names the
 * handle; the name TikTok shows over a video is the profile's own name (geelark's TikTok 43.1.4 page source shows
 * "sleepyshayshay🕷️ ."), which may differ from its @handle, so no TikTok address is built from it: the frame shows the post.
 */
function profileUrl(platform: string, author: string): string | null {
  if (platform === 'instagram') return `https://www.instagram.com/${author}/`;
  return null;
}

/** What the VA reads: where the post is, what to do, and what marking it done counts. */
function describe(record: HandOverRecord, routine: string | null): string {
  return [
    `Write a comment on @${record.author}'s post from @${record.account} (${record.platform}) yourself, on the phone that holds the account.`,
    `${routine ? `The routine "${routine}"` : 'A routine'} reached this post and handed it to you: comments are written by a VA, the phone never types them.`,
    record.link ? `Post: ${record.link}` : "The phone could not read the post's address: find it by the frame.",
    record.profileUrl ? `Profile: ${record.profileUrl}` : '',
    `Mark the task done once your comment is up: it counts as one of @${record.account}'s comments today.`,
  ]
    .filter(Boolean)
    .join('\n');
}

/** The source key of one hand-over: the phone's task, its attempt and the hand-over's place in the run. */
export const handOverKey = (message: Pick<AgentMessage<'task.handover'>, 'taskId' | 'attempt' | 'index'>): string =>
  `handover:${message.taskId}:${message.attempt}:${message.index}`;

/** The account the phone's task works for: its own, else the one its routine names. */
async function accountOf(
  db: Db,
  workspaceId: string,
  taskId: string,
): Promise<{ id: string | null; username: string; platform: string; routine: string | null } | null> {
  const task = await db.selectFrom('tasks').select(['accountId', 'work']).where('workspaceId', '=', workspaceId).where('id', '=', taskId).executeTakeFirst();
  if (!task) return null;
  const work = task.work as Partial<RoutineRunWork>;
  const routine = work.kind === 'routine.run' ? (work.routineName ?? null) : null;
  if (task.accountId) {
    const account = await db.selectFrom('accounts').select(['id', 'username', 'platform']).where('id', '=', task.accountId).executeTakeFirst();
    if (account) return { ...account, routine };
  }
  if (work.kind === 'routine.run' && work.account) return { id: null, username: work.account.username, platform: work.account.platform, routine };
  return null;
}

/** Makes the VA task for one post a phone handed over (once), its frame kept within the workspace's storage quota. */
export async function takeHandOver(ctx: HandOverContext, peer: AgentPeer, message: AgentMessage<'task.handover'>): Promise<Ack> {
  const { device } = peer;
  const workspaceId = device.workspaceId;
  if (!(await attemptOfDevice(ctx.db, workspaceId, message.taskId, message.attempt, device.id)))
    return { ok: false, error: 'This phone was not given that attempt of the task' };
  const sourceKey = handOverKey(message);
  // Sent again (the phone did not hear the answer): the task is there, nothing more to do.
  if (await ctx.db.selectFrom('tasks').select('id').where('sourceKey', '=', sourceKey).executeTakeFirst()) return { ok: true };
  const account = await accountOf(ctx.db, workspaceId, message.taskId);
  if (!account) return { ok: false, error: 'The task names no account to comment from' };
  const frame = message.frame ? Buffer.from(message.frame.data.buffer, message.frame.data.byteOffset, message.frame.data.byteLength) : null;
  const frameKey = frame ? randomUUID() : null;
  if (frameKey && frame) await ctx.storage.write(frameKey, frame);
  let keptFrame = false;
  await write(ctx, workspaceId, async (tx, outbox) => {
    keptFrame = false;
    const phone = await tx.selectFrom('devices').select('assignedToId').where('id', '=', device.id).executeTakeFirst();
    if (frameKey && frame && message.frame && (await lockQuota(tx, workspaceId, frame.length, automation().storageQuotaBytes)).fits) {
      await insertFrameObject(tx, { key: frameKey, workspaceId, contentType: message.frame.mime, size: frame.length });
      keptFrame = true;
    }
    const record: HandOverRecord = {
      kind: message.kind,
      author: message.author,
      account: account.username,
      platform: account.platform,
      link: message.link ?? null,
      profileUrl: profileUrl(account.platform, message.author),
      frame: keptFrame && frameKey && message.frame ? { url: objectPath(frameKey), width: message.frame.width, height: message.frame.height } : null,
    };
    const description = describe(record, account.routine);
    const rows = await createTasks(
      tx,
      [
        {
          workspaceId,
          title: handOverTitle(message.author, account.username),
          description,
          type: 'engage',
          priority: 'medium',
          deviceId: device.id,
          assignedToId: phone?.assignedToId ?? null,
          work: { kind: 'manual', description },
          expectedSeconds: COMMENT_SECONDS,
          sourceKey,
          accountId: account.id,
          handOver: record,
          notifyAssignee: true,
        },
      ],
      Outboxes.of(outbox),
    );
    // Made meanwhile by the same hand-over sent twice at once: this copy's frame goes.
    if (rows.length === 0 && keptFrame && frameKey) {
      await tx.deleteFrom('storedObjects').where('workspaceId', '=', workspaceId).where('key', '=', frameKey).execute();
      keptFrame = false;
    }
  });
  if (frameKey && !keptFrame) await ctx.storage.remove([frameKey]);
  return { ok: true };
}
