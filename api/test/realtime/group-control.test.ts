/**
 * Group control over real sockets (issue #52): an operator's page on /live holds phones with live control's rules and
 * sends one action at a time; each phone's agent answers `group.act`. The phones here are agent sockets that answer
 * with the agent's own `actOnPhone` on Settings screens of three widths (agent-protocol/test/fixtures/real/settings,
 * rebuilt from named facts, their headers say which), so the tap lands on each one's own element; one agent did not
 * list `group`, one shows Instagram although its heartbeat said Settings (the API's check passes it, the phone's
 * refuses it). Phones running a task or a dry run are the real agent on the simulated phone UI (it answers Busy).
 * The idle limit is tried on an app of its own whose control is released after 2 s unused.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { actOnPhone, groupActMessage, PhoneAgent, type GroupActResult, type LiveInput } from '@farm/agent-protocol';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import type { DryRun, DryRunDetail, LiveGroupActAnswer, LiveGroupAnswer, LiveGroupResult } from '@farm/contracts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, duePostTask, enrolledPhone, send, until } from './phones.ts';
import { connected, pause, record } from './sockets.ts';

const main = await realtimeApp({ liveControlIdleMs: 60_000, automation: { heartbeatMs: 1000 } });
const { t, url, operator, va, closers, liveSocket } = main;
/** An app of its own whose control is released after 2 s unused, for the idle limit. */
const hasty = await realtimeApp({ liveControlIdleMs: 2_000, automation: { heartbeatMs: 1000 } });
type App = typeof main;

type Answer<T = object> = ({ ok: true } & T) | { ok: false; error: string };
const ask = <T = object>(socket: Socket, event: string, message: unknown) => new Promise<Answer<T>>((resolve) => socket.emit(event, message, resolve));

const screen = (file: string) => readFileSync(new URL(`../../../agent-protocol/test/fixtures/real/${file}`, import.meta.url), 'utf8');
const SETTINGS = { 720: screen('settings/home-720.xml'), 1080: screen('settings/home-1080.xml'), 1440: screen('settings/home-1440.xml') };
const NETWORK = screen('settings/network.xml');
/** An Instagram screen as a phone's dump gives it (agent-protocol/test/fixtures/ui-instagram-feed.xml, sourced there). */
const INSTAGRAM = readFileSync(new URL('../../../agent-protocol/test/fixtures/ui-instagram-feed.xml', import.meta.url), 'utf8');

interface GroupTestPhone {
  device: { id: string; name: string };
  socket: Socket;
  /** What the phone was given to do, as its input path would take it. */
  inputs: LiveInput[];
  /** Every `group.act` the phone received. */
  received: unknown[];
  shows: string;
  /** The streams the phone was asked to start (`live.start`). */
  streams: unknown[];
}

/**
 * A phone whose agent speaks protocol 2 and answers `group.act` with the agent's own `actOnPhone` on the screen it
 * shows; `group: false`: an agent that did not list the feature. Its heartbeat says the app in front.
 */
async function groupPhone(name: string, shows: string, options: { group?: boolean; front?: string } = {}, on: App = main): Promise<GroupTestPhone> {
  const { device, token } = await enrolledPhone(on.operator, { name });
  const socket = bareAgent(on.url, token);
  on.closers.push(() => socket.disconnect());
  const phone: GroupTestPhone = { device, socket, inputs: [], received: [], shows, streams: [] };
  socket.on('live.start', (settings: { stream?: string }) => phone.streams.push(settings.stream ?? 'jpeg'));
  socket.on('live.stop', () => undefined);
  socket.on('group.act', (raw: unknown, ack: (answer: unknown) => void) => {
    phone.received.push(raw);
    const message = groupActMessage.parse(raw);
    void actOnPhone(
      {
        dumpUi: async () => phone.shows,
        input: async (input) => {
          phone.inputs.push(input);
        },
        startIntent: async () => undefined,
      },
      message,
    ).then((result) => ack({ ok: true, result }));
  });
  await connected(socket);
  const features = options.group === false ? ['live', 'control', 'h264'] : ['live', 'control', 'h264', 'group'];
  expect((await send(socket, 'agent.hello', { protocol: 2, agentVersion: 'test-group', battery: 80, features })).ok).toBe(true);
  await send(socket, 'agent.heartbeat', {
    battery: 80,
    status: 'online',
    charging: true,
    screenOn: true,
    foregroundApp: options.front ?? 'com.android.settings',
  });
  await until(
    async () => (await on.t.db.selectFrom('devices').select('foregroundApp').where('id', '=', device.id).executeTakeFirst())?.foregroundApp,
    `${name}'s heartbeat`,
  );
  return phone;
}

/** An operator's page watching the phones, then holding them as a group led by the first. */
async function page(phones: { device: { id: string } }[], on: App = main) {
  const socket = on.liveSocket(on.operator);
  on.closers.push(() => socket.disconnect());
  await connected(socket);
  for (const phone of phones) expect((await ask(socket, 'live.watch', { deviceId: phone.device.id, h264: true })).ok).toBe(true);
  const started = await ask<LiveGroupAnswer>(socket, 'live.group.start', { deviceIds: phones.map((phone) => phone.device.id), leaderId: phones[0]!.device.id });
  return { socket, started };
}

const resultOf = (answer: Answer<LiveGroupActAnswer>, phone: { device: { id: string } }): GroupActResult | undefined =>
  answer.ok ? answer.results.find((item) => item.deviceId === phone.device.id)?.result : undefined;

/**
 * A phone running the real agent on the simulated phone UI, whose task runs wait at their start until `go()`: the
 * agent is busy with a task from its dispatch until then (`started` says it began).
 */
async function busyPhone(name: string) {
  const { device, token } = await enrolledPhone(operator, { name });
  const ui = new SimulatedPhoneUi({ serial: `SIM-${name}`, width: 1080, height: 2400 });
  const backend = await new DeviceBackend(ui, { agentVersion: 'test/2', preflight: 'no-account' }).start();
  let go: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    go = resolve;
  });
  const phone = { device, ui, started: false, go: () => go() };
  const run = backend.run.bind(backend);
  backend.run = async (work, context) => {
    phone.started = true;
    await gate;
    return run(work, context);
  };
  const agent = new PhoneAgent({ url, token, backend, reconnectionDelayMs: 100 });
  closers.push(
    () => agent.close(),
    () => backend.close(),
    () => go(),
  );
  await until(async () => agent.connected, `${name} connected`);
  return phone;
}

/** Instagram's shipped warm-up with the steps of "like the first post" (as the dry run test's), saved disabled. */
async function savedRecipe(): Promise<string> {
  const shipped = (await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.warmup')).body.body;
  const saved = await operator.post<{ id: string }>('/api/recipes', {
    recipe: {
      ...shipped,
      id: 'workspace.group-busy-like',
      name: 'Like the first post',
      version: 1,
      steps: [
        { do: 'wait_for', target: 'like_button', label: 'Wait for the first post' },
        { do: 'toggle', target: 'like_button', off: [{ selected: false }], on: [{ selected: true }], counts: 'like', within: '3s', label: 'Like' },
      ],
    },
    enabled: false,
  });
  expect(saved.status).toBe(201);
  return saved.body.id;
}

/** The control sessions of these phones in the usage table (live control's), oldest first. */
const controlUsage = (db: App['t']['db'], deviceIds: string[]) =>
  db
    .selectFrom('deviceUsage')
    .select(['deviceId', 'userId', 'mode', 'endedAt', 'endReason'])
    .where('deviceId', 'in', deviceIds)
    .where('mode', '=', 'control')
    .orderBy('startedAt')
    .execute();

describe('group control', () => {
  it('holds the phones, resolves the leader’s finger to a selector, and each follower taps its own element', async () => {
    const leader = await groupPhone('Group lead 1080', SETTINGS[1080]);
    const small = await groupPhone('Group 720', SETTINGS[720]);
    const large = await groupPhone('Group 1440', SETTINGS[1440]);
    const elsewhere = await groupPhone('Group network', NETWORK);
    const old = await groupPhone('Group old agent', SETTINGS[1080], { group: false });
    const { socket, started } = await page([leader, small, large, elsewhere, old]);
    expect(started).toMatchObject({ ok: true, leaderId: leader.device.id });
    expect(started.ok && started.phones.every((phone) => phone.held)).toBe(true);
    // Held with live control's rules: each phone says the operator controls it.
    const rows = await t.db
      .selectFrom('devices')
      .select(['id', 'controlledById'])
      .where(
        'id',
        'in',
        [leader, small, large].map((phone) => phone.device.id),
      )
      .execute();
    expect(rows.every((row) => row.controlledById !== null)).toBe(true);
    // The leader streams the controller's picture; the followers only the small one the grid shows.
    await until(async () => leader.streams.includes('control') && small.streams.includes('watch'), 'the streams');
    expect(small.streams).not.toContain('control');
    expect(large.streams).not.toContain('control');

    // The finger on the leader's "Network & internet" row (where it lies on the 1080 px screen).
    const heard = record(socket);
    const row = rowCenter(SETTINGS[1080], 'Network &amp; internet');
    const answer = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'finger', x: row.x, y: row.y } });
    expect(answer.ok).toBe(true);
    expect(resultOf(answer, leader)).toMatchObject({ kind: 'done', selector: { text: 'Network & internet' } });
    expect(resultOf(answer, small)).toMatchObject({ kind: 'done', label: 'Done' });
    expect(resultOf(answer, large)).toMatchObject({ kind: 'done' });
    expect(resultOf(answer, elsewhere)).toMatchObject({ kind: 'different_screen', label: 'Different screen' });
    expect(resultOf(answer, old)).toMatchObject({ kind: 'not_supported', label: 'Not supported' });
    expect(answer.ok && answer.summary).toBe('Tap “Network & internet”: Done on 3, Different screen on 1, Not supported on 1');
    // Each phone tapped its own row: at its own place on its own screen; the one elsewhere and the old one got nothing.
    for (const [phone, xml] of [
      [small, SETTINGS[720]],
      [large, SETTINGS[1440]],
    ] as const) {
      const own = rowCenter(xml, 'Network &amp; internet');
      expect(phone.inputs).toEqual([{ kind: 'tap', x: expect.closeTo(own.x, 2), y: expect.closeTo(own.y, 2) }]);
    }
    expect(elsewhere.inputs).toEqual([]);
    expect(old.received).toEqual([]);
    // The results came one by one as well, before the answer.
    const streamed = (heard.get('live.group.result') ?? []) as LiveGroupResult[];
    expect(streamed.map((item) => item.deviceId).sort()).toEqual([leader, small, large, elsewhere, old].map((phone) => phone.device.id).sort());

    // Audited: who, which phones, what, how each fared.
    const audit = await t.db
      .selectFrom('auditLog')
      .select('data')
      .where('action', '=', 'group.act')
      .where('entityId', '=', leader.device.id)
      .executeTakeFirstOrThrow();
    expect(audit.data).toMatchObject({ what: 'Tap “Network & internet”', selector: { text: 'Network & internet' }, results: { [small.device.id]: 'done' } });

    // Retry on the ones that missed: the one elsewhere now shows Settings; only it gets the resolved selector.
    elsewhere.shows = SETTINGS[1080];
    await pause(500);
    const retried = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'finger', x: row.x, y: row.y }, only: [elsewhere.device.id] });
    expect(retried.ok && retried.results.map((item) => [item.deviceId, item.result.kind])).toEqual([[elsewhere.device.id, 'done']]);
    expect(leader.inputs).toHaveLength(1);

    // Stop all: every phone is free again.
    expect(await ask(socket, 'live.group.stop', {})).toEqual({ ok: true });
    await until(async () => {
      const after = await t.db
        .selectFrom('devices')
        .select('controlledById')
        .where(
          'id',
          'in',
          [leader, small, large].map((phone) => phone.device.id),
        )
        .execute();
      return after.every((one) => one.controlledById === null);
    }, 'the phones released');
  });

  it('never types the text into the audit, limits actions to 2 a second, and refuses where an app with accounts is in front', async () => {
    const leader = await groupPhone('Rules lead', SETTINGS[1080]);
    const instagramSaid = await groupPhone('Rules insta said', INSTAGRAM, { front: 'com.instagram.android' });
    const instagramSeen = await groupPhone('Rules insta seen', INSTAGRAM);
    const { socket } = await page([leader, instagramSaid, instagramSeen]);

    const typed = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'text', text: 'café-wifi-5G' } });
    expect(typed.ok && typed.summary).toBe('Text, 12 characters: Done on 1, Refused on 2');
    // Refused here, before anything was sent (its heartbeat says Instagram)…
    expect(resultOf(typed, instagramSaid)).toMatchObject({ kind: 'refused', reason: 'Group control is for setup: Instagram is in front.' });
    expect(instagramSaid.received).toEqual([]);
    // …and by the phone itself, which reads Instagram on its screen although the API's check let it through.
    expect(instagramSeen.received).toHaveLength(1);
    expect(resultOf(typed, instagramSeen)).toMatchObject({ kind: 'refused', reason: expect.stringContaining('Instagram') });
    expect(instagramSeen.inputs).toEqual([]);
    const audit = await t.db.selectFrom('auditLog').select('data').where('action', '=', 'group.act').where('entityId', '=', leader.device.id).execute();
    expect(JSON.stringify(audit)).not.toContain('café');
    expect(audit[0]!.data).toMatchObject({ what: 'Text, 12 characters' });

    // Home follows the same rule (Instagram in front: refused, by the API and by the phone); a web link never goes.
    await pause(1100);
    const home = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'home' } });
    expect(home.ok && home.summary).toBe('Home: Done on 1, Refused on 2');
    expect(instagramSeen.inputs).toEqual([]);
    const link = await ask<LiveGroupActAnswer>(socket, 'live.group.act', {
      action: { kind: 'intent', action: 'android.intent.action.VIEW', data: 'https://example.com' },
    });
    expect(link.ok && resultOf(link, leader)).toMatchObject({ kind: 'refused', reason: 'Group control is for setup: web links are never opened.' });
    // A third action within the second is refused with a sentence.
    const third = await ask(socket, 'live.group.act', { action: { kind: 'key', key: 'back' } });
    expect(third).toEqual({ ok: false, error: 'At most 2 group actions a second: wait a moment' });
  });

  it('refuses a VA, names a phone someone else controls and holds it once handed over, and marks a phone that went offline', async () => {
    const leader = await groupPhone('Hold lead', SETTINGS[1080]);
    const follower = await groupPhone('Hold follower', SETTINGS[720]);
    const taken = await groupPhone('Hold taken', SETTINGS[1440]);

    const vaPage = liveSocket(va);
    closers.push(() => vaPage.disconnect());
    await connected(vaPage);
    expect(await ask(vaPage, 'live.group.start', { deviceIds: [leader.device.id], leaderId: leader.device.id })).toEqual({
      ok: false,
      error: 'Group control is for operators',
    });

    // Someone controls one phone already (its VA): it is named, not taken from them; the others are held.
    expect((await operator.patch(`/api/devices/${taken.device.id}`, { assignedToId: va.user!.id })).status).toBe(200);
    await ask(vaPage, 'live.watch', { deviceId: taken.device.id });
    expect((await ask(vaPage, 'live.control', { deviceId: taken.device.id })).ok).toBe(true);
    const { socket, started } = await page([leader, follower, taken]);
    expect(started.ok && started.phones.find((phone) => phone.deviceId === taken.device.id)).toMatchObject({
      held: false,
      reason: expect.stringContaining('is in control of Hold taken'),
      controlledBy: va.user!.name,
    });
    // Live control's handover: the page asks, the VA hands the phone over, and the group holds it as a follower.
    const asked = new Promise<{ deviceId: string; name: string }>((resolve) => vaPage.once('live.asked', resolve));
    expect(await ask(socket, 'live.ask', { deviceId: taken.device.id })).toEqual({ ok: true });
    expect(await asked).toMatchObject({ deviceId: taken.device.id });
    const handed = new Promise<LiveGroupAnswer & { reason?: string }>((resolve) => socket.once('live.group.state', resolve));
    expect(await ask(vaPage, 'live.handover', { deviceId: taken.device.id, userId: operator.user!.id })).toEqual({ ok: true });
    const afterHandover = await handed;
    expect(afterHandover.reason).toBe('Hold taken was handed to you');
    expect(afterHandover.phones.find((phone) => phone.deviceId === taken.device.id)).toEqual({
      deviceId: taken.device.id,
      name: 'Hold taken',
      held: true,
      leader: false,
    });
    const handedBack = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'home' } });
    expect(resultOf(handedBack, taken)).toMatchObject({ kind: 'done' });
    expect(taken.streams).not.toContain('control');

    // The follower's agent goes away mid-session: the page is told, and the next action marks it and goes on.
    const state = new Promise<LiveGroupAnswer & { reason?: string }>((resolve) => socket.once('live.group.state', resolve));
    follower.socket.disconnect();
    await until(
      async () => (await t.db.selectFrom('devices').select('status').where('id', '=', follower.device.id).executeTakeFirst())?.status === 'offline',
      'offline',
    );
    const back = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'back' } });
    expect(resultOf(back, leader)).toMatchObject({ kind: 'done' });
    expect(resultOf(back, follower)).toMatchObject({ kind: 'offline', label: 'Offline' });
    expect(follower.received.length).toBeLessThanOrEqual(1);
    // Released with live control's rule for a phone that goes offline, and the page told which and why.
    expect(await Promise.race([state, pause(5000).then(() => null)])).toMatchObject({ reason: expect.stringContaining('Hold follower') });
    // Closing the page releases what it held.
    socket.disconnect();
    await until(
      async () => (await t.db.selectFrom('devices').select('controlledById').where('id', '=', leader.device.id).executeTakeFirst())?.controlledById === null,
      'the leader released',
    );
  });

  it('says Busy for a phone running a task and one running a dry run, and interrupts neither', async () => {
    const leader = await groupPhone('Busy lead', SETTINGS[1080]);
    const tasked = await busyPhone('Busy task');
    const dried = await busyPhone('Busy dry run');

    // A task dispatched to one phone, running there (it waits at its start)…
    const { task } = await duePostTask(t, operator, tasked.device.id, 'Running during group control');
    await until(async () => tasked.started, 'the task running on its phone');
    const taskBefore = await t.db.selectFrom('tasks').select(['status', 'dispatchedAt']).where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(taskBefore.dispatchedAt).not.toBeNull();
    // …and a dry run step by step on the other (it waits for Next before each step).
    const recipeId = await savedRecipe();
    const dry = await operator.post<DryRun>('/api/dry-runs', { recipeId, deviceId: dried.device.id, mode: 'step', effects: false });
    expect(dry.status).toBe(201);
    const dryRun = async () => (await operator.get<DryRunDetail>(`/api/dry-runs/${dry.body.id}`)).body;
    await until(async () => (await dryRun()).status === 'running', 'the dry run running');
    const dryBefore = await dryRun();

    const { socket, started } = await page([leader, tasked, dried]);
    expect(started.ok).toBe(true);
    const keysBefore = [tasked.ui.keys.length, dried.ui.keys.length];
    const tapsBefore = [tasked.ui.taps.length, dried.ui.taps.length];
    const home = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'home' } });
    expect(home.ok).toBe(true);
    expect(resultOf(home, leader)).toMatchObject({ kind: 'done' });
    expect(resultOf(home, tasked)).toMatchObject({ kind: 'busy', label: 'Busy' });
    expect(resultOf(home, dried)).toMatchObject({ kind: 'busy', label: 'Busy' });
    expect(home.ok && home.summary).toBe('Home: Done on 1, Busy on 2');
    // Neither phone was given the key (nor anything else), and their work goes on as it was.
    await pause(300);
    expect([tasked.ui.keys.length, dried.ui.keys.length]).toEqual(keysBefore);
    expect([tasked.ui.taps.length, dried.ui.taps.length]).toEqual(tapsBefore);
    expect(await t.db.selectFrom('tasks').select(['status', 'dispatchedAt']).where('id', '=', task.id).executeTakeFirstOrThrow()).toEqual(taskBefore);
    const dryAfter = await dryRun();
    expect(dryAfter.status).toBe('running');
    expect(dryAfter.trace).toHaveLength(dryBefore.trace.length);

    expect(await ask(socket, 'live.group.stop', {})).toEqual({ ok: true });
    expect([200, 202]).toContain((await operator.post(`/api/dry-runs/${dry.body.id}/stop`, {})).status);
    tasked.go();
  });

  it('writes a control session per phone in the usage table as live control does, and ends each when the group stops', async () => {
    const phones = [
      await groupPhone('Usage lead', SETTINGS[1080]),
      await groupPhone('Usage 720', SETTINGS[720]),
      await groupPhone('Usage 1440', SETTINGS[1440]),
    ];
    const ids = phones.map((phone) => phone.device.id);
    const { socket, started } = await page(phones);
    expect(started.ok).toBe(true);
    const open = await controlUsage(t.db, ids);
    expect(open.map((row) => row.deviceId).sort()).toEqual([...ids].sort());
    expect(open.every((row) => row.userId === operator.user!.id && row.endedAt === null)).toBe(true);

    // Another leader keeps the same sessions (the phones stay held by the same person).
    expect((await ask<LiveGroupAnswer>(socket, 'live.group.leader', { leaderId: ids[1] })).ok).toBe(true);
    expect(await controlUsage(t.db, ids)).toHaveLength(3);

    expect(await ask(socket, 'live.group.stop', {})).toEqual({ ok: true });
    await until(async () => (await controlUsage(t.db, ids)).every((row) => row.endedAt !== null), 'the usage sessions ended');
    const ended = await controlUsage(t.db, ids);
    expect(ended).toHaveLength(3);
    expect(ended.every((row) => typeof row.endReason === 'string' && row.endReason.length > 0)).toBe(true);
    // And the usage report counts them as controlled, per phone.
    for (const id of ids) {
      const report = await operator.get(`/api/device-usage?range=24h&deviceId=${id}`);
      expect(report.status).toBe(200);
      expect(report.body.sessions).toEqual(expect.arrayContaining([expect.objectContaining({ mode: 'control', userName: 'Olga Operator' })]));
    }
  });

  it('makes another phone the leader (the streams switch) and holds a dropped phone again when it is added back', async () => {
    const first = await groupPhone('Switch first', SETTINGS[1080]);
    const second = await groupPhone('Switch second', SETTINGS[720]);
    const third = await groupPhone('Switch third', SETTINGS[1440]);
    const { socket, started } = await page([first, second, third]);
    expect(started).toMatchObject({ ok: true, leaderId: first.device.id });
    await until(async () => first.streams.at(-1) === 'control' && second.streams.at(-1) === 'watch', 'the first streams');

    const led = await ask<LiveGroupAnswer>(socket, 'live.group.leader', { leaderId: second.device.id });
    expect(led).toMatchObject({ ok: true, leaderId: second.device.id });
    expect(led.ok && led.phones.map((phone) => [phone.deviceId, phone.leader, phone.held])).toEqual([
      [first.device.id, false, true],
      [second.device.id, true, true],
      [third.device.id, false, true],
    ]);
    // The new leader streams the controller's picture, the old one the small one.
    await until(async () => second.streams.at(-1) === 'control' && first.streams.at(-1) === 'watch', 'the streams switched');
    expect(third.streams).not.toContain('control');
    // An action now starts on the new leader.
    const tapped = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'back' } });
    expect(tapped.ok && tapped.results[0]).toMatchObject({ deviceId: second.device.id, result: { kind: 'done' } });

    // Dropped: let go (not held, nothing sent to it); the leader is never dropped.
    expect((await ask(socket, 'live.group.drop', { deviceId: second.device.id })).ok).toBe(false);
    const dropped = await ask<LiveGroupAnswer>(socket, 'live.group.drop', { deviceId: third.device.id });
    expect(dropped.ok && dropped.phones.map((phone) => phone.deviceId)).toEqual([first.device.id, second.device.id]);
    const controller = async () =>
      (await t.db.selectFrom('devices').select('controlledById').where('id', '=', third.device.id).executeTakeFirstOrThrow()).controlledById;
    await until(async () => (await controller()) === null, 'the dropped phone released');
    const heardBefore = third.received.length;
    await pause(600);
    const back = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'back' } });
    expect(back.ok && back.results.map((item) => item.deviceId)).toEqual([second.device.id, first.device.id]);
    expect(third.received).toHaveLength(heardBefore);
    // A phone not in the group cannot lead.
    expect((await ask(socket, 'live.group.leader', { leaderId: third.device.id })).ok).toBe(false);

    // Added back: held again as a follower, and acted on.
    const added = await ask<LiveGroupAnswer>(socket, 'live.group.add', { deviceId: third.device.id });
    expect(added.ok && added.phones.find((phone) => phone.deviceId === third.device.id)).toMatchObject({ held: true, leader: false });
    expect(await controller()).toBe(operator.user!.id);
    await pause(600);
    const again = await ask<LiveGroupActAnswer>(socket, 'live.group.act', { action: { kind: 'key', key: 'back' } });
    expect(resultOf(again, third)).toMatchObject({ kind: 'done' });
    expect(third.received).toHaveLength(heardBefore + 1);
    expect(await ask(socket, 'live.group.stop', {})).toEqual({ ok: true });
  });

  it('releases the group’s phones on the idle limit and tells the page which and why', async () => {
    const lead = await groupPhone('Idle lead', SETTINGS[1080], {}, hasty);
    const follower = await groupPhone('Idle follower', SETTINGS[720], {}, hasty);
    const ids = [lead.device.id, follower.device.id];
    const { socket, started } = await page([lead, follower], hasty);
    expect(started.ok && started.phones.every((phone) => phone.held)).toBe(true);
    const states: (LiveGroupAnswer & { reason?: string })[] = [];
    socket.on('live.group.state', (state: LiveGroupAnswer & { reason?: string }) => states.push(state));

    // Nothing done for 2 s: both are released, and the page hears it for each, with a reason naming the phone.
    await until(async () => states.at(-1)?.phones.every((phone) => !phone.held), 'the group released', 8000);
    expect(states.map((state) => state.reason)).toEqual(
      expect.arrayContaining([expect.stringContaining('Idle lead'), expect.stringContaining('Idle follower')]),
    );
    await until(
      async () =>
        (await hasty.t.db.selectFrom('devices').select('controlledById').where('id', 'in', ids).execute()).every((row) => row.controlledById === null),
      'the phones free',
    );
    const usage = await controlUsage(hasty.t.db, ids);
    expect(usage.map((row) => row.endReason)).toEqual(['idle', 'idle']);
    // An action now goes nowhere: the leader is not held any more.
    expect((await ask(socket, 'live.group.act', { action: { kind: 'key', key: 'back' } })).ok).toBe(false);
    expect(lead.received).toEqual([]);
    expect(follower.received).toEqual([]);
  });
});

/** The centre of the row whose title is `title`, as shares of the screen. */
function rowCenter(xml: string, title: string): { x: number; y: number } {
  const node = new RegExp(`text="${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`).exec(xml);
  const size = /<node[^>]*bounds="\[0,0\]\[(\d+),(\d+)\]"/.exec(xml);
  if (!node || !size) throw new Error(`no row ${title}`);
  const [left, top, right, bottom] = node.slice(1).map(Number) as [number, number, number, number];
  return { x: (left + right) / 2 / Number(size[1]), y: (top + bottom) / 2 / Number(size[2]) };
}
