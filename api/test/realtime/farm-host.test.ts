/**
 * A farm host against a real console: `farm-agent host --backend sim` in process. Its phones join by serial, run a
 * scheduled post as a recipe on their (simulated) screens, and go offline when unplugged.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '@farm/agent-protocol';
import { AgentState } from '@farm/agent-protocol/agent';
import { FarmHost } from '@farm/agent-protocol/host';
import { manualClock } from '@farm/agent-protocol/recipes';
import { buildTestApp, Client, people, type TestApp } from '../helpers/app.ts';
import { buildAccount, buildPost, PNG, uploadImage } from '../helpers/factories.ts';
import { until } from './phones.ts';
import { listen } from './sockets.ts';

let t: TestApp;
let url: string;
let operator: Client;
let host: FarmHost | undefined;
let stateDir: string;

beforeAll(async () => {
  t = await buildTestApp({ automation: { heartbeatMs: 1000 } });
  url = await listen(t.app);
  ({ operator } = await people(t.app));
  stateDir = await mkdtemp(join(tmpdir(), 'farm-host-'));
});
afterAll(async () => {
  await host?.close();
  await t?.close();
  await rm(stateDir, { recursive: true, force: true });
});

describe('a simulated farm host', () => {
  it('registers its phones, publishes a due post through the recipe on the phone, and drops an unplugged phone', async () => {
    const created = await operator.post('/api/hosts', { name: 'Rack sim' });
    const { token } = (await new Client(t.app).post('/api/agent/enroll', { code: created.body.code })).body;
    host = new FarmHost({
      server: url,
      token,
      state: new AgentState(stateDir),
      backend: 'sim',
      devices: 2,
      recipeOptions: { clock: manualClock(Date.now()), pollMs: 5, busyPauseMs: 5 },
    });
    await host.start();
    const devices = await until(async () => {
      const rows = ((await operator.get('/api/devices')).body as { id: string; serial: string; status: string; name: string }[]).filter((row) =>
        row.serial?.startsWith('SIM-'),
      );
      return rows.length === 2 && rows.every((row) => row.status !== 'offline') ? rows : undefined;
    }, 'both phones online');
    expect(devices.map((row) => row.name).sort()).toEqual(['Pixel 8 (simulated) · M-0001', 'Pixel 8 (simulated) · M-0002']);
    expect(((await operator.get('/api/hosts')).body as { connected: boolean; phones: number }[])[0]).toMatchObject({ connected: true, phones: 2 });

    const first = devices.find((row) => row.serial === 'SIM-0001')!;
    const account = await buildAccount(operator, { deviceId: first.id, status: 'active', username: 'glow.daily' });
    const media = await uploadImage(operator);
    const post = await buildPost(operator, account.id, {
      status: 'scheduled',
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      caption: 'Morning routine',
      hashtags: ['#glow'],
      mediaUrls: [media],
    });
    await t.db
      .updateTable('posts')
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where('id', '=', post.id)
      .execute();
    await t.app.ctx.jobs!.runNow('posts.due');
    const published = await until(
      async () => {
        const row = (await operator.get(`/api/posts/${post.id}`)).body;
        return row.status === 'published' || row.status === 'failed' ? row : undefined;
      },
      'the post to be published',
      20_000,
    );
    expect(published).toMatchObject({ status: 'published', failureCode: null });
    const journal = new Journal(new AgentState(stateDir).journalPath('SIM-0001'));
    const task = await t.db.selectFrom('tasks').select('id').where('postId', '=', post.id).executeTakeFirstOrThrow();
    expect(journal.get(task.id)).toMatchObject({ state: 'done', result: { status: 'completed' } });
    // The post's image came down through the agent's route with the host's credential, and went to the phone.
    const downloaded = await readdir(join(stateDir, 'media'));
    expect(downloaded).toHaveLength(1);
    expect(await readFile(join(stateDir, 'media', downloaded[0]!))).toEqual(PNG);
    const phone = host.backend('SIM-0001')!.phone as unknown as { published: { media: string | null }[] };
    expect(phone.published).toEqual([expect.objectContaining({ media: downloaded[0] })]);
    const history = (await operator.get(`/api/devices/${first.id}/history`)).body as { outcome: string }[];
    expect(history[0]).toMatchObject({ outcome: 'completed' });

    // Unplugged: the host closes the phone's connection; the console shows it offline within two seconds.
    await (host as unknown as { phones: { leave(serial: string): Promise<void> } }).phones.leave('SIM-0002');
    const second = devices.find((row) => row.serial === 'SIM-0002')!;
    await until(async () => (await operator.get(`/api/devices/${second.id}`)).body.status === 'offline', 'the unplugged phone offline', 2000);
  });
});
