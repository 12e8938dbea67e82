/**
 * Group control: an operator's tap on a leader phone, carried to FOLLOWERS phones (default 29: a session holds 30
 * phones, the leader one of them) through one API process
 * on PostgreSQL. The browser watches every phone (`live.watch`), starts a session (`live.group.start`) and sends ACTIONS
 * finger taps (default 40) at most 2 a second (the server's limit), each after the last one's answer; the leader's
 * agent names the element under the finger, each follower finds it in its own screen and taps it. Per action: the
 * time to the leader's result, to each follower's result (`live.group.result`) and to the last one. The baseline, in
 * the same run and on the same watched phones, is one phone's live input: the leader controlled (`live.control`) and
 * tapped at the same point as many times at the same pace (`live.input`, answered with the phone's `latencyMs`).
 *
 * Two kinds of phones, one after the other: fake phones on a fake adb server (the real adb protocol) showing Android's
 * Settings home at three widths, driven by a real FarmHost; then simulated phones (a FarmHost's `--backend sim`).
 *
 * BENCH_FOLLOWERS (29), BENCH_ACTIONS (40), BENCH_KINDS (adb,sim). The phones, the API, PostgreSQL and the bench share
 * this machine's cores; the phones run in a process of their own, as a farm host is a PC of its own.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { GROUP_MAX_PHONES, type LiveAnswer, type LiveGroupActAnswer, type LiveGroupAnswer, type LiveGroupResult, type LiveInputAnswer } from '@farm/contracts';
import { benchDatabase, enrolledHost, pause, percentile, processUsage, signUp, startApi } from '../lib.ts';
import { adbSerial, leaderFinger, simLeaderFinger } from './screens.ts';

/** A session holds at most GROUP_MAX_PHONES phones, the leader one of them: 29 followers by default. */
const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? GROUP_MAX_PHONES - 1);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 40);
const KINDS = (process.env.BENCH_KINDS ?? 'adb,sim').split(',').filter((kind): kind is Kind => kind === 'adb' || kind === 'sim');
/** The server takes at most 2 group actions a second; a little over 500 ms between them keeps timer jitter under it. */
const PACE_MS = 520;
/** Past this an action (or a tap) counts as unanswered. */
const ANSWER_MS = 15_000;
/** The aim: a group's tap lands on every phone within this much of one phone's (p50). */
const AIM_MS = 300;
/** Taps before the measured ones (the phone's input shell starts on the first), not counted. */
const WARMUP = 3;
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type Kind = 'adb' | 'sim';

const KIND_LABELS: Record<Kind, string> = {
  adb: 'fake adb phones (Settings), real FarmHost',
  sim: 'simulated phones (FarmHost --backend sim)',
};

interface Figures {
  /** One phone's live input: emit → answer (ms), and the phone's own latencyMs. */
  single: number[];
  singleLatency: number[];
  singleFailed: string[];
  /** Group: emit → the leader's result, → each follower's result, → the last result, → the answer. */
  leader: number[];
  follower: number[];
  last: number[];
  answer: number[];
  /** Followers with a result per action (of FOLLOWERS). */
  complete: number[];
  /** Live frames the browser got per phone per second while it tapped (every phone stays watched). */
  fpsSingle: number;
  fpsGroup: number;
  /** CPU ms per measured action (the streams' share included) of the API and of the phones' process. */
  cpuSingle?: { api: number; host: number };
  cpuGroup?: { api: number; host: number };
  /** Per action: its last follower's result less its first's. */
  spread: number[];
  kinds: Map<string, number>;
  /** The first reason given for each label other than Done. */
  reasons: Map<string, string>;
  /** What the leader's finger lands on, and the selector its agent named it by. */
  finger?: string;
  selector?: string;
  groupError?: string;
  held?: number;
  summary?: string;
}

const fmt = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '—');

/** Emits and waits for the answer, or says it did not come. */
async function ask<T extends object>(socket: Socket, event: string, message: unknown, ms = ANSWER_MS): Promise<LiveAnswer<T>> {
  try {
    return (await socket.timeout(ms).emitWithAck(event, message)) as LiveAnswer<T>;
  } catch {
    return { ok: false, error: `no answer to ${event} within ${ms} ms` };
  }
}

/** The phones of one kind in a process of their own, connected to the API through a host of their own. */
async function startPhones(kind: Kind, origin: string, cookie: string): Promise<{ child: ChildProcess; serials: string[] }> {
  const token = await enrolledHost(origin, cookie, `Bench ${kind}`);
  const child = fork(fileURLToPath(new URL('./phones.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_KIND: kind, BENCH_COUNT: String(FOLLOWERS + 1), BENCH_SERVER: origin, BENCH_HOST_TOKEN: token },
  });
  const ready = await new Promise<{ serials: string[] }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { serials: string[] }));
    child.once('exit', (code) => reject(new Error(`the ${kind} phones' process ended (${code})`)));
  });
  return { child, serials: ready.serials };
}

/** The phones' device ids by serial, once the API lists them all online. */
async function deviceIds(origin: string, cookie: string, serials: string[]): Promise<Map<string, string>> {
  for (let waited = 0; ; waited += 250) {
    const answer = await fetch(`${origin}/api/devices?limit=1000`, { headers: { cookie } });
    const devices = (await answer.json()) as { id: string; serial: string | null; status: string }[];
    const ids = new Map(
      devices.filter((device) => device.serial && serials.includes(device.serial) && device.status !== 'offline').map((d) => [d.serial!, d.id]),
    );
    if (ids.size === serials.length) return ids;
    if (waited > 60_000) throw new Error(`only ${ids.size} of ${serials.length} phones came online`);
    await pause(250);
  }
}

/** One kind of phones: one phone's live input, then the group's, on the same watched phones. */
async function measure(kind: Kind, origin: string, cookie: string, apiPid: number): Promise<Figures> {
  const figures: Figures = {
    single: [],
    singleLatency: [],
    singleFailed: [],
    leader: [],
    follower: [],
    last: [],
    spread: [],
    answer: [],
    complete: [],
    fpsSingle: Number.NaN,
    fpsGroup: Number.NaN,
    kinds: new Map(),
    reasons: new Map(),
  };
  const { child, serials } = await startPhones(kind, origin, cookie);
  const browser = io(`${origin}/live`, { forceNew: true, transports: ['websocket'], extraHeaders: { cookie } });
  try {
    const ids = await deviceIds(origin, cookie, serials);
    const leaderSerial = kind === 'adb' ? adbSerial(0) : [...serials].sort()[0]!;
    const leaderId = ids.get(leaderSerial)!;
    const group = [leaderId, ...[...ids.values()].filter((id) => id !== leaderId)];
    const finger = kind === 'adb' ? leaderFinger() : await simLeaderFinger();
    figures.finger = finger.named;
    let frames = 0;
    browser.on('live.frame', (_frame: unknown, ack: () => void) => {
      frames += 1;
      ack();
    });
    browser.on('live.video', (packet: { config: boolean }, ack: () => void) => {
      if (!packet.config) frames += 1;
      ack();
    });
    await new Promise<void>((resolve) => (browser.connected ? resolve() : browser.once('connect', () => resolve())));
    for (const deviceId of group) {
      const watched = await ask(browser, 'live.watch', { deviceId, h264: kind === 'adb' });
      if (!watched.ok) throw new Error(`watching a phone: ${watched.error}`);
      // One stream starting at a time (each pushes and starts scrcpy-server on its phone), as a person opens them.
      await pause(200);
    }
    await pause(3000);

    // Every send waits until PACE_MS after the last one (and for the last one's answer).
    let lastSent = 0;
    const paced = async <T extends object>(event: string, message: unknown) => {
      await pause(lastSent + PACE_MS - performance.now());
      lastSent = performance.now();
      return { began: lastSent, answer: await ask<T>(browser, event, message) };
    };
    /** CPU milliseconds per measured action of the API and of the farm host's process (its phones included). */
    const cpuSince = (from: { api: number; host: number }) => {
      const now = cpu();
      return { api: ((now.api - from.api) * 1000) / ACTIONS, host: ((now.host - from.host) * 1000) / ACTIONS };
    };
    const framesSince = (from: { at: number; frames: number }) => (frames - from.frames) / ((performance.now() - from.at) / 1000) / group.length;

    // ── one phone's live input (the baseline) ──
    const controlled = await ask(browser, 'live.control', { deviceId: leaderId });
    if (!controlled.ok) throw new Error(`controlling the leader: ${controlled.error}`);
    let seq = 0;
    // Simulated phones move on a tap: each tap starts from the home screen (the key not measured).
    const home = async () => {
      if (kind === 'sim') await paced('live.input', { deviceId: leaderId, seq: ++seq, input: { kind: 'key', key: 'home' } });
    };
    await home();
    const cpu = () => ({ api: processUsage(apiPid).cpu, host: processUsage(child.pid!).cpu });
    let measuredFrom = { at: performance.now(), frames, cpu: cpu() };
    for (let i = -WARMUP; i < ACTIONS; i += 1) {
      if (i === 0) measuredFrom = { at: performance.now(), frames, cpu: cpu() };
      const { began, answer } = await paced<LiveInputAnswer>('live.input', {
        deviceId: leaderId,
        seq: ++seq,
        input: { kind: 'tap', x: finger.x, y: finger.y },
      });
      if (i >= 0 && answer.ok) {
        figures.single.push(performance.now() - began);
        figures.singleLatency.push(answer.latencyMs);
      }
      if (i >= 0 && !answer.ok) figures.singleFailed.push(answer.error);
      await home();
    }
    figures.fpsSingle = framesSince(measuredFrom);
    figures.cpuSingle = cpuSince(measuredFrom.cpu);
    await ask(browser, 'live.release', { deviceId: leaderId });

    // ── the group ──
    const started = await ask<LiveGroupAnswer>(browser, 'live.group.start', { deviceIds: group, leaderId }, 10_000);
    if (!started.ok) {
      figures.groupError = started.error;
      return figures;
    }
    figures.held = started.phones.filter((phone) => phone.held).length;
    const arrivals = new Map<string, { deviceId: string; at: number }[]>();
    browser.on('live.group.result', (result: LiveGroupResult) => {
      const list = arrivals.get(result.actionId) ?? [];
      list.push({ deviceId: result.deviceId, at: performance.now() });
      arrivals.set(result.actionId, list);
    });
    const groupHome = async () => {
      if (kind === 'sim') await paced('live.group.act', { action: { kind: 'key', key: 'home' } });
    };
    await groupHome();
    for (let i = -WARMUP; i < ACTIONS; i += 1) {
      if (i === 0) measuredFrom = { at: performance.now(), frames, cpu: cpu() };
      const { began, answer } = await paced<LiveGroupActAnswer>('live.group.act', { action: { kind: 'finger', x: finger.x, y: finger.y, press: 'tap' } });
      const answeredAt = performance.now();
      if (!answer.ok) {
        if (i >= 0) figures.kinds.set(`error: ${answer.error}`, (figures.kinds.get(`error: ${answer.error}`) ?? 0) + 1);
        continue;
      }
      const heard = arrivals.get(answer.actionId) ?? [];
      arrivals.delete(answer.actionId);
      if (i >= 0) {
        figures.answer.push(answeredAt - began);
        figures.summary = answer.summary;
        for (const { result } of answer.results) {
          figures.kinds.set(result.label, (figures.kinds.get(result.label) ?? 0) + 1);
          if (result.kind !== 'done' && result.reason && !figures.reasons.has(result.label)) figures.reasons.set(result.label, result.reason);
        }
        const leader = heard.find((item) => item.deviceId === leaderId);
        const followers = heard.filter((item) => item.deviceId !== leaderId);
        if (leader) figures.leader.push(leader.at - began);
        for (const follower of followers) figures.follower.push(follower.at - began);
        if (followers.length > 0) figures.spread.push(Math.max(...followers.map((f) => f.at)) - Math.min(...followers.map((f) => f.at)));
        figures.complete.push(followers.length);
        const named = answer.results.find((result) => result.deviceId === leaderId)?.result.selector;
        if (named) figures.selector = JSON.stringify(named);
        // The last result as events brought it; an answer carrying results no event brought ends at the answer.
        const lastEvent = Math.max(...heard.map((item) => item.at - began));
        figures.last.push(heard.length === 0 || answer.results.length > heard.length ? answeredAt - began : lastEvent);
      }
      // Phones that moved go home, so every finger lands on the same screen (not measured).
      if (answer.results.some((result) => result.deviceId === leaderId && result.result.kind === 'done')) await groupHome();
    }
    figures.fpsGroup = framesSince(measuredFrom);
    figures.cpuGroup = cpuSince(measuredFrom.cpu);
    await ask(browser, 'live.group.stop', {});
    return figures;
  } finally {
    browser.disconnect();
    child.send({ stop: true });
    await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(child.kill('SIGKILL')), 5000);
      child.once('exit', () => resolve(clearTimeout(timer)));
    });
  }
}

function report(kind: Kind, figures: Figures): void {
  const p = (values: number[], at: number) => percentile(values, at);
  console.log(
    `\n${KIND_LABELS[kind]}: a leader and ${FOLLOWERS} followers, ${ACTIONS} taps each way, one every ≥ ${PACE_MS} ms; ${cpus().length} cores shared by everything`,
  );
  console.log(`the leader's finger: ${figures.finger ?? '—'}${figures.selector ? `; its agent named it ${figures.selector}` : ''}`);
  console.log('| what | p50 ms | p99 ms | samples |');
  console.log('|---|---|---|---|');
  const row = (label: string, values: number[]) => console.log(`| ${label} | ${fmt(p(values, 50))} | ${fmt(p(values, 99))} | ${values.length} |`);
  row('one phone: live.input tap → answer (baseline)', figures.single);
  row('one phone: the phone’s own latencyMs', figures.singleLatency);
  if (!figures.groupError) {
    row('group: finger → the leader’s result', figures.leader);
    row('group: finger → each follower’s result', figures.follower);
    row('group: finger → the last result (every phone)', figures.last);
    row('group: last follower’s result − first follower’s', figures.spread);
    row('group: finger → live.group.act answer', figures.answer);
  }
  console.log(
    `every phone watched: live frames per phone per second at the browser ${figures.fpsSingle.toFixed(1)} during one phone's taps, ${figures.fpsGroup.toFixed(1)} during the group's`,
  );
  const cpuLine = (label: string, usage: Figures['cpuSingle']) =>
    usage ? `${label}: API ${fmt(usage.api)} ms, phones' process ${fmt(usage.host)} ms` : `${label}: —`;
  console.log(`CPU per action, the live streams' share included: ${cpuLine('one phone', figures.cpuSingle)}; ${cpuLine('group', figures.cpuGroup)}`);
  if (figures.singleFailed.length > 0) console.log(`one phone: ${figures.singleFailed.length} taps failed (first: ${figures.singleFailed[0]})`);
  if (figures.groupError) {
    console.log(`group: not measured, live.group.start answered: ${figures.groupError}`);
    return;
  }
  const complete = figures.complete.filter((count) => count === FOLLOWERS).length;
  console.log(`held ${figures.held ?? '—'} of ${FOLLOWERS + 1} phones; actions with every follower's result: ${complete} of ${figures.complete.length}`);
  console.log(
    `results: ${[...figures.kinds].map(([label, count]) => `${label} ${count}`).join(', ') || 'none'}${figures.summary ? ` (last summary: "${figures.summary}")` : ''}`,
  );
  for (const [label, reason] of figures.reasons) console.log(`"${label}", for instance: ${reason}`);
  if (kind === 'sim' && (figures.kinds.get('Refused') ?? 0) > 0) {
    console.log(
      'note: simulated phones showing an app group control refuses (no Settings to show) answer "Refused": the figures measure the path (browser → API → leader → API → every follower → browser) without a tap',
    );
  }
  const group = p(figures.last, 50);
  const single = p(figures.single, 50);
  summaries.push({ kind, lastP50: group, lastP99: p(figures.last, 99), singleP50: single, complete, actions: figures.complete.length });
  if (Number.isFinite(group) && Number.isFinite(single)) {
    const gap = group - single;
    console.log(
      `group ÷ one phone (p50, last result vs. tap → answer): ${(group / single).toFixed(1)}×, +${fmt(gap)} ms; p99 ${(p(figures.last, 99) / p(figures.single, 99)).toFixed(1)}×; aim: within ${AIM_MS} ms at p50: ${gap <= AIM_MS ? 'yes' : 'no'}`,
    );
  }
}

/** Each kind's figures for `bench:report` (BENCH_JSON): the last result's p50 and p99 beside one phone's tap. */
const summaries: { kind: Kind; lastP50: number; lastP99: number; singleP50: number; complete: number; actions: number }[] = [];

const { url: databaseUrl, drop } = await benchDatabase(base, 'farm_bench_group');
let api: ChildProcess | undefined;
try {
  const started = await startApi({ DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'farm-bench-group-')) });
  api = started.api;
  const { origin } = started;
  const cookie = await signUp(origin);
  for (const kind of KINDS) report(kind, await measure(kind, origin, cookie, api.pid!));
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ followers: FOLLOWERS, aimMs: AIM_MS, kinds: summaries }));
} finally {
  api?.kill('SIGTERM');
  await pause(1000);
  await drop();
}
