/**
 * Lists answered as PostgreSQL writes them: each row becomes the JSON text of its response shape in the database, and
 * the database joins a page of them too. Nothing is parsed into objects, dated, renamed, checked and encoded again per
 * row, which is where a list read spent its time. The columns are named once per shape, typed against its contract,
 * and a test holds each list's text equal to what the contract's encoding of the same rows gives.
 */
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DB } from '@farm/sql';
import { encodeCursor, pageNumber } from './paging.ts';
import type { Db } from './types.ts';

/** How a field is written: as the column's JSON value, or (a timestamp) as `toISOString()` writes it. */
export type JsonKind = 'value' | 'time';

/** A column's name in the database, as the CamelCasePlugin writes it (lastSeenAt → last_seen_at). */
const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** to_char's pattern for a UTC timestamp as JavaScript's `toISOString()` writes it (milliseconds, Z). */
const ISO_PATTERN = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** SQL text of a timestamp column as `toISOString()` writes it, or null. */
const isoOf = (column: string) => `to_char(${column} at time zone 'UTC', ${ISO_PATTERN})`;

/**
 * One row as the JSON text of its response: `{"id":…,"lastActive":"2026-…Z",…}`, keys in the contract's order.
 * Its SQL is written once, here, as text: built from references on every request it cost a list a tenth of its time.
 */
export function jsonObject<T>(table: string, fields: { [K in keyof T & string]: JsonKind }): RawBuilder<string> {
  const columns = Object.entries(fields as Record<string, JsonKind>).map(([key, kind]) => {
    // The keys are this file's callers' constants, quoted as they are so they keep their case.
    const column = `"${table}"."${snakeCase(key)}"`;
    return `${kind === 'time' ? isoOf(column) : column} as "${key}"`;
  });
  // row_to_json writes compact JSON in the columns' order (json_build_object would add spaces, jsonb reorder keys).
  return sql.raw<string>(`(select row_to_json(r)::text from (select ${columns.join(', ')}) r)`);
}

export interface JsonPage {
  /** The page's JSON array, as the response sends it. */
  json: string;
  /** The next page's cursor, when more rows follow. */
  next?: string;
}

/**
 * A page of a list in keyset order (creation time, then id; oldest or newest first), written whole by PostgreSQL:
 * the first `limit` rows' JSON texts joined in order, and the cursor of the last of them when one more row exists.
 * One row crosses the wire instead of a row per item: receiving 201 rows cost the API twice what one row of the same
 * text does.
 */
export async function jsonPage<TB extends keyof DB>(
  db: Db,
  rows: SelectQueryBuilder<DB, TB, object>,
  options: { json: RawBuilder<string>; order: 'oldest' | 'newest'; limit: number },
): Promise<JsonPage> {
  const direction = options.order === 'newest' ? sql`desc` : sql`asc`;
  const { limit } = options;
  // The page's size as the statement's own text where it is a usual one, so PostgreSQL keeps one plan (paging.ts).
  const last = pageNumber(limit, limit);
  const page = rows
    .select([
      options.json.as('json'),
      sql<Date>`created_at`.as('at'),
      sql<string>`id`.as('id'),
      sql<number>`row_number() over (order by created_at ${direction}, id ${direction})`.as('n'),
    ])
    .orderBy(sql`created_at ${direction}, id ${direction}`)
    .limit(pageNumber(limit + 1, limit));
  const answer = await db
    .selectFrom(page.as('page'))
    .select([
      // The whole array, brackets and all: joined in JavaScript, the page's text was copied once more before sending.
      sql<string>`'[' || coalesce(string_agg(page.json, ',' order by page.n) filter (where page.n <= ${last}), '') || ']'`.as('json'),
      // Only the cursor's row is written as text: formatting every row's time cost a 200-row page a quarter of its time.
      sql<string | null>`to_char((max(page.at) filter (where page.n = ${last})) at time zone 'UTC', ${sql.raw(ISO_PATTERN)})`.as('at'),
      sql<string | null>`max(page.id::text) filter (where page.n = ${last})`.as('id'),
      sql<number>`count(*)::int`.as('rows'),
    ])
    .executeTakeFirstOrThrow();
  const { json } = answer;
  return answer.rows > limit && answer.at && answer.id ? { json, next: encodeCursor(answer.at, answer.id) } : { json };
}
