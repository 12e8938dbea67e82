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
import { buildAccount, PNG, uploadImage } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { duePost, until } from './phones.ts';

let host: FarmHost | undefined;
let stateDir: string;
const { t, url, operator, enrollHost } = await realtimeApp({ automation: { heartbeatMs: 1000 } });

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'farm-host-'));
});
afterAll(async () => {
  await host?.close();
  await rm(stateDir, { recursive: true, force: true });
});

describe('a simulated farm host', () => {
  it('registers its phones, publishes a due post through the recipe on the phone, and drops an unplugged phone', async () => {
    // The shipped post template rests on claims no public source shows (it is off by default): the farm lets it run on
    // its simulated phones, whose screens come from the recipes' fixtures.
    expect((await operator.put('/api/recipes/settings', { tryUntestedTemplates: true })).status).toBe(200);
    const { token } = await enrollHost('Rack sim');
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
    const post = await duePost(t, operator, account.id, { caption: 'Morning routine', hashtags: ['#glow'], mediaUrls: [media] });
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
