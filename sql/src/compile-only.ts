/**
 * A database that only compiles: Kysely with the product's dialect and plugins and no connection. It records each
 * statement it is asked to run and answers with rows given in advance (none unless told), so a query function can be
 * run with fixed arguments and its SQL read without a database (the SQL snapshots, `sql/src/snapshot.ts`).
 */
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type QueryResult,
  type Transaction,
} from 'kysely';
import { kyselyPlugins } from './database.ts';
import type { DB } from './schema.ts';

export interface Statement {
  sql: string;
  parameters: readonly unknown[];
  /** Rows it was answered with. */
  answered: number;
}

export interface Recording {
  statements: Statement[];
  /** What the function threw, if it did (an empty answer often ends a function early). */
  error?: unknown;
}

/** Transaction control: recorded in order, never given an answer. */
const CONTROL = /^(begin|start transaction|commit|rollback|savepoint|release savepoint|rollback to savepoint)\b/;

export class CompileOnlyDatabase {
  readonly db: Kysely<DB>;
  private statements: Statement[] | undefined;
  private answers: (readonly object[])[] = [];

  constructor() {
    const connection: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery) => this.execute(query) as QueryResult<R>,
      streamQuery: () => {
        throw new Error('A compile-only database streams nothing');
      },
    };
    // Kysely's DummyDriver, with a connection that records and answers, and transactions told as PostgreSQL's are.
    class RecordingDriver extends DummyDriver {
      override async acquireConnection() {
        return connection;
      }
      override async beginTransaction() {
        await connection.executeQuery(CompiledQuery.raw('begin'));
      }
      override async commitTransaction() {
        await connection.executeQuery(CompiledQuery.raw('commit'));
      }
      override async rollbackTransaction() {
        await connection.executeQuery(CompiledQuery.raw('rollback'));
      }
    }
    this.db = new Kysely<DB>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new RecordingDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
      plugins: kyselyPlugins(),
    });
  }

  /**
   * Runs `fn` and answers what it recorded. The nth statement (transaction control aside) is answered with
   * `answers[n]`, the rest with no rows. A returned query builder is compiled and recorded as a statement too.
   * With `inTransaction`, `fn` runs inside a transaction whose own begin and commit are not recorded.
   */
  async record(fn: (db: Kysely<DB>) => unknown, answers: readonly (readonly object[])[] = [], inTransaction = false): Promise<Recording> {
    const run = async (db: Kysely<DB>): Promise<Recording> => {
      this.statements = [];
      this.answers = [...answers];
      const recording: Recording = { statements: this.statements };
      try {
        const value = await fn(db);
        if (isCompilable(value)) this.statements.push({ ...compiled(value.compile()), answered: 0 });
      } catch (error) {
        recording.error = error;
      } finally {
        this.statements = undefined;
      }
      return recording;
    };
    if (!inTransaction) return run(this.db);
    let recording: Recording | undefined;
    await this.db.transaction().execute(async (tx: Transaction<DB>) => {
      recording = await run(tx);
    });
    return recording!;
  }

  private execute(query: CompiledQuery): QueryResult<unknown> {
    const control = CONTROL.test(query.sql);
    const rows = control ? [] : (this.answers.shift() ?? []);
    this.statements?.push({ ...compiled(query), answered: rows.length });
    return { rows: rows.map((row) => ({ ...row })) };
  }
}

const compiled = (query: CompiledQuery) => ({ sql: query.sql, parameters: query.parameters });

function isCompilable(value: unknown): value is { compile(): CompiledQuery } {
  return typeof value === 'object' && value !== null && typeof (value as { compile?: unknown }).compile === 'function';
}
