/**
 * The typed work a task carries to its phone, and what an account may still do today under its daily caps.
 */
import { sql } from 'kysely';
import type { RoutineType, TaskType } from '@farm/sql';
import { platformDailyCaps, type DailyCaps } from '@farm/contracts';
import type { EngagementCounts, RoutineRunWork, TaskWork } from '@farm/agent-protocol/work';
import type { Db } from '../db.ts';
import { localDaySql } from '../time.ts';
import { withWorkspaceRecipes } from './recipes.ts';

/** What kind of task a routine is. */
export const taskTypeOfRoutine: Record<RoutineType, TaskType> = {
  basic: 'engage',
  warmup: 'warmup',
  doom_scroll: 'warmup',
  basic_scroll: 'warmup',
  branch_from_account: 'engage',
  engage_comments: 'engage',
  create_post: 'post',
};

/** The engagement actions a routine spends; a routine whose every action is used up for the day does not run. */
export const actionsOfRoutine: Record<RoutineType, readonly (keyof EngagementCounts)[]> = {
  basic: ['likes', 'follows', 'comments'],
  warmup: ['likes'],
  doom_scroll: ['likes'],
  basic_scroll: [],
  branch_from_account: ['follows', 'likes'],
  engage_comments: ['comments', 'likes'],
  create_post: ['posts'],
};

/** The caps of an account for a day: its platform's defaults, overridden by its campaign's. */
export function capsFor(platform: string, overrides: DailyCaps | Record<string, unknown> = {}): EngagementCounts {
  const base = platformDailyCaps[platform as keyof typeof platformDailyCaps] ?? platformDailyCaps.default;
  const pick = (key: keyof EngagementCounts) => {
    const value = (overrides as Record<string, unknown>)[key];
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : base[key];
  };
  return { likes: pick('likes'), follows: pick('follows'), comments: pick('comments'), posts: pick('posts') };
}

/** What the account may still do today: its caps less what its phones reported today and the comments VAs have yet to write. */
export async function allowanceOf(db: Db, workspaceId: string, accountId: string, caps: EngagementCounts): Promise<EngagementCounts> {
  const used = await db
    .selectFrom('accountDailyActions')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('day', '=', localDaySql(workspaceId))
    .executeTakeFirst();
  // Comments handed to a VA and not yet done count now: they count toward the day once done, and a phone that
  // handed over the whole allowance should not hand over more meanwhile.
  const handedOver = await db
    .selectFrom('tasks')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('accountId', '=', accountId)
    .where('completedAt', 'is', null)
    .where('workspaceId', '=', workspaceId)
    .where('status', 'in', ['pending', 'in-progress'])
    .where(sql<boolean>`hand_over ->> 'kind' = 'comment'`)
    .executeTakeFirstOrThrow();
  return {
    likes: Math.max(0, caps.likes - (used?.likes ?? 0)),
    follows: Math.max(0, caps.follows - (used?.follows ?? 0)),
    comments: Math.max(0, caps.comments - (used?.comments ?? 0) - handedOver.n),
    posts: Math.max(0, caps.posts - (used?.posts ?? 0)),
  };
}

/** Every action this routine spends is used up for today. */
export function exhausted(type: RoutineType, allowance: EngagementCounts): boolean {
  const needs = actionsOfRoutine[type];
  return needs.length > 0 && needs.every((kind) => allowance[kind] === 0);
}

/** A leased task, as far as its work for the phone goes. */
export interface DispatchedTask {
  workspaceId: string;
  accountId: string | null;
  work: unknown;
  campaignSessionId: string | null;
}

/**
 * The work as each phone should receive it now: with the workspace's recipes for it as they are now (one statement
 * for the whole batch), and a routine's allowance taken afresh, since runs on the same account may have spent some of
 * it since the task was made.
 */
export async function worksForDispatch(db: Db, tasks: readonly DispatchedTask[]): Promise<TaskWork[]> {
  const works = await withWorkspaceRecipes(
    db,
    tasks.map((task) => ({ workspaceId: task.workspaceId, work: task.work as TaskWork })),
  );
  return Promise.all(works.map((work, index) => withAllowance(db, tasks[index]!, work)));
}

async function withAllowance(db: Db, task: DispatchedTask, work: TaskWork): Promise<TaskWork> {
  if (work.kind !== 'routine.run' || !task.accountId) return work;
  const caps = await db
    .selectFrom('accounts as a')
    .leftJoin('campaignSessions as cs', (join) => join.on('cs.id', '=', task.campaignSessionId ?? '00000000-0000-0000-0000-000000000000'))
    .leftJoin('campaigns as c', 'c.id', 'cs.campaignId')
    .select(['a.platform', sql<Record<string, unknown> | null>`c.daily_caps`.as('dailyCaps')])
    .where('a.id', '=', task.accountId)
    .executeTakeFirst();
  if (!caps) return work;
  const allowance = await allowanceOf(db, task.workspaceId, task.accountId, capsFor(caps.platform, caps.dailyCaps ?? {}));
  return { ...work, allowance } satisfies RoutineRunWork;
}
