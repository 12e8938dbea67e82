/**
 * Lists answered as PostgreSQL writes them: each row leaves the database as the JSON text of its response shape, and
 * a page is those texts joined. Nothing is parsed into objects, dated, renamed, checked and encoded again per row,
 * which is where a list read spent its time. The columns are named once per shape, typed against its contract, and a
 * test holds each list's text equal to what the contract's encoding of the same rows gives.
 */
import { sql, type RawBuilder } from 'kysely';
import { encodeCursor } from './paging.ts';

/** How a field is written: as the column's JSON value, or (a timestamp) as `toISOString()` writes it. */
export type JsonKind = 'value' | 'time';

/** The text of a timestamp column as JavaScript's `toISOString()` writes it (UTC, milliseconds), or null. */
export function isoText(column: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** One row as the JSON text of its response: `{"id":…,"lastActive":"2026-…Z",…}`, keys in the contract's order. */
export function jsonObject<T>(table: string, fields: { [K in keyof T & string]: JsonKind }): RawBuilder<string> {
  const columns = Object.entries(fields as Record<string, JsonKind>).map(
    // The keys are this file's callers' constants, quoted as they are so they keep their case.
    ([key, kind]) => sql`${kind === 'time' ? isoText(`${table}.${key}`) : sql.ref(`${table}.${key}`)} as ${sql.raw(`"${key}"`)}`,
  );
  // row_to_json writes compact JSON in the columns' order (json_build_object would add spaces, jsonb reorder keys).
  return sql<string>`(select row_to_json(r)::text from (select ${sql.join(columns)}) r)`;
}

export interface JsonRow {
  json: string;
  /** The row's time in the list's order, as its cursor carries it. */
  at: string;
  id: string;
}

/** A page from one row more than asked: the JSON array of the first `limit`, and the next page's cursor if there is one. */
export function jsonPage(rows: JsonRow[], limit: number): { json: string; next?: string } {
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  const json = `[${shown.map((row) => row.json).join(',')}]`;
  const last = shown[shown.length - 1];
  return rows.length > limit && last ? { json, next: encodeCursor(last.at, last.id) } : { json };
}
