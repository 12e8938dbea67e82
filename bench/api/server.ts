/** The product API over PostgreSQL, plus a bare route to measure against, in one child process. */
import { buildApp } from '../../api/src/app.ts';
import { loadConfig } from '../../api/src/config.ts';
import { openProductDatabase } from '../../api/src/db/database.ts';
import { sql } from 'kysely';

const config = { ...loadConfig(), logLevel: 'silent' as const, demo: false };
const database = await openProductDatabase(config);
const app = await buildApp({ config, database });
app.get('/bench/bare', { schema: { hide: true } }, async () => ({ ok: true, at: Date.now() }));
// A bare route answering a fixed JSON text of the size asked: what sending a list's bytes costs by itself.
const fixed = new Map<number, Buffer>();
app.get<{ Querystring: { bytes?: string } }>('/bench/bytes', { schema: { hide: true } }, async (request, reply) => {
  const size = Math.min(Number(request.query.bytes ?? 0) || 0, 10_000_000);
  let body = fixed.get(size);
  if (!body) {
    body = Buffer.from(JSON.stringify(['x'.repeat(Math.max(size - 6, 0))]));
    fixed.set(size, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
});
// The least any read from PostgreSQL costs: one trivial statement over the API's pool, no session and no rows to speak of.
app.get('/bench/statement', { schema: { hide: true } }, async () => ({
  ok: (await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows[0]?.one === 1,
}));
// The least a signed-in read does: the session cookie looked up and the workspace's access rule checked.
app.get('/api/bench/signed-in', { schema: { hide: true }, config: { access: 'workspace.read' } }, async () => ({ ok: true, at: Date.now() }));
await app.listen({ port: config.port, host: '127.0.0.1' });
process.send?.('ready');
// A clean exit on SIGTERM, so a CPU profile (BENCH_PROFILE) is written.
process.on('SIGTERM', () => process.exit(0));
