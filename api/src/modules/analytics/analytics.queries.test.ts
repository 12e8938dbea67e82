import { openDatabase, type Database } from '@farm/sql';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentOf, tenthsOfHours } from './analytics.queries.ts';

describe('integer arithmetic of the performance tables', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ kind: 'pglite' });
  });
  afterAll(async () => {
    await database.close();
  });

  it('gives the success rate numeric rounding gives, halves up, for every count up to 200', async () => {
    const { rows } = await sql<{ part: number; whole: number; rate: number; numeric: number }>`
      select c.part, w.whole, ${percentOf(sql`c.part`, sql`w.whole`)} as rate,
             case when w.whole = 0 then 0 else round(100.0 * c.part / w.whole)::int end as numeric
      from generate_series(0, 200) w(whole), generate_series(0, 200) c(part)
      where c.part <= w.whole`.execute(database.db);
    expect(rows.length).toBe(20_301);
    expect(rows.filter((row) => row.rate !== row.numeric)).toEqual([]);
    expect(rows.find((row) => row.part === 1 && row.whole === 8)?.rate).toBe(13); // 12.5
  });

  it('gives the hours to one decimal numeric rounding gives, for every second of two days', async () => {
    const { rows } = await sql<{ seconds: number; hours: number; numeric: number }>`
      select s.seconds, ${tenthsOfHours(sql`s.seconds::bigint`)} as hours, round(s.seconds / 3600.0, 1)::float8 as numeric
      from generate_series(0, 172800) s(seconds)`.execute(database.db);
    expect(rows.filter((row) => row.hours !== row.numeric)).toEqual([]);
    expect(rows.find((row) => row.seconds === 180)?.hours).toBe(0.1); // 0.05 h
    expect(rows.find((row) => row.seconds === 179)?.hours).toBe(0);
  });
});
