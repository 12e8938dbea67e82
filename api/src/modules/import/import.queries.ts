import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { AccountsTable, PostsTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';

/** The workspace's accounts with these usernames (any case), for matching the Account column. */
export function accountsNamed(db: Db, workspaceId: string, usernames: string[]) {
  if (usernames.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('accounts')
    .select(['id', 'username', 'platform', 'status'])
    .where('workspaceId', '=', workspaceId)
    .where(
      sql<string>`lower(username)`,
      'in',
      usernames.map((name) => name.toLowerCase()),
    )
    .execute();
}

export function campaignsNamed(db: Db, workspaceId: string, names: string[]) {
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('campaigns')
    .select(['id', 'name'])
    .where('workspaceId', '=', workspaceId)
    .where(
      sql<string>`lower(name)`,
      'in',
      names.map((name) => name.toLowerCase()),
    )
    .execute();
}

export function devicesNamed(db: Db, workspaceId: string, names: string[]) {
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('devices')
    .select(['id', 'name'])
    .where('workspaceId', '=', workspaceId)
    .where(
      sql<string>`lower(name)`,
      'in',
      names.map((name) => name.toLowerCase()),
    )
    .execute();
}

/** How many accounts of each limited platform each phone already holds. */
export function accountsPerDevice(db: Db, workspaceId: string, deviceIds: string[]) {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('accounts')
    .select(['deviceId', 'platform', sql<number>`count(*)::int`.as('count')])
    .where('workspaceId', '=', workspaceId)
    .where('deviceId', 'in', deviceIds)
    .groupBy(['deviceId', 'platform'])
    .execute();
}

const CHUNK = 500;

export async function insertPosts(tx: Tx, rows: Insertable<PostsTable>[]): Promise<number> {
  for (let index = 0; index < rows.length; index += CHUNK)
    await tx
      .insertInto('posts')
      .values(rows.slice(index, index + CHUNK))
      .execute();
  return rows.length;
}

export async function insertAccounts(tx: Tx, rows: Insertable<AccountsTable>[]): Promise<number> {
  for (let index = 0; index < rows.length; index += CHUNK)
    await tx
      .insertInto('accounts')
      .values(rows.slice(index, index + CHUNK))
      .execute();
  return rows.length;
}
