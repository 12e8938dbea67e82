/** Small helpers every bench uses: waiting, percentiles, a free port, a database and an API process of its own. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { migrate, openDatabase, type Database, type DB } from '@farm/sql';

const root = fileURLToPath(new URL('../', import.meta.url));

/**
 * The flags the product's start scripts give node besides the build's (`--max-semi-space-size=…`), read from the root
 * package.json's `start:api`: a bench runs the API and the workers as they run in production.
 */
export const productNodeFlags: string[] = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts[
  'start:api'
]!.split(/\s+/).filter((flag) => flag.startsWith('--max-'));

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The p-th percentile of the finite values (NaN when there are none). */
export function percentile(values: number[], p: number): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const TICKS = 100; // clock ticks per second (getconf CLK_TCK)

/** CPU seconds a process has used so far and its resident memory (MB), from /proc. */
export function processUsage(pid: number): { cpu: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) / TICKS;
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpu, rssMb: Number(rss?.[1] ?? 0) / 1024 };
}

/** CPU seconds used so far by each PostgreSQL server process on this machine (the bench's database shares it), by pid. */
export function postgresCpu(): Map<number, number> {
  const usage = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      usage.set(Number(entry), processUsage(Number(entry)).cpu);
    } catch {
      // The process ended while we looked.
    }
  }
  return usage;
}

/** PostgreSQL's CPU seconds between two readings (a process that ended in between is left out). */
export function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of postgresCpu()) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/**
 * A migrated PostgreSQL database of the bench's own (dropped first if a run left one); `drop()` removes it, unless
 * BENCH_KEEP=1 asks to keep it for a closer look. With `reuse`, a database a run kept is opened as it is (migrated to
 * the newest migrations) when `reuse` answers true of it, else made afresh, and kept after the run either way:
 * `existed` says which, so a bench seeds only a new one.
 */
export async function benchDatabase(base: string, name: string, poolSize = 2, options: { reuse?: (db: Kysely<DB>) => Promise<boolean> } = {}) {
  const admin = await openDatabase({ kind: 'postgres', url: base, poolSize: 1 });
  const url = new URL(base);
  url.pathname = `/${name}`;
  const open = async () => {
    const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize });
    await migrate(database);
    return database;
  };
  let database: Database | undefined;
  if (options.reuse) {
    const { rows } = await sql<{ found: number }>`select count(*)::int as found from pg_database where datname = ${name}`.execute(admin.db);
    if (rows[0]!.found > 0) {
      database = await open();
      if (!(await options.reuse(database.db))) {
        await database.close();
        database = undefined;
      }
    }
  }
  const existed = database !== undefined;
  if (!database) {
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.exec(`CREATE DATABASE ${name}`);
    database = await open();
  }
  const opened = database;
  return {
    database: opened,
    url: url.toString(),
    existed,
    async drop() {
      await opened.close();
      if (process.env.BENCH_KEEP !== '1' && !options.reuse) await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.close();
    },
  };
}

/**
 * The product's API as a process of its own on a free port (no Redis, no demo, silent unless `env` says otherwise),
 * answered once its /readyz says so. BENCH_PROFILE=DIR writes its CPU profile (.cpuprofile) into DIR when it stops.
 */
export async function startApi(env: Record<string, string>): Promise<{ api: ChildProcess; origin: string }> {
  const port = await freePort();
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const api = spawn(process.execPath, [...productNodeFlags, '--import', 'tsx', ...profile, 'api/src/server.ts'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: '', HOST: '127.0.0.1', DEMO: '0', LOG_LEVEL: 'silent', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i += 1) {
    const ready = await fetch(`${origin}/readyz`)
      .then((answer) => answer.ok)
      .catch(() => false);
    if (ready) return { api, origin };
    await pause(250);
  }
  api.kill('SIGKILL');
  throw new Error('the API did not become ready within 60 s');
}

/** Signs a new operator up on the API (a workspace of its own); answers the session cookie. */
export async function signUp(origin: string): Promise<string> {
  const signup = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'bench-password-123', name: 'Bench Operator', role: 'operator' }),
  });
  const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (!signup.ok || !cookie) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  return cookie;
}

/** Adds a phone host as the signed-in operator and enrols it with its code, as `farm-agent host --code` does; answers its token. */
export async function enrolledHost(origin: string, cookie: string, name: string): Promise<string> {
  const added = await fetch(`${origin}/api/hosts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name }),
  });
  if (!added.ok) throw new Error(`adding a host: ${added.status} ${await added.text()}`);
  const { code } = (await added.json()) as { code: string };
  const enrolled = await fetch(`${origin}/api/agent/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  if (!enrolled.ok) throw new Error(`enrolling the host: ${enrolled.status} ${await enrolled.text()}`);
  return ((await enrolled.json()) as { token: string }).token;
}
