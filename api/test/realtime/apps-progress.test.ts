/**
 * A long install in a rollout (issue 50): while the farm host installs, it says where the job stands
 * (`host.app-progress`); the phone's row shows it ("Installing on the phone… 40 s"), a job that keeps reporting is not
 * given up on after 30 minutes, and the host's result then ends the rollout `done`. The host here is the test,
 * speaking the host's messages by hand.
 */
import { describe, expect, it } from 'vitest';
import type { AppJob } from '@farm/agent-protocol';
import type { AppRollout, AppVersion } from '@farm/contracts';
import { buildApk } from '../helpers/apk.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { APP_JOB_TIMEOUT_MS, expireAppJobs } from '../../src/modules/apps/apps.rollout.ts';
import { helloV1, send, until } from './phones.ts';
import { connected } from './sockets.ts';

const { t, url, operator, agentSocket: open, enrollHost } = await realtimeApp();

async function host(name: string, serial: string) {
  const { token } = await enrollHost(name);
  const control = open({ hostToken: token });
  const jobs: AppJob[] = [];
  control.on('app.run', (job: AppJob, ack: (answer: { ok: boolean }) => void) => {
    jobs.push(job);
    ack({ ok: true });
  });
  await connected(control);
  await send(control, 'host.hello', { agentVersion: 'test', backend: 'adb', phones: 1, features: ['apps'] });
  const phone = open({ hostToken: token, serial, model: 'Pixel 7' });
  await connected(phone);
  await send(phone, 'agent.hello', helloV1);
  return { control, jobs };
}

async function uploaded(bytes: Buffer): Promise<AppVersion> {
  const answer = await fetch(`${url}/api/apps?fileName=app.apk`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie: `sid=${operator.cookie ?? ''}` },
    body: bytes,
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as AppVersion;
}

const rollout = async (id: string) => (await operator.get<AppRollout>(`/api/apps/rollouts/${id}`)).body;

describe('a long install in a rollout', () => {
  it('shows the phone’s stage while it installs, keeps a reporting job alive, and ends done with the result', async () => {
    const rack = await host('Rack P', 'RP-1');
    const version = await uploaded(buildApk({ package: 'com.example.big', versionCode: 7, versionName: '7.0' }));
    const devices = (await operator.get('/api/devices?limit=1000')).body as { id: string; serial: string }[];
    const device = devices.find((row) => row.serial === 'RP-1')!;
    const started = await operator.post<AppRollout>('/api/apps/rollouts', { action: 'install', versionId: version.id, deviceIds: [device.id] });
    expectStatus(started, 201);
    await until(async () => rack.jobs.length === 1, 'the job');
    const jobId = started.body.id;

    // The job went out 25 minutes ago (a slow download, then a long install); the host still reports.
    await t.db
      .updateTable('appRolloutPhones')
      .set({ updatedAt: new Date(Date.now() - 25 * 60_000) })
      .where('rolloutId', '=', jobId)
      .execute();
    expect(await send(rack.control, 'host.app-progress', { jobId, serial: 'RP-1', stage: 'installing', elapsedMs: 40_500 })).toEqual({ ok: true });
    const running = await rollout(jobId);
    expect(running.status).toBe('first_stage');
    expect(running.phones[0]).toMatchObject({ status: 'sent', code: 'installing', reason: 'Installing on the phone… 40 s' });
    // Ten minutes on, 35 minutes after the job went out but 10 after the host's last word: not given up on.
    expect(await expireAppJobs(t.app.ctx, t.app.ctx.agents, new Date(Date.now() + 10 * 60_000))).toBe(0);
    expect(10 * 60_000 + 25 * 60_000).toBeGreaterThan(APP_JOB_TIMEOUT_MS);

    await send(rack.control, 'host.app-progress', { jobId, serial: 'RP-1', stage: 'installing', elapsedMs: 185_000 });
    expect((await rollout(jobId)).phones[0]?.reason).toBe('Installing on the phone… 3 min 05 s');
    await send(rack.control, 'host.app', { jobId, serial: 'RP-1', ok: true, code: null, reason: null, detail: 'Success' });
    const done = await until(async () => {
      const now = await rollout(jobId);
      return now.status === 'done' ? now : null;
    }, 'the rollout to finish');
    expect(done.phones[0]).toMatchObject({ status: 'succeeded', code: null, reason: null });
    // A late word of progress changes nothing.
    await send(rack.control, 'host.app-progress', { jobId, serial: 'RP-1', stage: 'installing', elapsedMs: 190_000 });
    expect((await rollout(jobId)).phones[0]).toMatchObject({ status: 'succeeded', code: null, reason: null });
  });
});
