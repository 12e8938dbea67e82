/**
 * What one farm host costs per phone. One API process on PostgreSQL; a fake adb server speaking the real protocol
 * with BENCH_PHONES fake phones (default 28) in a process of its own (phones.ts); and a real FarmHost (`--backend adb`,
 * as `farm-agent host` sets it, a screenshot of each phone every 15 s) alone in a child process (host.ts), so its CPU
 * (utime + stime from /proc) and resident memory are its own. Memory is read after a full collection: with no phone
 * plugged yet (the host's fixed base), then after each phase.
 *
 *   A. idle: every phone attached and online, heartbeating, read every 5 s, probed, its health checked, no work;
 *      measured over BENCH_WINDOW_S (60 s) after BENCH_WARMUP_S (20 s).
 *   B. working: each phone runs a routine, an Instagram warm-up (the shipped recipe: scroll the feed, look at each
 *      post, like half of them) with Instagram's daily caps as its allowance (a fresh account: 300 likes, far more
 *      than a run spends), dispatched by the API's sweep as a campaign's run is; measured over the same window once
 *      every phone is busy and past its pre-flight.
 *
 * The baseline, in the same run: a bare loop on the same adb client library (bare.ts, its own child process) that
 * sends the same phones the requests the host sent them in each window, at the same times (every shell command,
 * every input line, every UI server request, every screenshot's bytes), reading each answer and parsing nothing.
 * Host ÷ bare is what the host's own work (parsing, recipes, heartbeats to the console, JPEG screenshots) adds to
 * talking adb. The aims: an idle phone under 0.5 % of a core, a working one under 3 %.
 *
 * BENCH_JSON=FILE writes the figures as JSON:
 *   { phones, windowS, cores, screenshotMs, pngBytes,
 *     idle:    { host: Phase, bare: Phase, ratio (host ÷ bare CPU), aimPct: 0.5, connectedPhones },
 *     working: { host: Phase, bare: Phase, ratio, aimPct: 3, busyPhones },
 *     memory:  { host: { baseMb, perPhoneIdleMb, perPhoneWorkingMb }, bare: { baseMb, perPhoneMb } },
 *     replayed: { idle, working: { sent, answered, failed, skipped, unanswered } }, notReplayed: { idle, working } }
 *   where Phase = { cpuPctPerPhone (% of one core), cpuPct (the whole process), threadsPct (by thread name), rssMb,
 *                   perPhonePerS: { exec, line, uiRequests, screenReads, inputs, screenshots } }
 * BENCH_PROFILE=DIR writes a CPU profile of the host's main thread in each window (DIR/host-idle.cpuprofile,
 * host-working.cpuprofile; libvips' threads, which encode the screenshots, are not in it: see the threads line), and
 * of the API when it stops; the sampling costs the host some CPU, so read its figures from a run without it.
 * BENCH_VERBOSE=1 prints the host's log.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { platformDailyCaps } from '@farm/contracts';
import { benchDatabase, enrolledHost, pause, processUsage, signUp, startApi } from '../lib.ts';
import { phoneSerial, type Recording } from './record.ts';

const PHONES = Number(process.env.BENCH_PHONES ?? 28);
/** A minute: two health rounds, four screenshots of each phone, and one tick of the fake phones' status-bar clock. */
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 60);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 20);
const SCREENSHOT_MS = Number(process.env.BENCH_SCREENSHOT_MS ?? 15_000);
/** The share of posts a warm-up likes (a routine's default engagement rate). */
const ENGAGEMENT = 50;
const AIM_IDLE = 0.5;
const AIM_WORKING = 3;
const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

interface Phase {
  cpuPctPerPhone: number;
  cpuPct: number;
  /** The process's CPU by kind of thread (% of one core): the main thread, V8's helpers, libuv's pool, libvips'. */
  threadsPct?: Record<string, number>;
  rssMb: number;
  perPhonePerS: { exec: number; line: number; uiRequests: number; screenReads: number; inputs: number; screenshots: number };
}

/** A child process of the bench that answers its messages (each kind of answer awaited by its key). */
class Child {
  readonly process: ChildProcess;
  private readonly waiting = new Map<string, (value: unknown) => void>();
  private readonly ended: Promise<number | null>;

  constructor(file: string, env: Record<string, string>, flags: string[] = []) {
    this.process = fork(here(file), { execArgv: ['--import', 'tsx', ...flags], env: { ...process.env, ...env } });
    this.process.on('message', (message: Record<string, unknown>) => {
      for (const key of Object.keys(message)) {
        const resolve = this.waiting.get(key);
        this.waiting.delete(key);
        resolve?.(message);
      }
    });
    this.ended = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
  }

  /** The next message carrying `key` (after sending `message`, when given), failing if the process ends first. */
  ask<T>(key: string, message?: object, ms = 120_000): Promise<T> {
    const answer = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${key}: no answer within ${ms} ms`)), ms);
      this.waiting.set(key, (value) => {
        clearTimeout(timer);
        resolve(value as T);
      });
      void this.ended.then((code) => reject(new Error(`the process ended (${code}) before answering ${key}`)));
    });
    if (message) this.process.send(message);
    return answer;
  }

  get pid(): number {
    return this.process.pid!;
  }

  /** Memory after a full collection, in MB. */
  async rss(): Promise<number> {
    await this.ask('gc', { gc: true });
    return processUsage(this.pid).rssMb;
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null) return;
    this.process.send({ stop: true });
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 10_000);
    await this.ended;
    clearTimeout(timer);
  }
}

/** What the phones were asked per phone per second in a recording. */
function activity(recording: Recording): Phase['perPhonePerS'] {
  const per = (n: number) => n / PHONES / (recording.ms / 1000);
  const of = (test: (event: Recording['events'][number]) => boolean) => per(recording.events.filter(test).length);
  const request = (text: string) => Buffer.from(text, 'base64').toString('latin1').split('\r\n')[0] ?? '';
  return {
    exec: of((event) => event.kind === 'exec'),
    line: of((event) => event.kind === 'line'),
    uiRequests: of((event) => event.kind === 'tcp'),
    screenReads: of((event) => event.kind === 'tcp' && /^GET \/session\/[^/]+\/source\b/.test(request(event.text))),
    inputs: of((event) => event.kind !== 'tcp' && /(^|[;&|]\s*)input (tap|swipe|text|keyevent)\b/.test(event.text)),
    screenshots: of((event) => event.kind === 'exec' && /\bscreencap\b/.test(event.text)),
  };
}

/**
 * CPU seconds so far of each kind of thread of a process, by the thread's name: node's main thread (`node`), V8's
 * helpers (`V8 DefaultWorke`: collection, compilation), libuv's pool (`libuv-worker`: zlib, files) and libvips' own
 * (the screenshots' JPEG encoding).
 */
function threadUsage(pid: number): Map<string, number> {
  const usage = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[\d-]+$/, '') || 'thread';
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      usage.set(name, (usage.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The thread ended while we looked.
    }
  }
  return usage;
}

/** CPU of a process over a window: the whole process, and per phone (% of one core). */
async function cpuOver(pid: number, during: () => Promise<unknown>): Promise<{ cpuPct: number; cpuPctPerPhone: number; threadsPct: Record<string, number> }> {
  const before = processUsage(pid).cpu;
  const threads = threadUsage(pid);
  const at = performance.now();
  await during();
  const seconds = (performance.now() - at) / 1000;
  const cpuPct = ((processUsage(pid).cpu - before) / seconds) * 100;
  const threadsPct: Record<string, number> = {};
  for (const [name, cpu] of threadUsage(pid)) threadsPct[name] = ((cpu - (threads.get(name) ?? 0)) / seconds) * 100;
  // libvips starts threads for a picture and ends them after: their time is the process's, no longer any thread's.
  const ended = cpuPct - Object.values(threadsPct).reduce((sum, value) => sum + value, 0);
  if (ended > 0) threadsPct['threads that ended'] = ended;
  return { cpuPct, cpuPctPerPhone: cpuPct / PHONES, threadsPct };
}

/** The phones' devices, once the API lists every one online. */
async function onlineDevices(origin: string, cookie: string): Promise<{ id: string; serial: string }[]> {
  const serials = new Set(Array.from({ length: PHONES }, (_, index) => phoneSerial(index)));
  for (let waited = 0; ; waited += 500) {
    const answer = await fetch(`${origin}/api/devices?limit=1000`, { headers: { cookie } });
    const devices = ((await answer.json()) as { id: string; serial: string | null; status: string }[]).filter(
      (device) => device.serial && serials.has(device.serial) && device.status !== 'offline',
    );
    if (devices.length === PHONES) return devices.map((device) => ({ id: device.id, serial: device.serial! }));
    if (waited > 120_000) throw new Error(`only ${devices.length} of ${PHONES} phones came online`);
    await pause(500);
  }
}

interface HostStatus {
  phones: number;
  connected: number;
  busy: number;
}

async function waitFor(host: Child, what: string, test: (status: HostStatus) => boolean, ms = 180_000): Promise<HostStatus> {
  for (let waited = 0; ; waited += 500) {
    const { status } = await host.ask<{ status: HostStatus }>('status', { status: true });
    if (test(status)) return status;
    if (waited > ms) throw new Error(`${what}: not within ${ms / 1000} s (${JSON.stringify(status)})`);
    await pause(500);
  }
}

const pct = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} %` : '—');
/** Megabytes; a growth under a tenth of one (or a fall, which the collector's timing makes) is none. */
const mb = (value: number) => (Number.isFinite(value) ? (value < 0.1 ? '≈ 0 MB' : `${value.toFixed(1)} MB`) : '—');
const times = (a: number, b: number) => (Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(1)}×` : '—');
const rate = (value: number) => value.toFixed(2);

const { url: databaseUrl, database, drop } = await benchDatabase(base, 'farm_bench_host');
const children: Child[] = [];
let api: ChildProcess | undefined;
try {
  const started = await startApi({ DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'farm-bench-host-')) });
  api = started.api;
  const { origin } = started;
  const cookie = await signUp(origin);
  const token = await enrolledHost(origin, cookie, 'Bench rack');

  const phones = new Child('./phones.ts', { BENCH_PHONES: String(PHONES) });
  children.push(phones);
  const { port, pngBytes } = await phones.ask<{ port: number; pngBytes: number }>('ready');
  const host = new Child(
    './host.ts',
    { BENCH_SERVER: origin, BENCH_HOST_TOKEN: token, BENCH_ADB_PORT: String(port), BENCH_SCREENSHOT_MS: String(SCREENSHOT_MS) },
    ['--expose-gc'],
  );
  children.push(host);
  await host.ask('started');
  await pause(2000);
  const hostBaseMb = await host.rss();

  // ── A. idle ──
  await phones.ask('plugged', { plug: true });
  await waitFor(host, `${PHONES} phones connected`, (status) => status.connected === PHONES);
  const devices = await onlineDevices(origin, cookie);
  console.log(`${PHONES} phones online; idle warm-up ${WARMUP_S} s, then ${WINDOW_S} s measured`);
  await pause(WARMUP_S * 1000);
  /** The window measured, with the host's profile of it written after (BENCH_PROFILE), outside the window. */
  const profiled = async <T>(phase: string, measure: () => Promise<T>): Promise<T> => {
    if (!process.env.BENCH_PROFILE) return measure();
    host.process.send({ profile: phase });
    const result = await measure();
    await host.ask('profiled', { profiled: phase });
    return result;
  };
  phones.process.send({ record: true });
  const idleCpu = await profiled('idle', () => cpuOver(host.pid, () => pause(WINDOW_S * 1000)));
  const idleRecording = (await phones.ask<{ recorded: Recording }>('recorded', { record: false })).recorded;
  const idleStatus = (await host.ask<{ status: HostStatus }>('status', { status: true })).status;
  const hostIdleMb = await host.rss();

  // ── B. working: a routine on every phone, dispatched by the API's sweep ──
  const { workspaceId } = await database.db.selectFrom('devices').select('workspaceId').where('id', '=', devices[0]!.id).executeTakeFirstOrThrow();
  // The fake phones report an older Instagram than the shipped recipe was tested on: the workspace tries it there.
  await database.db.updateTable('workspaces').set({ tryUntestedTemplates: true }).where('id', '=', workspaceId).execute();
  const minutes = Math.ceil((WARMUP_S + WINDOW_S) / 60) + 3;
  await database.db
    .insertInto('tasks')
    .values(
      devices.map((device) => ({
        workspaceId,
        title: `Warm-up on ${device.serial}`,
        description: null,
        type: 'warmup' as const,
        priority: 'medium' as const,
        deviceId: device.id,
        sourceKey: `bench-host:${device.serial}`,
        expectedSeconds: minutes * 60,
        // A campaign's warm-up run for an account fresh today: its allowance is Instagram's daily caps.
        work: JSON.stringify({
          kind: 'routine.run',
          routineType: 'warmup',
          routineName: 'Bench warm-up',
          platform: 'instagram',
          account: null,
          durationMinutes: minutes,
          intensity: 5,
          actions: ['like'],
          keywords: [],
          referenceAccounts: [],
          settings: { duration: minutes, engagementRate: ENGAGEMENT },
          allowance: platformDailyCaps.instagram,
          campaign: null,
          recipe: null,
        }),
      })),
    )
    .execute();
  await waitFor(host, `${PHONES} phones busy`, (status) => status.busy === PHONES);
  console.log(`every phone runs its routine (${minutes} min); warm-up ${WARMUP_S} s, then ${WINDOW_S} s measured`);
  await pause(WARMUP_S * 1000);
  phones.process.send({ record: true });
  const workingCpu = await profiled('working', () => cpuOver(host.pid, () => pause(WINDOW_S * 1000)));
  const workingRecording = (await phones.ask<{ recorded: Recording }>('recorded', { record: false })).recorded;
  const workingStatus = (await host.ask<{ status: HostStatus }>('status', { status: true })).status;
  const hostWorkingMb = await host.rss();
  const outcomes = await database.db
    .selectFrom('tasks')
    .select(['status', 'failureMessage', 'progressNote'])
    .where('sourceKey', 'like', 'bench-host:%')
    .execute();
  await host.stop();

  // ── the bare loop: the same requests at the same times ──
  const bare = new Child('./bare.ts', { BENCH_ADB_PORT: String(port) }, ['--expose-gc']);
  children.push(bare);
  await bare.ask('ready');
  await pause(2000);
  const bareBaseMb = await bare.rss();
  const replay = async (recording: Recording) => {
    let counts = { sent: 0, answered: 0, failed: 0, skipped: 0, unanswered: [] as string[] };
    const cpu = await cpuOver(bare.pid, async () => {
      counts = (await bare.ask<{ replayed: typeof counts }>('replayed', { replay: recording })).replayed;
    });
    return { ...cpu, counts, rssMb: await bare.rss() };
  };
  const bareIdle = await replay(idleRecording);
  const bareWorking = await replay(workingRecording);

  const phase = (cpu: { cpuPct: number; cpuPctPerPhone: number }, rssMb: number, recording: Recording): Phase => ({
    ...cpu,
    rssMb,
    perPhonePerS: activity(recording),
  });
  const figures = {
    phones: PHONES,
    windowS: WINDOW_S,
    cores: cpus().length,
    screenshotMs: SCREENSHOT_MS,
    pngBytes,
    idle: {
      host: phase(idleCpu, hostIdleMb, idleRecording),
      bare: phase(bareIdle, bareIdle.rssMb, idleRecording),
      ratio: idleCpu.cpuPct / bareIdle.cpuPct,
      aimPct: AIM_IDLE,
      connectedPhones: idleStatus.connected,
    },
    working: {
      host: phase(workingCpu, hostWorkingMb, workingRecording),
      bare: phase(bareWorking, bareWorking.rssMb, workingRecording),
      ratio: workingCpu.cpuPct / bareWorking.cpuPct,
      aimPct: AIM_WORKING,
      busyPhones: workingStatus.busy,
    },
    memory: {
      host: { baseMb: hostBaseMb, perPhoneIdleMb: (hostIdleMb - hostBaseMb) / PHONES, perPhoneWorkingMb: (hostWorkingMb - hostBaseMb) / PHONES },
      bare: { baseMb: bareBaseMb, perPhoneMb: (Math.max(bareIdle.rssMb, bareWorking.rssMb) - bareBaseMb) / PHONES },
    },
    replayed: { idle: bareIdle.counts, working: bareWorking.counts },
    notReplayed: { idle: idleRecording.otherKinds, working: workingRecording.otherKinds },
  };

  console.log(
    `\nOne farm host, ${PHONES} fake phones on a fake adb server (real protocol), a screenshot of each every ${SCREENSHOT_MS / 1000} s (a ${Math.round(pngBytes / 1024)} KB PNG); ${WINDOW_S} s windows; ${cpus().length} cores shared by everything`,
  );
  console.log('| per phone | farm host | bare adbkit loop | host ÷ bare | aim |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| idle: CPU, % of one core | ${pct(idleCpu.cpuPctPerPhone)} | ${pct(bareIdle.cpuPctPerPhone)} | ${times(idleCpu.cpuPct, bareIdle.cpuPct)} | < ${AIM_IDLE} %: ${idleCpu.cpuPctPerPhone < AIM_IDLE ? 'yes' : 'no'} |`,
  );
  console.log(
    `| working: CPU, % of one core | ${pct(workingCpu.cpuPctPerPhone)} | ${pct(bareWorking.cpuPctPerPhone)} | ${times(workingCpu.cpuPct, bareWorking.cpuPct)} | < ${AIM_WORKING} %: ${workingCpu.cpuPctPerPhone < AIM_WORKING ? 'yes' : 'no'} |`,
  );
  console.log(
    `| memory per phone (idle / working) | ${mb(figures.memory.host.perPhoneIdleMb)} / ${mb(figures.memory.host.perPhoneWorkingMb)} | ${mb(figures.memory.bare.perPhoneMb)} | ${figures.memory.bare.perPhoneMb < 0.1 ? '—' : times(figures.memory.host.perPhoneWorkingMb, figures.memory.bare.perPhoneMb)} | |`,
  );
  console.log(`| memory, fixed base (no phone) | ${mb(hostBaseMb)} | ${mb(bareBaseMb)} | ${times(hostBaseMb, bareBaseMb)} | |`);
  const threads = (usage: Record<string, number>) =>
    Object.entries(usage)
      .filter(([, value]) => value >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([name, value]) => `${name} ${pct(value)}`)
      .join(', ');
  console.log(`the host's threads, % of one core: idle ${threads(idleCpu.threadsPct)}; working ${threads(workingCpu.threadsPct)}`);
  console.log(`whole process: idle ${pct(idleCpu.cpuPct)} (bare ${pct(bareIdle.cpuPct)}), working ${pct(workingCpu.cpuPct)} (bare ${pct(bareWorking.cpuPct)})`);
  for (const [name, recording, counts] of [
    ['idle', idleRecording, bareIdle.counts],
    ['working', workingRecording, bareWorking.counts],
  ] as const) {
    const a = activity(recording);
    console.log(
      `${name}: per phone per second ${rate(a.exec)} shell commands (${rate(a.screenshots)} screenshots), ${rate(a.line)} input-shell lines, ${rate(a.uiRequests)} UI server requests (${rate(a.screenReads)} screen reads), ${rate(a.inputs)} inputs; bare loop sent ${counts.sent}, answered ${counts.answered}, failed ${counts.failed}, left out ${counts.skipped}${counts.unanswered.length ? ` (under way at the end: ${counts.unanswered.join('; ')})` : ''}; not sent again: ${recording.other} other adb requests${recording.otherKinds.length ? ` (${recording.otherKinds.join(', ')})` : ''}`,
    );
  }
  if (idleStatus.connected < PHONES) console.log(`note: ${PHONES - idleStatus.connected} phones were not connected at the end of the idle window`);
  if (workingStatus.busy < PHONES) {
    const ended = outcomes.filter((row) => row.status !== 'in-progress');
    console.log(
      `note: only ${workingStatus.busy} of ${PHONES} phones were still running their routine at the end of the working window; ${ended.length} routines ended (first: ${ended[0]?.status ?? '—'}${ended[0]?.failureMessage ? `, ${ended[0].failureMessage}` : ''})`,
    );
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(figures, null, 2)}\n`);
} finally {
  for (const child of children.reverse()) await child.stop().catch(() => undefined);
  api?.kill('SIGTERM');
  await pause(1000);
  await drop();
}
