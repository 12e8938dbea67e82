/**
 * Staged rollouts through a farm host (issue #42): the first stage's phones get the job, the rest only once all of
 * them succeeded; a failure there stops the rollout with the package manager's reason in words; hosts that do not
 * install apps, phones on no host, pinned groups and bad input are each answered with a sentence. The host here is
 * the test, speaking the host's messages by hand (`app.run` in, `host.app` out).
 */
import { describe, expect, it } from 'vitest';
import type { AppJob } from '@farm/agent-protocol';
import { appMessages, type AppRollout, type AppVersion, type DeviceGroup } from '@farm/contracts';
import { buildApk } from '../helpers/apk.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { APP_JOB_TIMEOUT_MS, expireAppJobs, rolloutWords } from '../../src/modules/apps/apps.rollout.ts';
import { helloV1, send, until } from './phones.ts';
import { connected } from './sockets.ts';

const { t, url, operator, va, stranger, agentSocket: open, enrollHost } = await realtimeApp();

/** A host with phones of these serials; `features` as its hello says them; the jobs it is sent, in order. */
async function host(name: string, serials: string[], features: string[] = ['apps']) {
  const { token } = await enrollHost(name);
  const control = open({ hostToken: token });
  const jobs: AppJob[] = [];
  control.on('app.run', (job: AppJob, ack: (answer: { ok: boolean }) => void) => {
    jobs.push(job);
    ack({ ok: true });
  });
  await connected(control);
  await send(control, 'host.hello', { agentVersion: 'test', backend: 'adb', phones: serials.length, features });
  const devices: { id: string; name: string; serial: string }[] = [];
  for (const serial of serials) {
    const phone = open({ hostToken: token, serial, model: 'Pixel 7' });
    await connected(phone);
    await send(phone, 'agent.hello', helloV1);
    const all = (await operator.get('/api/devices?limit=1000')).body as { id: string; name: string; serial: string }[];
    devices.push(all.find((row) => row.serial === serial)!);
  }
  const result = (serial: string, outcome: { ok: boolean; code?: string; reason?: string }, jobId: string) =>
    send(control, 'host.app', { jobId, serial, ok: outcome.ok, code: outcome.code ?? null, reason: outcome.reason ?? null, detail: null });
  return { token, control, jobs, devices, result };
}

/** Uploaded over a real connection, as a browser sends it (the body arrives as a stream, not in one piece). */
async function uploaded(bytes: Buffer, client = operator): Promise<AppVersion> {
  const answer = await fetch(`${url}/api/apps?fileName=app.apk`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie: `sid=${client.cookie ?? ''}` },
    body: bytes,
  });
  const body = (await answer.json()) as AppVersion;
  expect(answer.status, JSON.stringify(body)).toBe(201);
  return body;
}

const rollout = async (id: string) => (await operator.get<AppRollout>(`/api/apps/rollouts/${id}`)).body;

describe('staged rollouts', () => {
  it('installs on the first stage, then the rest once all of it succeeded; the host fetches the APK meanwhile', async () => {
    const rack = await host('Rack A', ['RO-1', 'RO-2', 'RO-3']);
    const version = await uploaded(buildApk({ package: 'com.example.staged', versionCode: 10, versionName: '1.0' }));
    const group = (await operator.post<DeviceGroup>('/api/groups', { name: 'Rollout A', deviceIds: rack.devices.map((device) => device.id) })).body;

    expectStatus(await va.post('/api/apps/rollouts', { action: 'install', versionId: version.id, groupId: group.id }), 403);
    const started = await operator.post<AppRollout>('/api/apps/rollouts', { action: 'install', versionId: version.id, groupId: group.id });
    expectStatus(started, 201);
    expect(started.body).toMatchObject({ status: 'first_stage', firstStageSize: 2, package: 'com.example.staged', versionName: '1.0' });
    expect(started.body.phones.map((phone) => `${phone.stage}:${phone.status}`)).toEqual(['1:sent', '1:sent', '2:waiting']);
    await until(async () => rack.jobs.length === 2, 'the first stage jobs');
    // The group's phones in its order (oldest member first): the first two, then the third.
    const order = started.body.phones.map((phone) => rack.devices.find((device) => device.id === phone.deviceId)!.serial);
    expect(rack.jobs.map((job) => job.serial).sort()).toEqual(order.slice(0, 2).sort());
    const [first, second, third] = order as [string, string, string];
    const job = rack.jobs[0]!;
    expect(job).toMatchObject({ jobId: started.body.id, action: 'install', package: 'com.example.staged', allowDowngrade: false });
    expect(job.files).toHaveLength(1);

    // The host fetches the APK with its own credential while the job waits; nobody else does.
    const key = job.files[0]!.objectKey;
    const fetched = await fetch(`${url}/api/agent/apps/${key}`, { headers: { authorization: `Bearer ${rack.token}` } });
    expect(fetched.status).toBe(200);
    expect((await fetched.arrayBuffer()).byteLength).toBe(job.files[0]!.size);
    expect((await fetch(`${url}/api/agent/apps/${key}`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);

    expect(await rack.result(first, { ok: true }, job.jobId)).toEqual({ ok: true });
    expect((await rollout(job.jobId)).status).toBe('first_stage');
    await rack.result(second, { ok: true }, job.jobId);
    await until(async () => rack.jobs.length === 3, 'the rest');
    expect(rack.jobs[2]?.serial).toBe(third);
    expect((await rollout(job.jobId)).status).toBe('rest');
    // A repeated answer changes nothing.
    await rack.result(first, { ok: false, code: 'INSTALL_FAILED_INTERNAL_ERROR', reason: 'late' }, job.jobId);
    await rack.result(third, { ok: true }, job.jobId);
    const done = await until(async () => {
      const now = await rollout(job.jobId);
      return now.status === 'done' ? now : null;
    }, 'the rollout to finish');
    expect(done.phones.map((phone) => phone.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(done.finishedAt).not.toBeNull();
    // Once no job waits, the APK is not served to the host any more.
    expect((await fetch(`${url}/api/agent/apps/${key}`, { headers: { authorization: `Bearer ${rack.token}` } })).status).toBe(404);
  });

  it('stops after a failed first stage: the reason in words, the rest not sent', async () => {
    const rack = await host('Rack B', ['RF-1', 'RF-2', 'RF-3', 'RF-4']);
    const version = await uploaded(buildApk({ package: 'com.example.failing', versionCode: 3 }));
    const started = await operator.post<AppRollout>('/api/apps/rollouts', {
      action: 'update',
      versionId: version.id,
      deviceIds: rack.devices.map((device) => device.id),
      firstStageSize: 1,
    });
    expectStatus(started, 201);
    await until(async () => rack.jobs.length === 1, 'the first job');
    await rack.result(
      'RF-1',
      { ok: false, code: 'INSTALL_FAILED_UPDATE_INCOMPATIBLE', reason: 'The installed app was signed by someone else: uninstall it first (its data is lost).' },
      started.body.id,
    );
    const stopped = await until(async () => {
      const now = await rollout(started.body.id);
      return now.status === 'stopped' ? now : null;
    }, 'the rollout to stop');
    expect(stopped.phones[0]).toMatchObject({ status: 'failed', code: 'INSTALL_FAILED_UPDATE_INCOMPATIBLE' });
    expect(stopped.phones.slice(1).map((phone) => `${phone.status}:${phone.reason}`)).toEqual(
      Array(3).fill('skipped:Not sent: a phone of the first stage failed.'),
    );
    expect(rack.jobs).toHaveLength(1);
  });

  it('sends a host that comes back the jobs it took and did not answer', async () => {
    const rack = await host('Rack R', ['RR-1']);
    const version = await uploaded(buildApk({ package: 'com.example.again', versionCode: 2 }));
    const started = await operator.post<AppRollout>('/api/apps/rollouts', { action: 'install', versionId: version.id, deviceIds: [rack.devices[0]!.id] });
    expectStatus(started, 201);
    await until(async () => rack.jobs.length === 1, 'the job');
    // The host goes away before answering (a restart), then its control connection comes back.
    rack.control.disconnect();
    const control = open({ hostToken: rack.token });
    const again: AppJob[] = [];
    control.on('app.run', (job: AppJob, ack: (answer: { ok: boolean }) => void) => {
      again.push(job);
      ack({ ok: true });
    });
    await connected(control);
    await send(control, 'host.hello', { agentVersion: 'test', backend: 'adb', phones: 1, features: ['apps'] });
    await until(async () => again.length === 1, 'the job sent again');
    expect(again[0]).toEqual(rack.jobs[0]);
    await send(control, 'host.app', { jobId: started.body.id, serial: 'RR-1', ok: true, code: null, reason: null, detail: null });
    await until(async () => (await rollout(started.body.id)).status === 'done', 'the rollout to finish');
  });

  it('fails a phone whose host took the job and never answered, so the rollout stops rather than waiting for ever', async () => {
    const rack = await host('Rack S', ['RS-1', 'RS-2']);
    const version = await uploaded(buildApk({ package: 'com.example.silent', versionCode: 4 }));
    const started = await operator.post<AppRollout>('/api/apps/rollouts', {
      action: 'install',
      versionId: version.id,
      deviceIds: rack.devices.map((device) => device.id),
      firstStageSize: 1,
    });
    expectStatus(started, 201);
    await until(async () => rack.jobs.length === 1, 'the first job');
    // Not yet overdue: nothing changes.
    expect(await expireAppJobs(t.app.ctx, t.app.ctx.agents)).toBe(0);
    const later = new Date(Date.now() + APP_JOB_TIMEOUT_MS + 1000);
    // Two instances sweeping at once fail the phone once.
    const swept = await Promise.all([expireAppJobs(t.app.ctx, t.app.ctx.agents, later), expireAppJobs(t.app.ctx, t.app.ctx.agents, later)]);
    expect(swept[0] + swept[1]).toBe(1);
    const stopped = await rollout(started.body.id);
    expect(stopped.status).toBe('stopped');
    expect(stopped.phones.map((phone) => `${phone.status}:${phone.code ?? ''}`)).toEqual(['failed:no_answer', 'skipped:stage_failed']);
    expect(stopped.phones[0]!.reason).toBe(rolloutWords.no_answer);
    // The host's late answer changes nothing.
    await rack.result(stopped.phones[0]!.deviceId === rack.devices[0]!.id ? 'RS-1' : 'RS-2', { ok: true }, started.body.id);
    expect((await rollout(started.body.id)).phones[0]!.status).toBe('failed');
    expect(rack.jobs).toHaveLength(1);
  });

  it('fails a phone at once when its host cannot install apps or it has no host, and keeps protocol-1 hosts working', async () => {
    const old = await host('Rack Old', ['OLD-1'], []);
    const loose = await buildDevice(operator, { name: 'Loose phone' });
    const version = await uploaded(buildApk({ package: 'com.example.old', versionCode: 1 }));
    const started = await operator.post<AppRollout>('/api/apps/rollouts', {
      action: 'install',
      versionId: version.id,
      deviceIds: [old.devices[0]!.id, loose.id],
    });
    expectStatus(started, 201);
    expect(started.body.status).toBe('stopped');
    expect(started.body.phones.map((phone) => phone.code)).toEqual(['host_outdated', 'not_on_host']);
    expect(old.jobs).toEqual([]);
  });

  it('refuses a rollout past a group’s pinned version, and bad input, writing nothing', async () => {
    const rack = await host('Rack P', ['PIN-1']);
    const pinned = await uploaded(buildApk({ package: 'com.example.pinned', versionCode: 5, versionName: '5.0' }));
    const newer = await uploaded(buildApk({ package: 'com.example.pinned', versionCode: 6, versionName: '6.0' }));
    const group = (await operator.post<DeviceGroup>('/api/groups', { name: 'Held', deviceIds: [rack.devices[0]!.id] })).body;
    expectStatus(await operator.put('/api/apps/pins', { groupId: group.id, versionId: pinned.id }), 200);
    const name = rack.devices[0]!.name;
    expectError(
      await operator.post('/api/apps/rollouts', { action: 'update', versionId: newer.id, deviceIds: [rack.devices[0]!.id] }),
      409,
      appMessages.pinnedPast(name, 'Held', 'com.example.pinned', '5.0'),
    );
    // The pinned version itself, and removing the app, are allowed.
    expectStatus(await operator.post('/api/apps/rollouts', { action: 'install', versionId: pinned.id, groupId: group.id }), 201);

    const theirs = await buildDevice(stranger, { name: 'Not yours' });
    expectFieldError(
      await operator.post('/api/apps/rollouts', { action: 'install', versionId: newer.id, deviceIds: [theirs.id] }),
      'deviceIds',
      `A phone was not found in this workspace: ${theirs.id}`,
    );
    expectFieldError(
      await operator.post('/api/apps/rollouts', { action: 'install', deviceIds: [rack.devices[0]!.id] }),
      'versionId',
      'Choose the version to install',
    );
    expectFieldError(await operator.post('/api/apps/rollouts', { action: 'remove', deviceIds: [rack.devices[0]!.id] }), 'package', 'Choose the app to remove');
    expectFieldError(await operator.post('/api/apps/rollouts', { action: 'install', versionId: newer.id }), 'deviceIds', 'Choose phones or a group');
    expectFieldError(
      await operator.post('/api/apps/rollouts', { action: 'install', versionId: newer.id, deviceIds: [rack.devices[0]!.id], firstStageSize: 0 }),
      'firstStageSize',
      'First stage must be at least 1 phone',
    );
    expectFieldError(
      await stranger.post('/api/apps/rollouts', { action: 'install', versionId: newer.id, deviceIds: [theirs.id] }),
      'versionId',
      'The version was not found in this workspace’s app library',
    );
    const listed = (await operator.get<AppRollout[]>('/api/apps/rollouts')).body;
    expect(listed.filter((row) => row.package === 'com.example.pinned')).toHaveLength(1);
    expect((await stranger.get<AppRollout[]>('/api/apps/rollouts')).body).toEqual([]);
    expectStatus(await stranger.get(`/api/apps/rollouts/${listed[0]!.id}`), 404);
    // A version whose rollout is under way stays in the library, pinned or not.
    expectStatus(await operator.delete(`/api/apps/pins/${group.id}/com.example.pinned`), 200);
    expectError(await operator.delete(`/api/apps/${pinned.id}`), 409, appMessages.versionInUse);
  });
});
