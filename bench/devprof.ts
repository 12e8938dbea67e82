import { fork } from 'node:child_process';
import autocannon from 'autocannon';
const url = 'postgres://postgres@127.0.0.1:5432/farm_bench_api';
const port = 3955;
const child = fork('/work/main/bench/api/server.ts', {
  execArgv: ['--import', 'tsx', ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : [])],
  env: { ...process.env, DATABASE_URL: url, PORT: String(port), REDIS_URL: '', LOG_LEVEL: 'silent', DEMO: '0', READ_CACHE_MS: '0' },
  stdio: 'inherit',
});
await new Promise((r) => child.once('message', r));
const origin = `http://127.0.0.1:${port}`;
const answer = await fetch(`${origin}/api/auth/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'bench@bench.farm', password: 'bench-password' }),
});
const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
const path = process.env.PATHX ?? '/api/devices';
await autocannon({ url: origin + path, connections: 8, duration: 2, headers: { cookie } });
const r = await autocannon({ url: origin + path, connections: 64, duration: 10, headers: { cookie } });
console.log(path, 'rps', r.requests.average, 'p99', r.latency.p99);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
