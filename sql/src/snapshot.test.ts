import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { call, callInTransaction, defineSnapshot, gaps, renderSnapshot, shownAs } from './snapshot.ts';

/** A module of query functions, as a `*.queries.ts` file exports them. */
const queries = {
  async taskTitle(db: Kysely<DB>, id: string) {
    const row = await db.selectFrom('tasks').select('title').where('id', '=', id).executeTakeFirstOrThrow();
    return row.title;
  },
  async renameTask(tx: Transaction<DB>, task: { id: string }, title: string) {
    const row = await tx.updateTable('tasks').set({ title }).where('id', '=', task.id).returning('workspaceId').executeTakeFirst();
    if (row) await sql`select pg_notify('tasks', ${row.workspaceId})`.execute(tx);
  },
  pending: (db: Kysely<DB>) => db.selectFrom('tasks').select('id').where('status', '=', 'pending'),
  label: (title: string) => title.trim(),
};

describe('SQL snapshots', () => {
  it('names each exported function with no case and not said to run no SQL, and exemptions of nothing', () => {
    const snapshot = defineSnapshot({ source: 'x.queries.ts', module: queries, notQueries: {}, cases: [call(queries.taskTitle, 'a')] });
    expect(gaps(snapshot)).toEqual([
      'x.queries.ts: renameTask has no case (add one, or name it among notQueries with why)',
      'x.queries.ts: pending has no case (add one, or name it among notQueries with why)',
      'x.queries.ts: label has no case (add one, or name it among notQueries with why)',
    ]);
    const stale = defineSnapshot({
      source: 'x.queries.ts',
      module: { label: queries.label },
      notQueries: { label: 'words', gone: 'x' } as { label: string },
      cases: [],
    });
    expect(gaps(stale)).toEqual(['x.queries.ts: notQueries names gone, which it does not export']);
  });

  it('shows each statement with the call, its parameters, its answers and what the function threw', async () => {
    const snapshot = defineSnapshot({
      source: 'x.queries.ts',
      module: queries,
      notQueries: { label: 'words' },
      cases: [
        call(queries.taskTitle, 'task-1'),
        callInTransaction(queries.renameTask, shownAs({ id: 'task-1' }, 'task'), 'New title').answering([{ workspaceId: 'w-1' }]),
        call(queries.pending).because('the builder, compiled'),
      ],
    });
    expect(gaps(snapshot)).toEqual([]);
    const { text, functions, statements } = await renderSnapshot(snapshot, 'x.cases.ts');
    expect({ functions, statements }).toEqual({ functions: 3, statements: 4 });
    expect(text.split('\n').slice(5).join('\n')).toBe(
      [
        "-- taskTitle(db, 'task-1')",
        "--   $1 = 'task-1'",
        'select "title"',
        'from "tasks"',
        'where "id" = $1;',
        '-- then throws NoResultError: no result',
        '',
        "-- renameTask(tx, task, 'New title')",
        '-- 1 of 2, answered with 1 row',
        "--   $1 = 'New title'",
        "--   $2 = 'task-1'",
        'update "tasks"',
        'set "title" = $1',
        'where "id" = $2',
        'returning "workspace_id";',
        '',
        '-- 2 of 2',
        "--   $1 = 'w-1'",
        "select pg_notify('tasks', $1);",
        '',
        '-- pending(db)',
        '-- the builder, compiled',
        "--   $1 = 'pending'",
        'select "id"',
        'from "tasks"',
        'where "status" = $1;',
        '',
      ].join('\n'),
    );
  });
});
