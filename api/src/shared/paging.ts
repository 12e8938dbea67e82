/**
 * Keyset paging over (created_at, id): stable under inserts, cheap at any depth.
 * The cursor is opaque to clients: base64url of the last row's time and id.
 */
import type { FastifyReply } from 'fastify';
import { isUuid } from '@farm/sql';
import { sql, type RawBuilder } from 'kysely';
import { NEXT_CURSOR_HEADER } from '@farm/contracts';
import { badRequest } from '../errors.ts';

export interface Cursor {
  at: string;
  id: string;
}

export function encodeCursor(at: Date | string, id: string): string {
  return Buffer.from(JSON.stringify([at instanceof Date ? at.toISOString() : at, id])).toString('base64url');
}

/** The time a cursor carries: exactly what encodeCursor writes, in the years a row can have. */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Reads a cursor this server gave; anything else (wrong shape, wrong types, a time out of range) is refused by name. */
export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  if (!cursor) return undefined;
  const refused = () => badRequest('cursor', 'Cursor is not one this server gave; start again from the first page');
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw refused();
  const [at, id] = parsed as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || !CURSOR_TIME.test(at) || !isUuid(id)) throw refused();
  const time = Date.parse(at);
  if (Number.isNaN(time) || time < 0 || new Date(time).toISOString() !== at) throw refused();
  return { at, id };
}

/** Takes one row more than asked to learn whether there is a next page; sets the header and answers the page. */
export function page<T extends { id: string }>(reply: FastifyReply, rows: T[], limit: number, timeOf: (row: T) => Date | string): T[] {
  if (rows.length <= limit) return rows;
  const pageRows = rows.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  if (last) void reply.header(NEXT_CURSOR_HEADER, encodeCursor(timeOf(last), last.id));
  return pageRows;
}

/** Like page(), for answers built once and reused: answers the rows and the next cursor. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number, timeOf: (row: T) => Date | string): { rows: T[]; next?: string } {
  if (rows.length <= limit) return { rows };
  const pageRows = rows.slice(0, limit);
  const last = pageRows[pageRows.length - 1]!;
  return { rows: pageRows, next: encodeCursor(timeOf(last), last.id) };
}

export const DEFAULT_LIMIT = 200;

/**
 * Whether a page of this size is written into its statement's text (see `pageNumber`): the sizes pages are asked in,
 * which are few (1 to 10, and multiples of 5 up to 200), so the statements they make are few as well.
 */
function writtenSize(limit: number): boolean {
  return Number.isSafeInteger(limit) && limit >= 1 && (limit <= 10 || (limit <= DEFAULT_LIMIT && limit % 5 === 0));
}

/**
 * A number that follows from a page's size (the size, one more to learn whether a next page exists, the first
 * page's offset) as SQL: written into the statement when the page is of a usual size, a parameter otherwise. A named
 * statement with its page size as a parameter was planned anew on every call: PostgreSQL prices a plan for an unknown
 * number of rows above one for the number at hand, and so never kept the one plan it could reuse. Planning was a third
 * of the task list's database time (bench/plans/tasks.txt).
 */
export function pageNumber(value: number, limit: number): RawBuilder<number> {
  return writtenSize(limit) && Number.isSafeInteger(value) && value >= 0 ? sql.lit(value) : sql<number>`${value}`;
}

/**
 * The keyset condition of the page after `cursor`: rows past (time, id) in the list's order, as one row
 * comparison that the (…, time, id) indexes answer directly.
 */
export function pastCursor(cursor: Cursor, order: 'newest' | 'oldest', column: 'created_at' | 'started_at' = 'created_at'): RawBuilder<boolean> {
  const at = new Date(cursor.at);
  return order === 'newest'
    ? sql<boolean>`(${sql.ref(column)}, id) < (${at}, ${cursor.id}::uuid)`
    : sql<boolean>`(${sql.ref(column)}, id) > (${at}, ${cursor.id}::uuid)`;
}
