/**
 * The query plans of bench:api's reads, on the same seeded farm: each read is asked once of the product API (built in
 * this process, read cache off), the statements it sends are caught as Kysely runs them, and each is explained with
 * `EXPLAIN (ANALYZE, BUFFERS)` as PostgreSQL runs it in the product: a statement the product names (sql/src/prepared.ts)
 * after five runs of its prepared form, so the plan shown is the one a connection settles on (generic or custom); any
 * other planned for its values. Written to bench/plans/<read>.txt (BENCH_PLANS_DIR to write elsewhere); the session
 * lookup every read makes first is written once, to signed-in.txt.
 *
 *   pnpm --filter @farm/bench plans                 seeds the farm (as bench:api does), then writes the plans
 *   BENCH_REUSE=1 pnpm --filter @farm/bench plans   reuses the farm a run kept (see bench/README.md)
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { kyselyPlugins, type DB } from '@farm/sql';
import { buildApp } from '../../api/src/app.ts';
import { loadConfig } from '../../api/src/config.ts';
import { StatementNames } from '../../sql/src/prepared.ts';
import { benchDatabase, processUsage } from '../lib.ts';
import { reads } from './reads.ts';
import { FARM, farmSeeded, seedFarm } from './seed.ts';

const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = process.env.BENCH_DB ?? 'farm_bench_api';
const reuse = process.env.BENCH_REUSE === '1';
const out = process.env.BENCH_PLANS_DIR ?? fileURLToPath(new URL('../plans/', import.meta.url));
/** How long each statement is run over and over to measure its server CPU per run. */
const cpuWindowMs = Number(process.env.BENCH_PLANS_MS ?? 1000);

interface Statement {
  text: string;
  values: unknown[];
}

const { database, url, drop, existed } = await benchDatabase(base, dbName, 4, reuse ? { reuse: farmSeeded } : {});
Object.assign(process.env, { DATABASE_URL: url, REDIS_URL: '', LOG_LEVEL: 'silent', DEMO: '0', READ_CACHE_MS: '0', RUN_WORKERS: '0' });

// The product's queries, on a Kysely of their own that tells which request sent each statement.
const caught = new AsyncLocalStorage<Statement[]>();
const pool = new pg.Pool({ connectionString: url, max: 2 });
const db = new Kysely<DB>({
  dialect: new PostgresDialect({ pool }),
  plugins: kyselyPlugins(),
  log: (event) => {
    if (event.level === 'query') caught.getStore()?.push({ text: event.query.sql, values: [...event.query.parameters] });
  },
});
const app = await buildApp({ config: { ...loadConfig(), logLevel: 'silent', demo: false }, database: { ...database, db } });
app.get('/api/bench/signed-in', { schema: { hide: true }, config: { access: 'workspace.read' } }, async () => ({ ok: true }));

const credentials = { email: 'bench@bench.farm', password: 'bench-password' };
try {
  if (!existed) {
    const signup = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { ...credentials, name: 'Bench Operator', role: 'operator' } });
    const { user } = signup.json<{ user: { workspaceId: string } }>();
    await seedFarm(database.db, user.workspaceId);
    console.log(`seeded ${FARM.devices} devices, ${FARM.tasks} tasks, ${FARM.activities} activities`);
  }
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: credentials });
  const cookie = String(login.headers['set-cookie'] ?? '').split(';')[0]!;

  /** The statements one answer to `path` sends (after a first answer, so nothing is left to set up). */
  const statementsOf = async (path: string): Promise<Statement[]> => {
    await app.inject({ url: path, headers: { cookie } });
    const statements: Statement[] = [];
    // Awaited inside: an inject starts when it is awaited, and the statements it sends belong to where that happened.
    const answer = await caught.run(statements, async () => await app.inject({ url: path, headers: { cookie } }));
    if (answer.statusCode !== 200) throw new Error(`${path} answered ${answer.statusCode}: ${answer.body}`);
    return statements;
  };

  mkdirSync(out, { recursive: true });
  const signedIn = await statementsOf('/api/bench/signed-in');
  const lookup = new Set(signedIn.map((statement) => statement.text));
  const pages: [string, string, Statement[]][] = [['signed-in', 'The session lookup every signed-in read makes first (GET /api/bench/signed-in)', signedIn]];
  for (const read of reads) pages.push([read.plan, read.name, (await statementsOf(read.path)).filter((statement) => !lookup.has(statement.text))]);

  const names = new StatementNames();
  for (const [file, title, statements] of pages) {
    const parts: string[] = [];
    let total = 0;
    let totalCpu = 0;
    for (const [i, statement] of statements.entries()) {
      const named = names.of(statement.text, statement.values.length > 0) !== undefined;
      const { plan, ms, cpu } = await explain(statement, named);
      total += ms;
      totalCpu += cpu;
      parts.push(
        `-- statement ${i + 1} of ${statements.length}, ${named ? 'named: the plan after five runs of its prepared form' : 'unnamed: planned for its values'}; server CPU ${cpu.toFixed(2)} ms a run`,
        statement.text.trim(),
        `-- parameters: ${JSON.stringify(statement.values)}`,
        '',
        plan,
        '',
      );
    }
    const header = [
      `${title}: the statements it sends${file === 'signed-in' ? '' : ' besides the session lookup (signed-in.txt)'}, explained on the bench:api farm`,
      `(${FARM.devices} devices, ${FARM.tasks} tasks, ${FARM.activities} activities) by pnpm --filter @farm/bench plans. Times move with what else runs on the machine.`,
      `Execution time, all statements (each the fastest of five explained runs): ${total.toFixed(3)} ms; server CPU a read: ${totalCpu.toFixed(2)} ms`,
      '',
    ];
    writeFileSync(join(out, `${file}.txt`), [...header, ...parts].join('\n'));
    console.log(
      `${file.padEnd(16)} ${String(statements.length).padStart(2)} statements, ${total.toFixed(2).padStart(8)} ms executing, ${totalCpu.toFixed(2).padStart(6)} ms server CPU`,
    );
  }
} finally {
  await app.close();
  await db.destroy();
  await drop();
}

/**
 * The statement's plan as PostgreSQL runs it in the product, the fastest of five explained runs (the machine's cores
 * are shared: a run another process interrupted is left aside), and what one run costs the server: its connection's
 * CPU milliseconds per run over a second of runs, from /proc, which other work on the machine moves less than times.
 */
async function explain(statement: Statement, named: boolean): Promise<{ plan: string; ms: number; cpu: number }> {
  const client = await pool.connect();
  try {
    await client.query('SET jit = off');
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const args = statement.values.map((value) => literal(client, value)).join(', ');
    const execute = `EXECUTE farm_plan${args ? `(${args})` : ''}`;
    const run = () => (named ? client.query(execute) : client.query(statement.text, statement.values));
    if (named) await client.query(`PREPARE farm_plan AS ${statement.text}`);
    try {
      for (let warm = 0; warm < 5; warm += 1) await run();
      let best = { plan: '', ms: Number.POSITIVE_INFINITY };
      for (let tries = 0; tries < 5; tries += 1) {
        const { rows } = named
          ? await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${execute}`)
          : await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        const ms = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? 0);
        if (ms < best.ms) best = { plan, ms };
      }
      const before = processUsage(backend).cpu;
      const started = performance.now();
      let runs = 0;
      while (performance.now() - started < cpuWindowMs) {
        await run();
        runs += 1;
      }
      return { ...best, cpu: ((processUsage(backend).cpu - before) * 1000) / runs };
    } finally {
      if (named) await client.query('DEALLOCATE farm_plan');
    }
  } finally {
    client.release();
  }
}

/** A parameter as a SQL literal, as the driver would send it. */
function literal(client: pg.PoolClient, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return client.escapeLiteral(value.toISOString());
  if (typeof value === 'object') return client.escapeLiteral(JSON.stringify(value));
  return client.escapeLiteral(String(value));
}
