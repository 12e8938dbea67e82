/**
 * Dry runs over real HTTP and sockets: a protocol 2 phone that listed `dryrun` (driven by the test) takes a run,
 * sends its steps with a real frame and tree (drawn and dumped by the simulated phone from its recorded screens) and
 * its result. Covers the pre-flight, who may start and steer a run, the refusals (offline, old agent, busy, someone
 * else in control, a paused account), step by step with next and stop, a pass counting caps and adding a
 * verification, the phone leaving, the silent-run sweep, and the dispatcher holding the phone's tasks meanwhile.
 */
import type { Socket } from 'socket.io-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureTree, parseUiXml } from '@farm/agent-protocol/recipes';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import type { DryRun, DryRunDetail, DryRunPreflight } from '@farm/contracts';
import { sweepSilentRuns } from '../../src/modules/dryruns/dryruns.service.ts';
import { inviteVa, type Client } from '../helpers/app.ts';
import { buildAccount } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, duePostTask, enrolledPhone, helloV1, send, until } from '../realtime/phones.ts';
import { connect, connected, next, pause, record } from '../realtime/sockets.ts';

const IG = 'com.instagram.android';
/** A version outside the shipped warm-up's tested range: only a verification covers it. */
const NEW_IG = '448.0.0.12.90';

let recipeRowId: string;
const ui = new SimulatedPhoneUi({ serial: 'SIM-DRY', width: 1080, height: 2400 });
const { t, url, operator, va, stranger, closers } = await realtimeApp({ automation: { heartbeatMs: 1000 } });
// Closed after the phones that run on it.
closers.push(() => ui.close());

beforeAll(async () => {
  const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.warmup');
  const saved = await operator.post<{ id: string }>('/api/recipes', { recipe: { ...template.body.body, version: 7 } });
  expect(saved.status).toBe(201);
  recipeRowId = saved.body.id;
  await ui.launchApp(IG);
});

interface FakePhone {
  socket: Socket;
  device: { id: string; name: string };
  starts: Record<string, unknown>[];
  nexts: string[];
  stops: string[];
}

/** A phone assigned to the VA, its agent listing `dryrun` (or not), answering a start as told. */
async function dryRunPhone(options: { features?: string[]; refuse?: string; name?: string; version?: string } = {}): Promise<FakePhone> {
  const { device, token } = await enrolledPhone(operator, { name: options.name ?? 'Pixel dry', assignedToId: va.user!.id });
  const socket = bareAgent(url, token);
  closers.push(() => socket.disconnect());
  const phone: FakePhone = { socket, device, starts: [], nexts: [], stops: [] };
  socket.on('dryrun.start', (message: Record<string, unknown>, ack: (answer: unknown) => void) => {
    phone.starts.push(message);
    ack(options.refuse ? { ok: false, error: options.refuse } : { ok: true });
  });
  socket.on('dryrun.next', (message: { runId: string }) => phone.nexts.push(message.runId));
  socket.on('dryrun.stop', (message: { runId: string }) => phone.stops.push(message.runId));
  await connected(socket);
  const hello = await send(socket, 'agent.hello', {
    protocol: 2,
    agentVersion: 'test-dry',
    battery: 80,
    features: options.features ?? ['inspect', 'dryrun'],
    apps: [{ package: IG, version: options.version ?? NEW_IG }],
  });
  expect(hello.ok).toBe(true);
  return phone;
}

/** One step as the phone traces it: the simulated phone's frame and tree of its screen now. */
async function traceStep(seq: number, extra: Record<string, unknown> = {}) {
  const frame = await ui.frame({ maxSide: 720 });
  const tree = captureTree(parseUiXml(ui.uiXml()));
  const node = tree.nodes.findIndex((candidate) => candidate.clickable);
  return {
    seq,
    path: String(seq - 1),
    do: 'tap',
    label: `Step ${seq}`,
    verdict: 'done',
    selector: { desc: 'Home' },
    matched: { node, bounds: tree.nodes[node]!.bounds },
    ms: 420,
    frame: { mime: frame.mime, data: new Uint8Array(frame.data), width: frame.width, height: frame.height },
    tree,
    ...extra,
  };
}

const start = (client: Client, body: Record<string, unknown>) => client.post<DryRun & { error?: string; details?: { field: string }[] }>('/api/dry-runs', body);

describe('the pre-flight', () => {
  it("shows the phone's account, its app version and coverage, and the counted actions with today's caps left", async () => {
    const phone = await dryRunPhone({ name: 'Pixel preflight' });
    const account = await buildAccount(operator, { deviceId: phone.device.id, platform: 'instagram', status: 'active', username: 'sunny.trails' });
    const answer = await operator.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      device: { id: phone.device.id, online: true, canDryRun: true },
      account: { id: account.id, username: 'sunny.trails', paused: false },
      app: { package: IG, version: NEW_IG },
      coverage: { covered: false },
      blocked: null,
    });
    expect(answer.body.counted).toEqual([{ action: 'like', cap: expect.any(Number), left: expect.any(Number) }]);
    // The VA sees their own phone's; a phone not theirs is refused; another workspace's recipe is not found.
    expect((await va.get(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`)).status).toBe(200);
    const { device: notTheirs } = await enrolledPhone(operator, { name: 'Pixel not theirs' });
    const refused = await va.get(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${notTheirs.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('A VA dry-runs recipes only on the phones assigned to them');
    const foreign = await stranger.get(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe('That recipe is not in this workspace');
    const bad = await operator.get(`/api/dry-runs/preflight?recipeId=nope&deviceId=${phone.device.id}`);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('recipeId');
  });
});

describe('starting', () => {
  it('refuses bad input naming the field', async () => {
    const phone = await dryRunPhone({ name: 'Pixel input' });
    for (const [body, field] of [
      [{ deviceId: phone.device.id, mode: 'step', effects: false }, 'recipeId'],
      [{ recipeId: recipeRowId, deviceId: phone.device.id, mode: 'sideways', effects: false }, 'mode'],
      [{ recipeId: recipeRowId, deviceId: phone.device.id, mode: 'step', effects: 'yes' }, 'effects'],
      [{ recipeId: recipeRowId, deviceId: '00000000-0000-4000-8000-000000000000', mode: 'step', effects: false }, 'deviceId'],
    ] as const) {
      const answer = await start(operator, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.details?.[0]?.field).toBe(field);
    }
  });

  it('refuses an offline phone, an old agent, a busy phone, a phone someone else controls, and effects on a paused account', async () => {
    const { device: offline } = await enrolledPhone(operator, { name: 'Pixel asleep' });
    const gone = await start(operator, { recipeId: recipeRowId, deviceId: offline.id, mode: 'straight', effects: false });
    expect(gone.status).toBe(409);
    expect(gone.body.error).toBe('Pixel asleep is offline');

    const { device: old, token } = await enrolledPhone(operator, { name: 'Pixel v1' });
    const v1 = bareAgent(url, token);
    closers.push(() => v1.disconnect());
    await connected(v1);
    await send(v1, 'agent.hello', helloV1);
    const outdated = await start(operator, { recipeId: recipeRowId, deviceId: old.id, mode: 'straight', effects: false });
    expect(outdated.status).toBe(409);
    expect(outdated.body.error).toBe('Update farm-agent on this phone to dry-run recipes');

    const phone = await dryRunPhone({ name: 'Pixel busy' });
    const first = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'step', effects: false });
    expect(first.status).toBe(201);
    const second = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('Another dry run is under way on Pixel busy');
    expect(phone.starts).toHaveLength(1);

    const held = await dryRunPhone({ name: 'Pixel held' });
    await t.db.updateTable('devices').set({ controlledById: operator.user!.id }).where('id', '=', held.device.id).execute();
    const controlled = await start(va, { recipeId: recipeRowId, deviceId: held.device.id, mode: 'straight', effects: false });
    expect(controlled.status).toBe(409);
    expect(controlled.body.error).toBe('Someone else controls Pixel held; try again once they release it');

    const paused = await dryRunPhone({ name: 'Pixel paused' });
    const account = await buildAccount(operator, { deviceId: paused.device.id, platform: 'instagram', status: 'active', username: 'paused.one' });
    await t.db
      .updateTable('accounts')
      .set({ status: 'paused', pausedCode: 'rate_limited', pausedMessage: 'Try again later' })
      .where('id', '=', account.id)
      .execute();
    const preflight = await va.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${paused.device.id}`);
    expect(preflight.body.account).toMatchObject({ username: 'paused.one', paused: true });
    const withEffects = await start(va, { recipeId: recipeRowId, deviceId: paused.device.id, mode: 'straight', effects: true });
    expect(withEffects.status).toBe(409);
    expect(withEffects.body.error).toBe('@paused.one is paused for safety: start a run with no effects, or resume the account first');
    expect(withEffects.body.details?.[0]?.field).toBe('effects');
    const noEffects = await start(va, { recipeId: recipeRowId, deviceId: paused.device.id, mode: 'straight', effects: false });
    expect(noEffects.status).toBe(201);
    expect(paused.starts[0]).toMatchObject({ effects: false, params: { caption: 'Dry run', accounts: ['paused.one'] }, preflight: { account: 'paused.one' } });
  });

  it("fails the run with the phone's words when the phone refuses it", async () => {
    const phone = await dryRunPhone({ name: 'Pixel no', refuse: 'Instagram is not installed' });
    const answer = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('Pixel no refused the dry run: Instagram is not installed');
    const runs = await operator.get<DryRun[]>(`/api/dry-runs?recipeId=${recipeRowId}`);
    expect(runs.body.find((run) => run.deviceName === 'Pixel no')).toMatchObject({ status: 'failed', failure: { code: 'refused' } });
  });
});

describe('a run', () => {
  it('goes step by step with next and stop, keeps its trace, and holds the phone’s tasks meanwhile', async () => {
    const phone = await dryRunPhone({ name: 'Pixel steps' });
    const dispatched: unknown[] = [];
    phone.socket.on('task.dispatch', (message: unknown) => dispatched.push(message));
    const started = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'step', effects: false });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'running', mode: 'step', effects: false, recipeVersion: 7, startedByName: 'Olga Operator' });
    const runId = started.body.id;
    expect(phone.starts[0]).toMatchObject({ runId, mode: 'step', effects: false, recipe: { id: 'instagram.warmup', version: 7 } });

    // Work for the phone waits while the run is under way.
    const { task } = await duePostTask(t, operator, phone.device.id, 'Waits for the dry run');
    await t.app.ctx.agents!.dispatcher.wake(phone.device.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dispatched).toHaveLength(0);
    expect((await t.db.selectFrom('tasks').select('dispatchedAt').where('id', '=', task.id).executeTakeFirstOrThrow()).dispatchedAt).toBeNull();

    // Only the person who started it, or an operator, steers it.
    const byVa = await va.post(`/api/dry-runs/${runId}/next`);
    expect(byVa.status).toBe(403);
    expect(byVa.body.error).toBe('Only the person who started this dry run or an operator can step through it');
    expect((await stranger.post(`/api/dry-runs/${runId}/next`)).status).toBe(404);

    expect(await send(phone.socket, 'dryrun.step', { runId, step: await traceStep(1) })).toEqual({ ok: true });
    expect((await operator.post(`/api/dry-runs/${runId}/next`)).status).toBe(202);
    expect(await send(phone.socket, 'dryrun.step', { runId, step: await traceStep(2) })).toEqual({ ok: true });
    expect((await operator.post(`/api/dry-runs/${runId}/next`)).status).toBe(202);
    await until(async () => phone.nexts.length === 2, 'two nexts heard');
    expect(phone.nexts).toEqual([runId, runId]);
    // The step before the counted one: the run stops there with no effects.
    expect(
      await send(phone.socket, 'dryrun.step', {
        runId,
        step: await traceStep(3, { do: 'toggle', label: 'Like the post', verdict: 'stopped', detail: 'No effects: stopped before a step that likes' }),
      }),
    ).toEqual({ ok: true });
    // A step sent twice is kept once.
    expect(await send(phone.socket, 'dryrun.step', { runId, step: await traceStep(3) })).toEqual({ ok: true });

    const detail = await operator.get<DryRunDetail>(`/api/dry-runs/${runId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.trace.map((step) => [step.seq, step.verdict])).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'stopped'],
    ]);
    const first = detail.body.trace[0]!;
    expect(first).toMatchObject({ hasTree: true, selector: { desc: 'Home' }, ms: 420, frameWidth: expect.any(Number) });
    const frame = await operator.request('GET', first.frameUrl!);
    expect(frame.status).toBe(200);
    const tree = await va.get(`/api/dry-runs/${runId}/steps/1/tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.nodes.length).toBeGreaterThan(1);
    expect((await stranger.get(`/api/dry-runs/${runId}`)).status).toBe(404);
    expect((await stranger.get(`/api/dry-runs/${runId}/steps/1/tree`)).status).toBe(404);
    // Frames and trees count in the storage quota.
    const storage = await operator.get<{ usedBytes: number }>('/api/storage');
    expect(storage.body.usedBytes).toBeGreaterThan(0);

    expect((await operator.post(`/api/dry-runs/${runId}/stop`)).status).toBe(202);
    await until(async () => phone.stops.length === 1, 'the stop heard');
    expect(phone.stops).toEqual([runId]);
    expect(await send(phone.socket, 'dryrun.result', { runId, outcome: 'stopped', steps: 3, durationMs: 4000 })).toEqual({ ok: true });
    const ended = await operator.get<DryRun>(`/api/dry-runs/${runId}`);
    expect(ended.body).toMatchObject({ status: 'stopped', verified: false });
    expect((await operator.post(`/api/dry-runs/${runId}/next`)).status).toBe(409);
    expect(await send(phone.socket, 'dryrun.step', { runId, step: await traceStep(4) })).toMatchObject({ ok: false });
    // Once it ended, the phone's work goes out.
    await until(async () => dispatched.length > 0, 'the waiting task dispatched');
  });

  it('passes straight through with effects: counts the actions against the caps and verifies the app version', async () => {
    const phone = await dryRunPhone({ name: 'Pixel pass' });
    const account = await buildAccount(operator, { deviceId: phone.device.id, platform: 'instagram', status: 'active', username: 'pass.one' });
    const before = await operator.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    const leftBefore = before.body.counted[0]!.left!;
    const started = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: true });
    expect(started.status).toBe(201);
    const runId = started.body.id;
    expect(await send(phone.socket, 'dryrun.step', { runId, step: await traceStep(1, { do: 'toggle', action: 'like' }) })).toEqual({ ok: true });
    const result = {
      runId,
      outcome: 'passed',
      // The protocol's record of actions names every kind (zod's record over an enum is exhaustive).
      actions: { like: 2, follow: 0, comment: 0, post: 0 },
      app: { package: IG, version: NEW_IG, locale: 'en-US' },
      steps: 1,
      durationMs: 9000,
    };
    expect(await send(phone.socket, 'dryrun.result', result)).toEqual({ ok: true });
    // Sent again (its answer lost): refused, counted once.
    expect((await send(phone.socket, 'dryrun.result', result)).ok).toBe(false);

    const run = await operator.get<DryRun>(`/api/dry-runs/${runId}`);
    expect(run.body).toMatchObject({ status: 'passed', verified: true, actions: { like: 2 }, app: { package: IG, version: NEW_IG, locale: 'en-US' } });
    const after = await operator.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    expect(after.body.counted[0]!.left).toBe(leftBefore - 2);
    expect(after.body.coverage).toMatchObject({ covered: true, by: 'verified' });
    const verification = await t.db
      .selectFrom('recipeVerifications')
      .selectAll()
      .where('recipeId', '=', 'instagram.warmup')
      .where('appVersion', '=', NEW_IG)
      .execute();
    expect(verification).toHaveLength(1);
    expect(verification[0]).toMatchObject({ source: 'dry_run', locale: 'en-US', verifiedBy: operator.user!.id });
    const audit = await t.db.selectFrom('auditLog').select('action').where('entityId', '=', runId).orderBy('createdAt').execute();
    expect(audit.map((row) => row.action)).toEqual(['dryrun.started', 'dryrun.passed']);
    const feed = await t.db.selectFrom('activities').select('action').where('deviceId', '=', phone.device.id).execute();
    expect(feed.map((row) => row.action)).toContain(
      'Dry run of Instagram warm-up: scroll the feed, like a few v7 on Pixel pass passed; Instagram 448.0.0.12.90 (en-US) verified',
    );
    const counted = await t.db.selectFrom('accountDailyActions').select('likes').where('accountId', '=', account.id).executeTakeFirstOrThrow();
    expect(counted.likes).toBe(2);
  });

  it('a no-effects pass of a recipe with counted steps verifies nothing', async () => {
    const phone = await dryRunPhone({ name: 'Pixel proves less' });
    const started = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    const runId = started.body.id;
    await send(phone.socket, 'dryrun.result', {
      runId,
      outcome: 'passed',
      app: { package: IG, version: '449.0.0.1.1', locale: 'en-US' },
      steps: 2,
      durationMs: 10,
    });
    expect((await operator.get<DryRun>(`/api/dry-runs/${runId}`)).body).toMatchObject({ status: 'passed', verified: false });
    expect(await t.db.selectFrom('recipeVerifications').select('id').where('appVersion', '=', '449.0.0.1.1').execute()).toEqual([]);
  });

  it("a VA's passing run with effects verifies nothing: only an operator's run verifies an app version", async () => {
    const vaVersion = '450.0.0.1.1';
    const phone = await dryRunPhone({ name: 'Pixel VA pass', version: vaVersion });
    await buildAccount(operator, { deviceId: phone.device.id, platform: 'instagram', status: 'active', username: 'va.pass' });
    const started = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: true });
    expect(started.status).toBe(201);
    const runId = started.body.id;
    const result = {
      runId,
      outcome: 'passed',
      actions: { like: 1, follow: 0, comment: 0, post: 0 },
      app: { package: IG, version: vaVersion, locale: 'en-US' },
      steps: 1,
      durationMs: 10,
    };
    expect(await send(phone.socket, 'dryrun.result', result)).toEqual({ ok: true });
    expect((await va.get<DryRun>(`/api/dry-runs/${runId}`)).body).toMatchObject({ status: 'passed', verified: false });
    expect(await t.db.selectFrom('recipeVerifications').select('id').where('appVersion', '=', vaVersion).execute()).toEqual([]);
    const preflight = await va.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    expect(preflight.body.coverage).toMatchObject({ covered: false });
    const feed = await t.db.selectFrom('activities').select('action').where('deviceId', '=', phone.device.id).execute();
    expect(feed.map((row) => row.action)).toContain(
      "Dry run of Instagram warm-up: scroll the feed, like a few v7 on Pixel VA pass passed; not verified: only an operator's run verifies an app version",
    );
  });

  it("an operator's pass verifies that recipe row only: a new version of the recipe is not covered by it", async () => {
    const opVersion = '451.0.0.1.1';
    const phone = await dryRunPhone({ name: 'Pixel versions', version: opVersion });
    await buildAccount(operator, { deviceId: phone.device.id, platform: 'instagram', status: 'active', username: 'op.pass' });
    const started = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: true });
    await send(phone.socket, 'dryrun.result', {
      runId: started.body.id,
      outcome: 'passed',
      actions: { like: 1, follow: 0, comment: 0, post: 0 },
      app: { package: IG, version: opVersion, locale: 'en-US' },
      steps: 1,
      durationMs: 10,
    });
    expect((await operator.get<DryRun>(`/api/dry-runs/${started.body.id}`)).body).toMatchObject({ status: 'passed', verified: true });
    const stored = await t.db.selectFrom('recipeVerifications').selectAll().where('appVersion', '=', opVersion).execute();
    expect(stored).toEqual([
      expect.objectContaining({ recipeRowId, recipeId: 'instagram.warmup', recipeVersion: 7, source: 'dry_run', dryRunId: started.body.id }),
    ]);
    const covered = await operator.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${recipeRowId}&deviceId=${phone.device.id}`);
    expect(covered.body.coverage).toMatchObject({ covered: true, by: 'verified' });

    // Version 8 of the same recipe: its own row, which no one verified on this app version.
    const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.warmup');
    const next = await operator.post<{ id: string }>('/api/recipes', { recipe: { ...template.body.body, version: 8 }, enabled: false });
    expect(next.status).toBe(201);
    const newer = await operator.get<DryRunPreflight>(`/api/dry-runs/preflight?recipeId=${next.body.id}&deviceId=${phone.device.id}`);
    expect(newer.body.coverage).toMatchObject({ covered: false });
    // The phone is sent only the verifications of the row it runs.
    const run8 = await start(operator, { recipeId: next.body.id, deviceId: phone.device.id, mode: 'straight', effects: false });
    expect(run8.status).toBe(201);
    expect(phone.starts.at(-1)).toMatchObject({ preflight: { verifiedApps: [] } });
    await operator.post(`/api/dry-runs/${run8.body.id}/stop`);
    await send(phone.socket, 'dryrun.result', { runId: run8.body.id, outcome: 'stopped', steps: 0, durationMs: 1 });
    const run7 = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    expect(run7.status).toBe(201);
    const sent = (phone.starts.at(-1) as { preflight: { verifiedApps: { recipeId: string; version: string }[] } }).preflight.verifiedApps;
    expect(sent.map((entry) => entry.version)).toContain(opVersion);
    expect(sent.every((entry) => entry.recipeId === 'instagram.warmup')).toBe(true);
  });

  it('ends as failed when the phone leaves, and when it goes silent', async () => {
    const phone = await dryRunPhone({ name: 'Pixel leaves' });
    const started = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    phone.socket.disconnect();
    await until(async () => {
      const run = await operator.get<DryRun>(`/api/dry-runs/${started.body.id}`);
      return run.body.status === 'failed' ? run.body : undefined;
    }, 'the run failed');
    expect((await operator.get<DryRun>(`/api/dry-runs/${started.body.id}`)).body.failure).toMatchObject({ code: 'device_offline' });

    const quiet = await dryRunPhone({ name: 'Pixel quiet' });
    const run = await start(va, { recipeId: recipeRowId, deviceId: quiet.device.id, mode: 'step', effects: false });
    await t.db
      .updateTable('recipeDryRuns')
      .set({ heardAt: new Date(Date.now() - 31 * 60_000) })
      .where('id', '=', run.body.id)
      .execute();
    expect(await sweepSilentRuns(t.app.ctx)).toBeGreaterThanOrEqual(1);
    expect((await va.get<DryRun>(`/api/dry-runs/${run.body.id}`)).body).toMatchObject({ status: 'failed', failure: { code: 'timeout' } });
    // A stop on an ended run is refused.
    expect((await va.post(`/api/dry-runs/${run.body.id}/stop`)).status).toBe(409);
  });

  it("pushes a step's screen to the operators and the phone's VA only, not to another VA of the workspace", async () => {
    const other = await inviteVa(t.app, operator, 'Oscar Other');
    const phone = await dryRunPhone({ name: 'Pixel pushed' });
    const sockets = [operator, va, other].map((client) => connect(url, client));
    closers.push(() => {
      for (const socket of sockets) socket.disconnect();
    });
    await Promise.all(sockets.map(connected));
    const [toOperator, toVa, toOther] = sockets as [Socket, Socket, Socket];
    const seenByOther = record(toOther);
    const started = await start(va, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    const heard = Promise.all([next<{ runId: string }>(toOperator, 'dryrun.step'), next<{ runId: string }>(toVa, 'dryrun.step')]);
    expect(await send(phone.socket, 'dryrun.step', { runId: started.body.id, step: await traceStep(1) })).toEqual({ ok: true });
    expect((await heard).map((event) => event.runId)).toEqual([started.body.id, started.body.id]);
    await pause(300);
    expect(seenByOther.get('dryrun.step')).toBeUndefined();
    await send(phone.socket, 'dryrun.result', { runId: started.body.id, outcome: 'stopped', steps: 1, durationMs: 1 });
  });

  it("refuses a trace for another phone's run or a run that is not under way", async () => {
    const phone = await dryRunPhone({ name: 'Pixel own' });
    const other = await dryRunPhone({ name: 'Pixel other' });
    const started = await start(operator, { recipeId: recipeRowId, deviceId: phone.device.id, mode: 'straight', effects: false });
    expect(await send(other.socket, 'dryrun.step', { runId: started.body.id, step: await traceStep(1) })).toMatchObject({ ok: false });
    expect(await send(other.socket, 'dryrun.step', { runId: 'nope', step: { seq: 0 } })).toMatchObject({ ok: false });
    expect(other.socket.connected).toBe(true);
    const list = await operator.get<DryRun[]>(`/api/dry-runs?recipeId=${recipeRowId}`);
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThan(3);
    expect((await operator.get('/api/dry-runs?recipeId=nope')).status).toBe(400);
  });
});
