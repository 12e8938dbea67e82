/**
 * The living demo: on the embedded default with demo data, the product starts simulated agents for the demo farm's
 * phones (all but a few, which stay away), so a new user sees real connections, screens changing on the wall, and
 * tasks and scheduled posts being worked. They run as a child process (`farm-agent sim`), like a phone farm beside
 * the console; each start gives them fresh credentials, passed in the environment, never on the command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { setDeviceCredential } from '../modules/fleet/fleet.agent-link.queries.ts';
import type { Db } from '../shared/types.ts';
import { DEMO_PHONE_COUNT, DEMO_PHONES_AWAY } from './seed.ts';

// Compiled (api/dist), the simulator runs from agent-protocol's compiled files too; from sources, through tsx.
const compiled = import.meta.url.endsWith('.js');
const cli = fileURLToPath(new URL(compiled ? '../../../agent-protocol/dist/agent/cli.js' : '../../../agent-protocol/src/agent/cli.ts', import.meta.url));
const runner = compiled ? ['--conditions=compiled'] : ['--import', 'tsx'];

export async function startDemoPhones(
  db: Db,
  options: { port: number; dataDir: string; count: number | undefined; log: FastifyBaseLogger },
): Promise<() => Promise<void>> {
  const count = options.count ?? DEMO_PHONE_COUNT - DEMO_PHONES_AWAY;
  if (count <= 0) return async () => undefined;
  const workspace = await db.selectFrom('workspaces').select('id').orderBy('createdAt').executeTakeFirst();
  if (!workspace) return async () => undefined;
  const phones = await db
    .selectFrom('devices')
    .select(['id', 'workspaceId'])
    .where('workspaceId', '=', workspace.id)
    .orderBy('createdAt')
    .orderBy('id')
    .limit(count)
    .execute();
  const tokens: string[] = [];
  for (const phone of phones) tokens.push((await setDeviceCredential(db, phone.workspaceId, phone.id)).token);
  const child: ChildProcess = spawn(
    process.execPath,
    [...runner, cli, 'sim', '--server', `http://127.0.0.1:${options.port}`, '--screenshot', '12000', '--state', join(options.dataDir, 'demo-phones')],
    {
      env: { ...process.env, FARM_AGENT_TOKENS: tokens.join(','), FARM_AGENT_EXIT_WITH_PARENT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => options.log.debug({ phones: chunk.toString().trim() }, 'demo phones'));
  child.stderr?.on('data', (chunk: Buffer) => options.log.warn({ phones: chunk.toString().trim() }, 'demo phones'));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) options.log.warn(`demo phones stopped (exit ${code})`);
  });
  options.log.info(`Demo farm: ${tokens.length} simulated phones connecting (DEMO_PHONES=0 turns them off)`);
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
  };
}
