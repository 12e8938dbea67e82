/**
 * A dry run cannot copy a file of the farm host onto a phone, and does not outlive its starter's rights.
 *
 * The attacks: a VA dry-runs a draft recipe on their phone with `params.media` naming the host's `/etc/passwd` or
 * adb's private key (which every phone of the farm trusts), hoping the agent copies it to the phone to be read through
 * live control; or names such a path, or another workspace's upload, as a picked file. Each is a 400 naming the field,
 * and the phone is never asked. What a dry run may carry is a stored upload of the workspace, which the phone fetches
 * from the console as it fetches a post's media, and only while the run is under way.
 *
 * And a VA whose phone is taken from them (or who is deactivated) can no longer step a run they started on it: the
 * run ends with a reason, the phone is told to stop.
 */
import type { Socket } from 'socket.io-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { DRY_RUN_PARAMS_MEDIA, type DryRun, type DryRunPreflight } from '@farm/contracts';
import { inviteVa, type Client } from '../helpers/app.ts';
import { uploadImage } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, enrolledPhone, send, until } from '../realtime/phones.ts';
import { connected } from '../realtime/sockets.ts';

let recipeRowId: string;
const { t, url, operator, va, stranger, closers } = await realtimeApp();

beforeAll(async () => {
  // The shipped post recipe: its share_media step copies the run's media to the phone.
  const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post');
  const saved = await operator.post<{ id: string }>('/api/recipes', { recipe: { ...template.body.body, version: 9 } });
  expect(saved.status).toBe(201);
  recipeRowId = saved.body.id;
});

interface FakePhone {
  socket: Socket;
  token: string;
  device: { id: string; name: string };
  starts: Record<string, unknown>[];
  stops: string[];
}

/** A phone assigned to the VA whose agent listed `dryrun`, taking every run it is sent. */
async function dryRunPhone(name: string, assignedToId = va.user!.id): Promise<FakePhone> {
  const { device, token } = await enrolledPhone(operator, { name, assignedToId });
  const socket = bareAgent(url, token);
  closers.push(() => socket.disconnect());
  const phone: FakePhone = { socket, token, device, starts: [], stops: [] };
  socket.on('dryrun.start', (message: Record<string, unknown>, ack: (answer: unknown) => void) => {
    phone.starts.push(message);
    ack({ ok: true });
  });
  socket.on('dryrun.stop', (message: { runId: string }) => phone.stops.push(message.runId));
  await connected(socket);
  expect((await send(socket, 'agent.hello', { protocol: 2, agentVersion: 'test-media', battery: 80, features: ['dryrun'] })).ok).toBe(true);
  return phone;
}

type Answer = DryRun & { error?: string; details?: { field: string; message: string }[] };
const start = (client: Client, body: Record<string, unknown>) => client.post<Answer>('/api/dry-runs', body);
const fetchAsPhone = (token: string, objectPath: string) =>
  fetch(`${url}/api/agent/media/${objectPath.split('/').pop()!}`, { headers: { authorization: `Bearer ${token}` } });

describe('a dry run copies no file of the farm host', () => {
  it("refuses a VA's params.media naming /etc/passwd or the adb key, naming the field, and asks the phone nothing", async () => {
    const phone = await dryRunPhone('Pixel attacked');
    for (const path of ['/etc/passwd', '~/.android/adbkey', '/root/.android/adbkey', '/proc/self/environ']) {
      const answer = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false, params: { media: [path] } });
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toBe(DRY_RUN_PARAMS_MEDIA);
      expect(answer.body.details).toEqual([{ field: 'params.media', message: DRY_RUN_PARAMS_MEDIA }]);
    }
    // Even an empty list or a stored object's address: files never travel in params.
    const empty = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false, params: { media: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.details?.[0]?.field).toBe('params.media');
    expect(phone.starts).toEqual([]);
    const runs = await operator.get<DryRun[]>(`/api/dry-runs?recipeId=${recipeRowId}`);
    expect(runs.body.filter((run) => run.deviceId === phone.device.id)).toEqual([]);
  });

  it("refuses a picked file that is a path, another workspace's upload or a reservation never uploaded", async () => {
    const phone = await dryRunPhone('Pixel picks');
    const foreign = await uploadImage(stranger);
    const reserved = (await va.post<{ url: string }>('/api/objects/upload', {})).body.url.split('?')[0]!;
    for (const [media, message] of [
      [['/etc/passwd'], 'Media must be files uploaded to this workspace (an object id or /api/objects/<id>), never a path'],
      [['file:///home/farm/.android/adbkey'], 'Media must be files uploaded to this workspace (an object id or /api/objects/<id>), never a path'],
      [[foreign], 'Media must be files uploaded to this workspace; this one is not'],
      [[reserved], 'Media must be files uploaded to this workspace; this one is not'],
    ] as const) {
      const answer = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false, media });
      expect(answer.status, media[0]).toBe(400);
      expect(answer.body.details).toEqual([{ field: 'media.0', message }]);
    }
    expect(phone.starts).toEqual([]);
  });

  it('sends a picked stored upload to the phone as an address it fetches from the console, only while the run is under way', async () => {
    const phone = await dryRunPhone('Pixel picked');
    const preflight = await va.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    expect(preflight.body.needsMedia).toBe(true);
    const image = await uploadImage(va);
    const id = image.split('/').pop()!;
    // Before any run picked it, the phone may not fetch it.
    expect((await fetchAsPhone(phone.token, image)).status).toBe(404);

    const started = await start(va, {
      recipeId: recipeRowId,
      deviceId: phone.device.id,
      mode: 'step',
      effects: false,
      media: [`https://console.example.com${image}`],
    });
    expect(started.status).toBe(201);
    expect(phone.starts).toHaveLength(1);
    expect(phone.starts[0]).toMatchObject({ media: [`/api/objects/${id}`], params: { caption: 'Dry run' } });
    expect(phone.starts[0]!.params).not.toHaveProperty('media');
    const fetched = await fetchAsPhone(phone.token, image);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    // Another phone, even of the same workspace, does not get it.
    const other = await dryRunPhone('Pixel other');
    expect((await fetchAsPhone(other.token, image)).status).toBe(404);

    const audit = await t.db
      .selectFrom('auditLog')
      .select(['data'])
      .where('entityId', '=', started.body.id)
      .where('action', '=', 'dryrun.started')
      .executeTakeFirstOrThrow();
    expect(audit.data).toMatchObject({ media: [id] });
    expect((await va.post(`/api/dry-runs/${started.body.id}/stop`)).status).toBe(202);
    expect(await send(phone.socket, 'dryrun.result', { runId: started.body.id, outcome: 'stopped', steps: 0, durationMs: 10 })).toEqual({ ok: true });
    expect((await fetchAsPhone(phone.token, image)).status).toBe(404);
  });
});

describe('a dry run does not outlive its starter’s rights', () => {
  it('a VA whose phone was reassigned cannot step the run, and the run ends', async () => {
    const phone = await dryRunPhone('Pixel taken');
    const started = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'step', effects: false });
    expect(started.status).toBe(201);
    // Reassigned behind the feed's back (another instance, Redis lost): the next step checks again.
    const other = await inviteVa(t.app, operator, 'Otto Other');
    await t.db.updateTable('devices').set({ assignedToId: other.user!.id }).where('id', '=', phone.device.id).execute();
    const next = await va.post(`/api/dry-runs/${started.body.id}/next`);
    expect(next.status).toBe(403);
    expect(next.body.error).toBe('You can step through only dry runs on phones assigned to you; Pixel taken is not any more, and its dry run was ended');
    // The phone's screens are no longer theirs to see, the run's trace included; an operator reads how it ended.
    expect((await va.get(`/api/dry-runs/${started.body.id}`)).status).toBe(403);
    const run = await operator.get<DryRun>(`/api/dry-runs/${started.body.id}`);
    expect(run.body).toMatchObject({
      status: 'stopped',
      failure: {
        code: 'access_changed',
        message: 'Stopped: the person who started it may no longer control this phone (it was reassigned, or their role changed)',
      },
    });
    await until(async () => phone.stops.includes(started.body.id), 'the phone told to stop');
    // Stepping an ended run is refused; its late result is not taken.
    expect((await va.post(`/api/dry-runs/${started.body.id}/next`)).status).toBe(409);
    expect((await send(phone.socket, 'dryrun.result', { runId: started.body.id, outcome: 'passed', steps: 1, durationMs: 10 })).ok).toBe(false);
    const audit = await t.db.selectFrom('auditLog').select('action').where('entityId', '=', started.body.id).orderBy('id').execute();
    expect(audit.map((row) => row.action)).toEqual(['dryrun.started', 'dryrun.access_ended']);
  });

  it('ends the run at once when an operator reassigns the phone, or deactivates the VA', async () => {
    const phone = await dryRunPhone('Pixel reassigned');
    const started = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'step', effects: false });
    expect(started.status).toBe(201);
    expect((await operator.patch(`/api/devices/${phone.device.id}`, { assignedToId: null })).status).toBe(200);
    await until(async () => (await operator.get<DryRun>(`/api/dry-runs/${started.body.id}`)).body.status === 'stopped', 'the run ended');
    await until(async () => phone.stops.includes(started.body.id), 'the phone told to stop');

    // An operator's own run on that phone goes on: an operator may control any phone.
    const kept = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'step', effects: false });
    expect(kept.status).toBe(201);
    expect((await operator.patch(`/api/devices/${phone.device.id}`, { assignedToId: va.user!.id })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await operator.get<DryRun>(`/api/dry-runs/${kept.body.id}`)).body.status).toBe('running');
    expect((await operator.post(`/api/dry-runs/${kept.body.id}/stop`)).status).toBe(202);
    await send(phone.socket, 'dryrun.result', { runId: kept.body.id, outcome: 'stopped', steps: 0, durationMs: 10 });

    const leaving = await inviteVa(t.app, operator, 'Lea Leaving');
    const hers = await dryRunPhone('Pixel hers', leaving.user!.id);
    const run = await start(leaving, { recipeId: recipeRowId, deviceId: hers.device.id, mode: 'straight', effects: false });
    expect(run.status).toBe(201);
    expect((await operator.patch(`/api/users/${leaving.user!.id}`, { isActive: false })).status).toBe(200);
    await until(async () => (await operator.get<DryRun>(`/api/dry-runs/${run.body.id}`)).body.status === 'stopped', 'the run ended');
    expect((await operator.get<DryRun>(`/api/dry-runs/${run.body.id}`)).body.failure).toMatchObject({ code: 'access_changed' });
  });
});

describe('the upgrade', () => {
  it('writes each past dry run that copied files to its phone to the audit log', async () => {
    const { readFile } = await import('node:fs/promises');
    const script = await readFile(new URL('../../../sql/migrations/0051_dry_run_media.sql', import.meta.url), 'utf8');
    const insert = script.slice(script.indexOf('INSERT INTO audit_log'));
    const { workspaceId } = await t.db.selectFrom('workspaceRecipes').select('workspaceId').where('id', '=', recipeRowId).executeTakeFirstOrThrow();
    const past = await t.db
      .insertInto('recipeDryRuns')
      .values({
        workspaceId,
        recipeRowId,
        recipeId: 'instagram.post',
        recipeVersion: 9,
        deviceId: null,
        startedById: va.user!.id,
        accountId: null,
        mode: 'straight',
        effects: true,
        status: 'passed',
        actions: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('recipeTraceSteps')
      .values({
        dryRunId: past.id,
        workspaceId,
        seq: 1,
        path: '0',
        do: 'push_media',
        label: 'Push the media',
        verdict: 'done',
        detail: '/sdcard/DCIM/Farm/adbkey',
        ms: 10,
      })
      .execute();
    const { sql } = await import('kysely');
    await sql.raw(insert).execute(t.db);
    const rows = await t.db.selectFrom('auditLog').select(['action', 'actorId', 'data']).where('entityId', '=', past.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'dryrun.host_media',
      actorId: va.user!.id,
      data: { recipeId: 'instagram.post', steps: [{ seq: 1, do: 'push_media', verdict: 'done', detail: '/sdcard/DCIM/Farm/adbkey' }] },
    });
  });
});
