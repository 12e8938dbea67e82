import { sql, type SelectQueryBuilder } from 'kysely';
import type { DB, TaskPriority, TaskStatus, TaskType } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';
import { jsonObject, jsonPage, type JsonPage } from '../../shared/json-rows.ts';
import type { Task } from '@farm/contracts';
import { escapeLike } from '../devices/devices.queries.ts';

export interface TaskFilter {
  status?: TaskStatus | undefined;
  type?: TaskType | undefined;
  priority?: TaskPriority | undefined;
  search?: string | undefined;
  deviceId?: string | undefined;
  assignedToId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** The list's filters (status included when given), on any query over `tasks`. */
export function filteredTasks<O>(query: SelectQueryBuilder<DB, 'tasks', O>, workspaceId: string, filter: TaskFilter) {
  const q = filtered(query, workspaceId, filter);
  return filter.status ? q.where('status', '=', filter.status) : q;
}

/** The query of the ids a bulk action's filter names (see `selectIds`). */
export function taskIdsMatching(tx: Tx, workspaceId: string, filter: TaskFilter) {
  return filteredTasks(tx.selectFrom('tasks').select('id'), workspaceId, filter);
}

function filtered<O>(query: SelectQueryBuilder<DB, 'tasks', O>, workspaceId: string, filter: TaskFilter) {
  let q = query.where('workspaceId', '=', workspaceId);
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.priority) q = q.where('priority', '=', filter.priority);
  if (filter.search) q = q.where('title', 'ilike', `%${escapeLike(filter.search)}%`);
  if (filter.deviceId) q = q.where('deviceId', '=', filter.deviceId);
  if (filter.assignedToId) q = q.where('assignedToId', '=', filter.assignedToId);
  if (filter.from) q = q.where('createdAt', '>=', new Date(filter.from));
  if (filter.to) q = q.where('createdAt', '<', new Date(filter.to));
  return q;
}

/** Newest first: a page of the list as its response's JSON text (see json-rows.ts). */
export function listTasksJson(db: Db, workspaceId: string, filter: TaskFilter & { cursor?: string | undefined; limit: number }): Promise<JsonPage> {
  const cursor = decodeCursor(filter.cursor);
  const rows = filteredTasks(db.selectFrom('tasks'), workspaceId, filter);
  return jsonPage(db, cursor ? rows.where(pastCursor(cursor, 'newest')) : rows, { json: taskJson, order: 'newest', limit: filter.limit });
}

/** A task as its response shape, written by the database. */
const taskJson = jsonObject<Task>('tasks', {
  id: 'value',
  title: 'value',
  description: 'value',
  type: 'value',
  priority: 'value',
  status: 'value',
  deviceId: 'value',
  assignedToId: 'value',
  deadline: 'time',
  startedAt: 'time',
  completedAt: 'time',
  attempt: 'value',
  maxAttempts: 'value',
  dispatchedAt: 'time',
  leaseExpiresAt: 'time',
  nextAttemptAt: 'time',
  progress: 'value',
  progressNote: 'value',
  failureCode: 'value',
  failureMessage: 'value',
  postId: 'value',
  campaignSessionId: 'value',
  accountId: 'value',
  unconfirmedTaskId: 'value',
  handOver: 'value',
  createdAt: 'time',
  updatedAt: 'time',
});

/** The workspace's tasks in each status, from the tallies its task changes append (migration 0024): exact as of this transaction. */
async function tallyTasks(db: Db, workspaceId: string): Promise<Record<TaskStatus, number>> {
  const rows = await db
    .selectFrom('taskTallies')
    .select(['status', sql<number>`sum(n)::int`.as('n')])
    .where('workspaceId', '=', workspaceId)
    .groupBy('status')
    .execute();
  const counts: Record<TaskStatus, number> = { pending: 0, 'in-progress': 0, completed: 0, failed: 0, cancelled: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

function unfiltered(filter: TaskFilter): boolean {
  return Object.entries(filter).every(([key, value]) => key === 'status' || value === undefined || value === '');
}

/** The counts behind the Tasks tabs, under the same filters (status aside). */
export async function countTasks(db: Db, workspaceId: string, filter: TaskFilter) {
  if (unfiltered(filter)) {
    const tally = await tallyTasks(db, workspaceId);
    return {
      all: Object.values(tally).reduce((sum, n) => sum + n, 0),
      pending: tally.pending,
      inProgress: tally['in-progress'],
      completed: tally.completed,
      failed: tally.failed,
      cancelled: tally.cancelled,
    };
  }
  return filtered(
    db
      .selectFrom('tasks')
      .select([
        sql<number>`count(*)::int`.as('all'),
        sql<number>`(count(*) filter (where status = 'pending'))::int`.as('pending'),
        sql<number>`(count(*) filter (where status = 'in-progress'))::int`.as('inProgress'),
        sql<number>`(count(*) filter (where status = 'completed'))::int`.as('completed'),
        sql<number>`(count(*) filter (where status = 'failed'))::int`.as('failed'),
        sql<number>`(count(*) filter (where status = 'cancelled'))::int`.as('cancelled'),
      ]),
    workspaceId,
    filter,
  ).executeTakeFirstOrThrow();
}

export function findTask(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('tasks').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Deletes the task's row (the service calls off what is out first). */
export function deleteTaskRow(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('tasks').where('id', '=', id).where('workspaceId', '=', workspaceId).returning(['id', 'title', 'deviceId']).executeTakeFirst();
}

/** A member's name as the activity feed writes it. */
export async function memberName(db: Db, userId: string): Promise<string> {
  const row = await db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst();
  return row?.name ?? 'Someone';
}
