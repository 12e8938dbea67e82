/**
 * A farm host restarting its adb server (issue #41's ladder), against a real console: while it holds its phones the
 * server gives them no new work, a task still running when the drain ends is cut off and fails `device_offline`, and
 * that task goes out again (and runs again on the phone) once the host lets go. The host is `farm-agent host --backend
 * sim` in process; its recipe clock stands still until the test lets it go on, so a post stays running.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '@farm/agent-protocol';
import { AgentState } from '@farm/agent-protocol/agent';
import { FarmHost } from '@farm/agent-protocol/host';
import { buildAccount, uploadImage } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { duePost, until } from './phones.ts';

let host: FarmHost | undefined;
let stateDir: string;

/** A recipe clock whose sleeps wait while `stalled` (a phone busy with a long step), and pass at once otherwise. */
const clock = (() => {
  let now = Date.now();
  let stalled = true;
  let waiting: (() => void)[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      if (stalled) await new Promise<void>((resolve) => waiting.push(resolve));
      now += ms;
    },
    set stalled(value: boolean) {
      stalled = value;
      if (!value) for (const resolve of waiting.splice(0)) resolve();
      waiting = [];
    },
  };
})();
const { t, url, operator, enrollHost } = await realtimeApp({ automation: { heartbeatMs: 1000 } });

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'farm-host-hold-'));
});
afterAll(async () => {
  clock.stalled = false;
  await host?.close();
  await rm(stateDir, { recursive: true, force: true });
});

/** A post with an image of an account on the phone, due now and turned into its task. */
async function duePostWithImage(deviceId: string, caption: string) {
  const account = await buildAccount(operator, { deviceId, status: 'active' });
  const post = await duePost(t, operator, account.id, { caption, mediaUrls: [await uploadImage(operator)] });
  return t.db.selectFrom('tasks').select('id').where('postId', '=', post.id).executeTakeFirstOrThrow();
}

const taskRow = (id: string) =>
  t.db
    .selectFrom('tasks')
    .select(['status', 'attempt', 'dispatchedAt', 'failureCode', 'failureMessage', 'nextAttemptAt'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('an adb server restart on a farm host', () => {
  it('holds the phones from new work, cuts the running task off as device_offline, and tries it again after', async () => {
    // The shipped post template rests on claims no public source shows (it is off by default): the farm lets it run on
    // its simulated phones, whose screens come from the recipes' fixtures.
    expect((await operator.put('/api/recipes/settings', { tryUntestedTemplates: true })).status).toBe(200);
    const { token } = await enrollHost('Rack hold');
    host = new FarmHost({
      server: url,
      token,
      state: new AgentState(stateDir),
      backend: 'sim',
      devices: 1,
      recipeOptions: { clock, pollMs: 5, busyPauseMs: 5 },
    });
    await host.start();
    const device = await until(async () => {
      const rows = (await operator.get('/api/devices')).body as { id: string; serial: string; status: string }[];
      return rows.find((row) => row.serial === 'SIM-0001' && row.status !== 'offline');
    }, 'the phone online');
    const agent = host.agent('SIM-0001')!;
    await until(async () => agent.connected, 'the agent said hello');

    // A post runs on the phone (its clock stands still), and a second one waits behind it.
    const first = await duePostWithImage(device.id, 'First drop');
    await until(async () => (await taskRow(first.id)).status === 'in-progress' && agent.busy, 'the first post running');
    const second = await duePostWithImage(device.id, 'Second drop');

    // The host restarts its adb server: a short drain, then the post still running is cut off.
    const holding = host.hold(100, 5_000);
    setTimeout(() => (clock.stalled = false), 300);
    await holding;
    clock.stalled = true;
    const cut = await until(async () => {
      const row = await taskRow(first.id);
      return row.failureCode === 'device_offline' ? row : undefined;
    }, 'the cut-off result');
    expect(cut).toMatchObject({ status: 'pending', attempt: 1, dispatchedAt: null });
    expect(cut.nextAttemptAt).not.toBeNull();
    const journal = new Journal(new AgentState(stateDir).journalPath('SIM-0001'));
    expect(journal.get(first.id)).toMatchObject({
      state: 'done',
      sent: true,
      result: { status: 'failed', failure: { code: 'device_offline', retryable: true } },
    });

    // Held: the phone is free and the second post is ready, yet nothing goes out, on the result's wake or the sweeps.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await taskRow(second.id)).toMatchObject({ status: 'pending', dispatchedAt: null, attempt: 0 });
    expect(agent.busy).toBe(false);

    // The host lets go: the waiting post goes out at once.
    clock.stalled = false;
    host.release();
    await until(async () => (await taskRow(second.id)).status === 'completed', 'the second post published', 10_000);

    // The cut-off post's backoff ends: it goes out again as attempt 2 and runs again on the phone.
    await t.db
      .updateTable('tasks')
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where('id', '=', first.id)
      .execute();
    const retried = await until(
      async () => {
        const row = await taskRow(first.id);
        return row.status === 'completed' ? row : undefined;
      },
      'the cut-off post tried again',
      10_000,
    );
    expect(retried).toMatchObject({ attempt: 2, failureCode: null });
    const attempts = await t.db
      .selectFrom('taskAttempts')
      .select(['attempt', 'outcome', 'failureCode'])
      .where('taskId', '=', first.id)
      .orderBy('attempt')
      .execute();
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', failureCode: 'device_offline' }),
      expect.objectContaining({ attempt: 2, outcome: 'completed' }),
    ]);
  });
});
