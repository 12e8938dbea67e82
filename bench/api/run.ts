/**
 * API at farm scale: seeds PostgreSQL, starts the API in a child process, and measures list and stats
 * endpoints with autocannon at 64 connections beside a bare Fastify route of the same server.
 * Prints p50/p99 and requests/s, and each endpoint's p99 as a ratio to the bare route's.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchDatabase, postgresCpu, postgresCpuSince, processUsage, productNodeFlags } from '../lib.ts';
import { reads } from './reads.ts';
import { FARM, farmSeeded, seedFarm } from './seed.ts';

const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = process.env.BENCH_DB ?? 'farm_bench_api';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const only = process.env.BENCH_ONLY;
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const port = Number(process.env.BENCH_PORT ?? 3950);
/** BENCH_CACHE=on or off measures one of the two rounds only (both by default). */
const rounds = process.env.BENCH_CACHE ?? 'both';
/** BENCH_REUSE=1 keeps the seeded farm after the run and measures it again next time instead of seeding anew. */
const reuse = process.env.BENCH_REUSE === '1';

const { database, url, drop, existed } = await benchDatabase(base, dbName, 10, reuse ? { reuse: farmSeeded } : {});

/** BENCH_PROFILE=DIR writes a CPU profile (.cpuprofile) of the server without the cache into DIR. */
const profileDir = process.env.BENCH_PROFILE;

async function startServer(extraEnv: Record<string, string>, profile = false) {
  const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), {
    execArgv: [...productNodeFlags, '--import', 'tsx', ...(profile && profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), REDIS_URL: '', LOG_LEVEL: 'silent', DEMO: '0', ...extraEnv },
    stdio: 'inherit',
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return child;
}

const origin = `http://127.0.0.1:${port}`;
const targets: [string, string][] = [
  ['bare Fastify route (baseline)', '/bench/bare'],
  ['trivial signed-in route', '/api/bench/signed-in'],
  ['bare route + one statement (select 1)', '/bench/statement'],
  ...reads.map(({ name, path }): [string, string] => [name, path]),
];

interface Row {
  name: string;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
  /** CPU milliseconds per request: the API process, PostgreSQL, and the load generator (this process). */
  api: number;
  pg: number;
  load: number;
}

/** Adds a bare route answering as many bytes as the devices page, once its size is known. */
async function sizeTheBytesBaseline(cookie: string): Promise<void> {
  if (targets.some(([, path]) => path.startsWith('/bench/bytes'))) return;
  const size = (await (await fetch(`${origin}/api/devices`, { headers: { cookie } })).arrayBuffer()).byteLength;
  targets.splice(3, 0, [`bare route, ${Math.round(size / 1024)} KB answer (devices' size)`, `/bench/bytes?bytes=${size}`]);
}

async function measure(label: string, cookie: string, server: number): Promise<Row[]> {
  await sizeTheBytesBaseline(cookie);
  const rows: Row[] = [];
  for (const [name, path] of targets) {
    if (only && !path.includes(only) && !path.includes('/bench/')) continue;
    await autocannon({ url: origin + path, connections: 8, duration: 2, headers: { cookie } }); // warm-up
    const before = { api: processUsage(server).cpu, pg: postgresCpu(), load: process.cpuUsage() };
    const result = await autocannon({ url: origin + path, connections, duration: seconds, headers: { cookie } });
    const count = Math.max(result.requests.total, 1);
    const load = process.cpuUsage(before.load);
    rows.push({
      name,
      p50: result.latency.p50,
      p99: result.latency.p99,
      rps: result.requests.average,
      errors: result.errors + result.non2xx,
      api: ((processUsage(server).cpu - before.api) * 1000) / count,
      pg: (postgresCpuSince(before.pg) * 1000) / count,
      load: (load.user + load.system) / 1000 / count,
    });
  }
  const bare = rows[0]!;
  const signedIn = rows[1]!;
  console.log(`\n${label}: ${connections} connections, ${seconds} s each, ${cpus().length} cores`);
  console.log(
    'endpoint'.padEnd(52),
    'p50 ms'.padStart(7),
    'p99 ms'.padStart(7),
    'req/s'.padStart(7),
    'p99 ÷ bare'.padStart(11),
    'req/s ÷ signed-in'.padStart(18),
    'CPU ms/req: API'.padStart(16),
    'PostgreSQL'.padStart(11),
    'load'.padStart(6),
    'errors'.padStart(7),
  );
  for (const row of rows) {
    console.log(
      row.name.padEnd(52),
      String(row.p50).padStart(7),
      String(row.p99).padStart(7),
      row.rps.toFixed(0).padStart(7),
      `${(row.p99 / Math.max(bare.p99, 1)).toFixed(1)}x`.padStart(11),
      `${(row.rps / Math.max(signedIn.rps, 1)).toFixed(2)}`.padStart(18),
      row.api.toFixed(2).padStart(16),
      row.pg.toFixed(2).padStart(11),
      row.load.toFixed(2).padStart(6),
      String(row.errors).padStart(7),
    );
  }
  return rows;
}

async function login(): Promise<string> {
  const answer = await fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@bench.farm', password: 'bench-password' }),
  });
  return (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
}

let child = await startServer(rounds === 'off' ? { READ_CACHE_MS: '0' } : {}, rounds === 'off');
try {
  if (existed) console.log(`measuring the farm seeded in ${dbName} by an earlier run (BENCH_REUSE=1)`);
  else {
    const signup = await fetch(`${origin}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@bench.farm', password: 'bench-password', name: 'Bench Operator', role: 'operator' }),
    });
    const { user } = (await signup.json()) as { user: { workspaceId: string } };
    const started = Date.now();
    await seedFarm(database.db, user.workspaceId);
    console.log(`seeded ${FARM.devices} devices, ${FARM.tasks} tasks, ${FARM.activities} activities in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  const cached = rounds === 'off' ? [] : await measure('As shipped (read cache on, READ_CACHE_MS=1000)', await login(), child.pid!);
  if (rounds === 'both') {
    child.kill('SIGTERM');
    child = await startServer({ READ_CACHE_MS: '0' }, true);
  }
  const uncached = rounds === 'on' ? [] : await measure('Every read from PostgreSQL (READ_CACHE_MS=0)', await login(), child.pid!);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ cached, uncached }));
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await drop();
}
