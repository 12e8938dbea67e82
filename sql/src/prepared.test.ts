import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './database.ts';
import { MAX_NAMED, NAMED_STATEMENT, StatementNames } from './prepared.ts';
import { createPostgresDatabase } from './testing.ts';

describe('statement names', () => {
  it('names each parameterized statement text once, and leaves the rest unnamed', () => {
    const names = new StatementNames();
    const text = 'select "id", "name" from "devices" where "workspace_id" = $1';
    const name = names.of(text, true);
    expect(name).toMatch(/^farm_/);
    expect(names.of(text, true)).toBe(name);
    expect(names.of('select "id" from "tasks" where "id" = $1', true)).not.toBe(name);
    expect(names.of('select 1', false)).toBeUndefined();
    expect(names.of('begin', true)).toBeUndefined();
    expect(names.of('select * from "devices" where "id" = $1', true)).toBeUndefined();
    expect(names.of('select "d".* from "devices" as "d" where "id" = $1', true)).toBeUndefined();
    expect(names.of('update "tasks" set "status" = $1 where "id" = $2 returning *', true)).toBeUndefined();
    expect(names.of('select count(*)::int as "n" from "tasks" where "workspace_id" = $1', true)).toMatch(/^farm_/);
  });

  it('names a statement that starts with NAMED_STATEMENT although it has a product, which otherwise reads as a star', () => {
    const names = new StatementNames();
    const product = 'select (200 * "done" + "all") / (2 * "all") as "rate" from "counts" where "id" = $1';
    expect(names.of(product, true)).toBeUndefined();
    expect(names.of(`${NAMED_STATEMENT}${product}`, true)).toMatch(/^farm_/);
    expect(names.of(`${NAMED_STATEMENT}\n  ${product.replace('"id"', '"key"')}`, true)).toMatch(/^farm_/);
    expect(names.of(`${NAMED_STATEMENT} begin`, true)).toBeUndefined();
    expect(names.of(`${NAMED_STATEMENT}${product}`, false)).toBeUndefined();
  });

  it('names at most MAX_NAMED texts, and gives a forgotten text a new name', () => {
    const names = new StatementNames();
    for (let i = 0; names.size < MAX_NAMED; i += 1) names.of(`select "id" from "t${i}" where "id" = $1`, true);
    expect(names.of('select "id" from "one_more" where "id" = $1', true)).toBeUndefined();
    const text = 'select "id" from "t0" where "id" = $1';
    const before = names.of(text, true);
    names.forget(text);
    expect(names.size).toBe(MAX_NAMED - 1);
    const after = names.of(text, true);
    expect(after).toMatch(/^farm_/);
    expect(after).not.toBe(before);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('prepared statements on PostgreSQL', () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let database: Database;
  beforeAll(async () => {
    created = await createPostgresDatabase(process.env.DATABASE_URL!, 1);
    database = created.database;
    await database.exec('CREATE TABLE things (id int PRIMARY KEY, label text NOT NULL, size int NOT NULL)');
  });
  afterAll(async () => {
    await created?.drop();
  });

  const labelOf = (id: number) => sql<{ label: string; size: number }>`select label, size from things where id = ${id}`.execute(database.db);

  it('opens its connections without JIT compilation, before their first query', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    const another = await openDatabase({ kind: 'postgres', url: created.url, poolSize: 2 });
    try {
      const answers = await Promise.all([sql<{ jit: string }>`show jit`.execute(another.db), sql<{ jit: string }>`show jit`.execute(another.db)]);
      expect(answers.map((answer) => answer.rows)).toEqual([[{ jit: 'off' }], [{ jit: 'off' }]]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await another.close();
    }
  });

  it('prepares a query once per connection and answers it with each call’s values', async () => {
    await sql`insert into things (id, label, size) values (${1}, ${'one'}, ${10}), (${2}, ${'two'}, ${20})`.execute(database.db);
    expect((await labelOf(1)).rows).toEqual([{ label: 'one', size: 10 }]);
    expect((await labelOf(2)).rows).toEqual([{ label: 'two', size: 20 }]);
    const statements = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${'%from things where id%'}`.execute(
      database.db,
    );
    expect(statements.rows).toHaveLength(1);
  });

  it('prepares a statement that starts with NAMED_STATEMENT, and PostgreSQL reads the mark as a comment', async () => {
    const rate = (id: number) => sql<{ rate: number }>`${sql.raw(NAMED_STATEMENT)} select (200 * size + 100) / (2 * 100) as rate from things where id = ${id}`;
    expect((await rate(1).execute(database.db)).rows).toEqual([{ rate: 10 }]);
    expect((await rate(2).execute(database.db)).rows).toEqual([{ rate: 20 }]);
    const statements = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${'%as rate from things%'}`.execute(
      database.db,
    );
    expect(statements.rows).toHaveLength(1);
  });

  it('a migration changing a prepared query’s result fails it once, then it is prepared afresh', async () => {
    await labelOf(1);
    await database.exec('ALTER TABLE things ALTER COLUMN size TYPE bigint');
    await expect(labelOf(1)).rejects.toThrow('cached plan must not change result type');
    expect((await labelOf(1)).rows).toEqual([{ label: 'one', size: '10' }]);
  });

  it('a failed statement does not spoil its name', async () => {
    const bad = (id: number) => sql`select label from things where id = ${id} and size / ${0} = 1`.execute(database.db);
    await expect(bad(1)).rejects.toThrow('division by zero');
    await expect(bad(2)).rejects.toThrow('division by zero');
    expect((await labelOf(2)).rows).toEqual([{ label: 'two', size: '20' }]);
  });
});
