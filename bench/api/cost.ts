/**
 * What each of bench:api's reads costs alone, one answer at a time: the CPU milliseconds per answer of the API (built in
 * this process, read cache off, asked through Fastify's inject, so without the HTTP socket the bare route measures)
 * and of its one PostgreSQL connection (that server process's own CPU, from /proc, so other databases on the server do
 * not count). On a machine whose cores are shared, latency under load moves with what else runs; these move less.
 *
 *   BENCH_REUSE=1 pnpm --filter @farm/bench cost      on the farm a bench:api or plans run kept (seeded when missing)
 *   BENCH_COST_MS=2000 (time per read), BENCH_ONLY=devices (the reads whose path holds that text)
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { openDatabase } from '@farm/sql';
import { buildApp } from '../../api/src/app.ts';
import { loadConfig } from '../../api/src/config.ts';
import { benchDatabase } from '../lib.ts';
import { reads } from './reads.ts';
import { FARM, farmSeeded, seedFarm } from './seed.ts';

const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = process.env.BENCH_DB ?? 'farm_bench_api';
const reuse = process.env.BENCH_REUSE === '1';
const budgetMs = Number(process.env.BENCH_COST_MS ?? 2000);
const only = process.env.BENCH_ONLY;

const { database: admin, url, drop, existed } = await benchDatabase(base, dbName, 2, reuse ? { reuse: farmSeeded } : {});
Object.assign(process.env, { DATABASE_URL: url, REDIS_URL: '', LOG_LEVEL: 'silent', DEMO: '0', READ_CACHE_MS: '0', RUN_WORKERS: '0' });
// The product's database handle (named statements and all), on one connection, so its server process is known.
const database = await openDatabase({ kind: 'postgres', url, poolSize: 1 });
const app = await buildApp({ config: { ...loadConfig(), logLevel: 'silent', demo: false }, database });
app.get('/api/bench/signed-in', { schema: { hide: true }, config: { access: 'workspace.read' } }, async () => ({ ok: true }));

/** CPU milliseconds a process has used so far, from /proc (clock ticks of 10 ms). */
const cpuOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const ownCpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const credentials = { email: 'bench@bench.farm', password: 'bench-password' };
try {
  if (!existed) {
    const signup = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { ...credentials, name: 'Bench Operator', role: 'operator' } });
    await seedFarm(admin.db, signup.json<{ user: { workspaceId: string } }>().user.workspaceId);
    console.log(`seeded ${FARM.devices} devices, ${FARM.tasks} tasks, ${FARM.activities} activities`);
  }
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: credentials });
  const cookie = String(login.headers['set-cookie'] ?? '').split(';')[0]!;
  const backend = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db)).rows[0]!.pid;

  console.log(`${'read'.padEnd(52)} ${'answers'.padStart(8)} ${'API ms'.padStart(8)} ${'PG ms'.padStart(8)} ${'bytes'.padStart(8)}`);
  const targets = [{ name: 'trivial signed-in route', path: '/api/bench/signed-in' }, ...reads.filter(({ path }) => !only || path.includes(only))];
  for (const { name, path } of targets) {
    let bytes = 0;
    const ask = async () => {
      const answer = await app.inject({ url: path, headers: { cookie } });
      if (answer.statusCode !== 200) throw new Error(`${path} answered ${answer.statusCode}`);
      bytes = answer.rawPayload.length;
    };
    for (let i = 0; i < 20; i += 1) await ask();
    const started = performance.now();
    const api = ownCpu();
    const pg = cpuOf(backend);
    let count = 0;
    while (performance.now() - started < budgetMs) {
      await ask();
      count += 1;
    }
    const apiMs = (ownCpu() - api) / count;
    const pgMs = (cpuOf(backend) - pg) / count;
    console.log(`${name.padEnd(52)} ${String(count).padStart(8)} ${apiMs.toFixed(3).padStart(8)} ${pgMs.toFixed(3).padStart(8)} ${String(bytes).padStart(8)}`);
  }
} finally {
  await app.close();
  await database.close();
  await drop();
}
