/**
 * The rows of each CSV export, read a batch at a time along the list's own keyset order, so an export of
 * 100,000 rows holds one batch in memory, never the whole list. Names (device, VA, account) are joined in SQL.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { csvColumns, type ExportEntity } from '@farm/contracts';
import type { Db } from '../../shared/types.ts';
import { filteredDevices } from '../devices/devices.queries.ts';
import { filteredPosts, type PostFilter } from '../posts/posts.queries.ts';
import { filteredTasks, type TaskFilter } from '../tasks/tasks.queries.ts';
import { escapeLike } from '../devices/devices.queries.ts';

export const EXPORT_BATCH = 1000;

type Cell = string | number | boolean | Date | null | readonly string[];
export type ExportRow = { id: string; createdAt: Date } & Record<string, Cell>;
type Page = { at: Date; id: string } | undefined;

/** Rows after `page` in the list's order (newest first; phones oldest first, as their grid). */
function after(page: Page, order: 'newest' | 'oldest', column = 'created_at'): Expression<SqlBool> {
  if (!page) return sql<SqlBool>`true`;
  return order === 'newest'
    ? sql<SqlBool>`(${sql.ref(column)}, id) < (${page.at}, ${page.id}::uuid)`
    : sql<SqlBool>`(${sql.ref(column)}, id) > (${page.at}, ${page.id}::uuid)`;
}

const fetchers = {
  tasks: (db: Db, workspaceId: string, filter: TaskFilter, page: Page) =>
    filteredTasks(
      db
        .selectFrom('tasks')
        .select((eb) => [
          'id',
          'title',
          'description',
          'type',
          'priority',
          'status',
          eb.selectFrom('devices').select('devices.name').whereRef('devices.id', '=', 'tasks.deviceId').as('device'),
          eb.selectFrom('users').select('users.name').whereRef('users.id', '=', 'tasks.assignedToId').as('assignee'),
          'deadline',
          'startedAt',
          'completedAt',
          'createdAt',
        ]),
      workspaceId,
      filter,
    )
      .where(after(page, 'newest'))
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(EXPORT_BATCH)
      .execute(),
  posts: (db: Db, workspaceId: string, filter: PostFilter, page: Page) =>
    filteredPosts(
      db
        .selectFrom('posts')
        .select((eb) => [
          'id',
          eb.selectFrom('accounts').select('accounts.username').whereRef('accounts.id', '=', 'posts.accountId').as('account'),
          eb.selectFrom('accounts').select('accounts.platform').whereRef('accounts.id', '=', 'posts.accountId').as('platform'),
          eb.selectFrom('campaigns').select('campaigns.name').whereRef('campaigns.id', '=', 'posts.campaignId').as('campaign'),
          'caption',
          'hashtags',
          'mediaUrls',
          'status',
          'scheduledAt',
          'publishedAt',
          'createdAt',
        ]),
      workspaceId,
      filter,
    )
      .where(after(page, 'newest'))
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(EXPORT_BATCH)
      .execute(),
  accounts: (
    db: Db,
    workspaceId: string,
    filter: { platform?: string | undefined; status?: string | undefined; deviceId?: string | undefined; search?: string | undefined },
    page: Page,
  ) => {
    let query = db
      .selectFrom('accounts')
      .select((eb) => [
        'id',
        'username',
        'platform',
        'status',
        eb.selectFrom('devices').select('devices.name').whereRef('devices.id', '=', 'accounts.deviceId').as('device'),
        'bio',
        'followers',
        'following',
        'createdAt',
      ])
      .where('workspaceId', '=', workspaceId);
    if (filter.platform) query = query.where('platform', '=', filter.platform as never);
    if (filter.status) query = query.where('status', '=', filter.status as never);
    if (filter.deviceId) query = query.where('deviceId', '=', filter.deviceId);
    if (filter.search) query = query.where('username', 'ilike', `%${escapeLike(filter.search)}%`);
    return query.where(after(page, 'newest')).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(EXPORT_BATCH).execute();
  },
  devices: (db: Db, workspaceId: string, filter: Parameters<typeof filteredDevices>[2], page: Page) =>
    filteredDevices(
      db
        .selectFrom('devices')
        .select((eb) => [
          'id',
          'name',
          'status',
          'battery',
          'lastActive',
          eb.selectFrom('users').select('users.name').whereRef('users.id', '=', 'devices.assignedToId').as('assignee'),
          'sessionTime',
          'createdAt',
        ]),
      workspaceId,
      filter,
    )
      .where(after(page, 'oldest'))
      .orderBy('createdAt')
      .orderBy('id')
      .limit(EXPORT_BATCH)
      .execute(),
  sessions: (
    db: Db,
    workspaceId: string,
    filter: {
      active?: 'true' | 'false' | undefined;
      deviceId?: string | undefined;
      vaId?: string | undefined;
      from?: string | undefined;
      to?: string | undefined;
    },
    page: Page,
  ) => {
    let query = db
      .selectFrom('sessions')
      .select((eb) => [
        'id',
        eb.selectFrom('devices').select('devices.name').whereRef('devices.id', '=', 'sessions.deviceId').as('device'),
        eb.selectFrom('users').select('users.name').whereRef('users.id', '=', 'sessions.vaId').as('va'),
        'currentTask',
        sql<number>`(duration + case when is_active and active_since is not null then floor(extract(epoch from (now() - active_since)))::int else 0 end)`.as(
          'duration',
        ),
        'screenshots',
        sql<boolean>`(ended_at is null and is_active)`.as('active'),
        'startedAt',
        'endedAt',
        sql<Date>`started_at`.as('createdAt'),
      ])
      .where('workspaceId', '=', workspaceId);
    if (filter.active) query = query.where('isActive', '=', filter.active === 'true');
    if (filter.deviceId) query = query.where('deviceId', '=', filter.deviceId);
    if (filter.vaId) query = query.where('vaId', '=', filter.vaId);
    if (filter.from) query = query.where('startedAt', '>=', new Date(filter.from));
    if (filter.to) query = query.where('startedAt', '<', new Date(filter.to));
    return query
      .where(after(page, 'newest', 'started_at'))
      .orderBy('startedAt', 'desc')
      .orderBy('id', 'desc')
      .limit(EXPORT_BATCH)
      .execute();
  },
  activities: (
    db: Db,
    workspaceId: string,
    filter: { type?: string | undefined; deviceId?: string | undefined; from?: string | undefined; to?: string | undefined },
    page: Page,
  ) => {
    let query = db
      .selectFrom('activities')
      .select((eb) => [
        'id',
        'createdAt',
        eb.selectFrom('users').select('users.name').whereRef('users.id', '=', 'activities.userId').as('person'),
        'action',
        eb.selectFrom('devices').select('devices.name').whereRef('devices.id', '=', 'activities.deviceId').as('device'),
        'type',
      ])
      .where('workspaceId', '=', workspaceId);
    if (filter.type) query = query.where('type', '=', filter.type as never);
    if (filter.deviceId) query = query.where('deviceId', '=', filter.deviceId);
    if (filter.from) query = query.where('createdAt', '>=', new Date(filter.from));
    if (filter.to) query = query.where('createdAt', '<', new Date(filter.to));
    return query.where(after(page, 'newest')).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(EXPORT_BATCH).execute();
  },
} as const;

/** Every row of the export, a batch at a time; each row's values in the CSV's column order. */
export async function* exportRows(db: Db, workspaceId: string, entity: ExportEntity, filter: Record<string, unknown>): AsyncGenerator<Cell[]> {
  let page: Page;
  for (;;) {
    const rows = (await (fetchers[entity] as (db: Db, workspaceId: string, filter: unknown, page: Page) => Promise<ExportRow[]>)(
      db,
      workspaceId,
      filter,
      page,
    )) as ExportRow[];
    const width = csvColumns[entity].length;
    for (const row of rows) yield Object.values(row).slice(0, width);
    const last = rows.at(-1);
    if (!last || rows.length < EXPORT_BATCH) return;
    page = { at: last.createdAt, id: last.id };
  }
}
