import { describe, expect, it } from 'vitest';
import { formatSql } from './format-sql.ts';

describe('formatSql', () => {
  it('puts each clause on a line, a list item per line, a condition per line', () => {
    expect(formatSql('select "id", "name" from "tasks" where "status" = $1 and "device_id" = $2 order by "id" limit $3')).toBe(`select
  "id",
  "name"
from "tasks"
where
  "status" = $1
  and "device_id" = $2
order by "id"
limit $3`);
  });

  it('indents a subquery inside its parentheses and keeps other parentheses on the line', () => {
    expect(formatSql('select count(*) from "tasks" where "id" in (select "task_id" from "task_attempts") and ("a" = 1 or "b" = 2)')).toBe(`select count(*)
from "tasks"
where
  "id" in (
    select "task_id"
    from "task_attempts"
  )
  and ("a" = 1 or "b" = 2)`);
  });

  it('lays out a hand-written template as it does a built statement, whatever its indentation', () => {
    const written = `
        select d.id
          from devices d
        left join lateral (select 1 as one) o on true
        where x is distinct from 'manual' and t between 1 and 2`;
    expect(formatSql(written)).toBe(`select d.id
from devices d
  left join lateral (
    select 1 as one
  ) o on true
where
  x is distinct from 'manual'
  and t between 1 and 2`);
  });

  it('keeps words inside strings and quoted names as they are', () => {
    expect(formatSql(`select 'from where' as "select" from t`)).toBe(`select 'from where' as "select"
from t`);
  });

  it('names CTEs a line each and keeps a leading comment on its own line', () => {
    expect(formatSql('/* named */ with a as (select 1), b as (select distinct x from c) select * from a, b')).toBe(`/* named */
with
  a as (
    select 1
  ),
  b as (
    select distinct x
    from c
  )
select *
from
  a,
  b`);
  });
});
