/**
 * SQL you can review: the statements of a module's query functions, compiled by Kysely from the real functions
 * called with fixed arguments on a compile-only database, written to a committed `.sql` file (`sql/queries/`), as
 * Immich commits the SQL of each of its repositories. A package's `test/queries/<name>.cases.ts` says which calls
 * to make; `scripts/sql-snapshots.mjs` writes the files and, with `--check` in CI, fails on any difference, so a
 * change to a query shows in review. Every exported function of the module has a case or is named as running none,
 * so a new query cannot escape.
 */
import type { Kysely, Transaction } from 'kysely';
import { CompileOnlyDatabase, type Recording } from './compile-only.ts';
import { formatSql } from './format-sql.ts';
import type { DB } from './schema.ts';

type AnyFunction = (...args: never[]) => unknown;

/** One call of a query function with fixed arguments, and the rows its statements are answered with. */
export class QueryCase {
  /** Rows for the case's statements in order (transaction control aside); a statement past them gets none. */
  answers: (readonly object[])[] = [];
  /** What the case shows, when its arguments do not say it. */
  note: string | undefined;

  constructor(
    readonly fn: AnyFunction,
    /** The arguments as the snapshot shows them. */
    readonly shown: string,
    readonly run: (db: Kysely<DB>) => unknown,
    readonly inTransaction: boolean,
  ) {}

  /** The nth statement of the call answers `rows[n]`: how a case reaches the statements after the first. */
  answering(...rows: (readonly object[])[]): this {
    this.answers = rows;
    return this;
  }

  because(note: string): this {
    this.note = note;
    return this;
  }
}

/** `fn(db, ...args)` on the compile-only database. */
export function call<A extends unknown[]>(fn: (db: Kysely<DB>, ...args: A) => unknown, ...args: A): QueryCase {
  return new QueryCase(fn as AnyFunction, shownArgs('db', args), (db) => fn(db, ...args), false);
}

/** `fn(tx, ...args)` inside a transaction of the compile-only database (its begin and commit are not shown). */
export function callInTransaction<A extends unknown[]>(fn: (tx: Transaction<DB>, ...args: A) => unknown, ...args: A): QueryCase {
  return new QueryCase(fn as AnyFunction, shownArgs('tx', args), (db) => fn(db as Transaction<DB>, ...args), true);
}

/** A call of another shape (a job's processor): the arguments as shown, and how to make the call. */
export function callAs(fn: AnyFunction, shown: string, run: (db: Kysely<DB>) => unknown): QueryCase {
  return new QueryCase(fn, shown, run, false);
}

const labels = new WeakMap<object, string>();

/** The value, shown in the snapshot as `label` (a fixture row whose every column would say less). */
export function shownAs<T extends object>(value: T, label: string): T {
  labels.set(value, label);
  return value;
}

type FunctionKeys<M> = { [K in keyof M]: M[K] extends AnyFunction ? K : never }[keyof M] & string;

export interface SnapshotSpec<M extends object> {
  /** The module's path from the repository's root, as the snapshot names it. */
  source: string;
  /** The module itself (`import * as lifecycle from …`): its exported functions are checked against the cases. */
  module: M;
  /** Exported functions that run no SQL, each with why. */
  notQueries: Partial<Record<FunctionKeys<M>, string>>;
  /** What the snapshot's readers should know of the fixed values. */
  legend?: string[];
  cases: QueryCase[];
}

export interface Snapshot {
  source: string;
  module: object;
  notQueries: Record<string, string>;
  legend: string[];
  cases: QueryCase[];
}

export function defineSnapshot<M extends object>(spec: SnapshotSpec<M>): Snapshot {
  return { ...spec, notQueries: spec.notQueries as Record<string, string>, legend: spec.legend ?? [] };
}

const exportedName = (snapshot: Snapshot, fn: AnyFunction) => Object.entries(snapshot.module).find(([, value]) => value === fn)?.[0];

/** What makes the snapshot incomplete: a function with no case, a case or exemption of something not exported. */
export function gaps(snapshot: Snapshot): string[] {
  const functions = Object.entries(snapshot.module).filter(([, value]) => typeof value === 'function');
  const covered = new Set(snapshot.cases.map((one) => one.fn));
  const problems = functions
    .filter(([name, fn]) => !covered.has(fn as AnyFunction) && !(name in snapshot.notQueries))
    .map(([name]) => `${snapshot.source}: ${name} has no case (add one, or name it among notQueries with why)`);
  for (const name of Object.keys(snapshot.notQueries)) {
    if (!functions.some(([exported]) => exported === name)) problems.push(`${snapshot.source}: notQueries names ${name}, which it does not export`);
  }
  for (const one of snapshot.cases) {
    if (!exportedName(snapshot, one.fn)) problems.push(`${snapshot.source}: a case calls ${one.fn.name || 'a function'}, which it does not export`);
  }
  return problems;
}

/**
 * The snapshot's text (a header, then each case's statements in the order of the cases) and what it counts. `fixed`
 * says what the caller fixed for every case (the clock), for the header.
 */
export async function renderSnapshot(
  snapshot: Snapshot,
  fileOfCases: string,
  fixed: readonly string[] = [],
): Promise<{ text: string; functions: number; statements: number }> {
  const database = new CompileOnlyDatabase();
  const blocks: string[] = [];
  let statements = 0;
  for (const one of snapshot.cases) {
    const name = exportedName(snapshot, one.fn) ?? one.fn.name;
    const recording = await database.record(one.run, one.answers, one.inTransaction);
    statements += recording.statements.length;
    blocks.push(renderCase(`${name}(${one.shown})`, one, recording));
  }
  const header = [
    `-- The SQL of ${snapshot.source}: its query functions, called with the fixed arguments of`,
    `-- ${fileOfCases} on a database that only compiles (@farm/sql/snapshot).`,
    '-- Written by `pnpm sql:snapshots`; CI fails when this file differs (`pnpm check:sql`).',
    '-- A statement answered with rows says so; the others were answered with none.',
    ...[...fixed, ...snapshot.legend].map((line) => `-- ${line}`),
  ];
  const text = `${[header.join('\n'), ...blocks].join('\n\n')}\n`;
  return { text, functions: new Set(snapshot.cases.map((one) => one.fn)).size, statements };
}

function renderCase(call: string, one: QueryCase, recording: Recording): string {
  const lines = [`-- ${call}`];
  if (one.note) lines.push(`-- ${one.note}`);
  const { statements } = recording;
  if (statements.length === 0) lines.push('-- (no statement)');
  statements.forEach((statement, i) => {
    const said = [statements.length > 1 ? `${i + 1} of ${statements.length}` : '', statement.answered > 0 ? `answered with ${rowsOf(statement.answered)}` : '']
      .filter(Boolean)
      .join(', ');
    if (i > 0) lines.push('');
    if (said) lines.push(`-- ${said}`);
    for (const [n, value] of statement.parameters.entries()) lines.push(`--   $${n + 1} = ${shown(value)}`);
    lines.push(`${formatSql(statement.sql)};`);
  });
  if (recording.error !== undefined) lines.push(`-- then throws ${errorText(recording.error)}`);
  return lines.join('\n');
}

const rowsOf = (n: number) => (n === 1 ? '1 row' : `${n} rows`);

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return shown(error);
  // Kysely's NoResultError names itself Error: the class says more.
  return `${error.constructor.name}: ${error.message.split('\n')[0]}`;
}

const shownArgs = (handle: 'db' | 'tx', args: unknown[]) => [handle, ...args.map(shown)].join(', ');

/** A value as the snapshot shows it, the same on every run. */
function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`;
  if (typeof value === 'function') return value.name || 'function';
  if (typeof value !== 'object') return String(value);
  const label = labels.get(value);
  if (label !== undefined) return label;
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  if (Array.isArray(value)) return `[${value.map(shown).join(', ')}]`;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value.constructor.name;
  const entries = Object.entries(value).map(([key, item]) => `${key}: ${shown(item)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}
