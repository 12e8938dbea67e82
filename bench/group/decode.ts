/**
 * bench:group-decode, group control's pictures decoded in a browser: does one page keep 30 phones' `watch` streams
 * and the leader's `control` stream drawn? In headless Chromium (Debian's, software decoding), a page served from
 * 127.0.0.1 (WebCodecs needs a secure context) renders web's own GroupPicture, as GroupTile and LeaderScreen place
 * it, once per phone, each with the live screens' H.264 player (devices.video.ts) on WebCodecs, fed through the real
 * GroupSession by a stand-in socket. The streams are ffmpeg clips (libx264 baseline, Annex B, cut as scrcpy sends:
 * SPS/PPS, then an IDR and P frames, a key frame every 2 s, a moving test pattern), played at real time: 30 followers
 * at 216x480 and 15 FPS (the `watch` stream's most) and the leader at 324x720 and 30 FPS, each starting at its own
 * moment so their key frames do not coincide. The page is built by Vite from web's sources (bench/group/decode/).
 *
 * Three pages, one after another in the same browser: one follower alone and the leader alone (the baselines), then
 * the group. Each is measured over BENCH_WINDOW_S (20) after BENCH_WARMUP_S (4, every stream started and past its
 * first key frame). Per page: pictures drawn a second per stream (followers p50 and min, the leader; and the worst
 * single second of any follower and of the leader, read every second), pictures fed and not decoded (the player
 * waiting for a key frame, or leaving out pictures none refers to while behind), decoded and not drawn (drawing paced
 * while behind), the decoders' queue (`decodeQueueSize` right after a request, and pictures in the decoder) at most,
 * main-thread long tasks (PerformanceObserver 'longtask'), animation frames a second, and Chromium's CPU from /proc
 * (every process of the browser this bench started, by kind). The budget: each follower keeps at least 12 of its 15
 * FPS drawn and the leader 25 of its 30; printed met or missed.
 *
 * BENCH_FOLLOWERS (30), BENCH_WINDOW_S (20), BENCH_WARMUP_S (4; under 3 the window holds streams still starting, as
 * they start spread over 2 s and wait for their first key frame), CHROMIUM_PATH (/usr/bin/chromium), BENCH_JSON.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from '../../web/node_modules/playwright-core/index.js';
import { clipPackets, makeClip } from '../../agent-protocol/test/fake-scrcpy.ts';
import { pause, percentile } from '../lib.ts';

const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 30);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 20);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 4);
const FOLLOWER_FPS = 15;
const LEADER_FPS = 30;
/** The budget: pictures drawn a second each follower and the leader keep. */
const FOLLOWER_BUDGET = 12;
const LEADER_BUDGET = 25;
const TICKS = 100; // clock ticks per second (getconf CLK_TCK)

const here = fileURLToPath(new URL('.', import.meta.url));
const web = fileURLToPath(new URL('../../web/', import.meta.url));
const requireFromWeb = createRequire(join(web, 'package.json'));

// The clips, as a phone's scrcpy-server sends them: a key frame every 2 s, no B-frames, one slice a picture.
function clip(width: number, height: number, fps: number, stream: 'watch' | 'control') {
  const packets = clipPackets(makeClip('testsrc', { width, height, fps, frames: fps * 6, gop: fps * 2 }), fps);
  return {
    width,
    height,
    fps,
    stream,
    packets: packets.map((packet) => ({ config: packet.config, keyFrame: packet.keyFrame, ptsUs: packet.ptsUs, data: packet.data.toString('base64') })),
  };
}
const clips = JSON.stringify({ follower: clip(216, 480, FOLLOWER_FPS, 'watch'), leader: clip(324, 720, LEADER_FPS, 'control') });

// The page, built from web's sources as the app is (web's own Vite and React plugin).
const outDir = mkdtempSync(join(tmpdir(), 'farm-group-decode-'));
const vite = (await import(
  pathToFileURL(join(web, 'node_modules/vite/dist/node/index.js')).href
)) as typeof import('../../web/node_modules/vite/dist/node/index.js');
const react = (await import(pathToFileURL(join(web, 'node_modules/@vitejs/plugin-react/dist/index.js')).href)) as { default: () => unknown };
await vite.build({
  configFile: false,
  logLevel: 'warn',
  root: join(here, 'decode'),
  plugins: [react.default() as never],
  resolve: { alias: { react: join(web, 'node_modules/react'), 'react-dom': join(web, 'node_modules/react-dom') } },
  build: { outDir, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 4096 },
});

const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path === '/clips.json') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(clips);
    return;
  }
  const file = join(outDir, normalize(path === '/' ? '/index.html' : path));
  if (!file.startsWith(outDir) || !existsSync(file)) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** This process's descendants whose command is Chromium's, with their kind (browser, renderer, gpu-process…). */
function chromiumProcesses(): { pid: number; kind: string; cpu: number }[] {
  const parents = new Map<number, number>();
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      stats.set(Number(entry), fields);
    } catch {
      // The process ended while we looked.
    }
  }
  const ours = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === process.pid) return true;
    return false;
  };
  const found: { pid: number; kind: string; cpu: number }[] = [];
  for (const [pid, fields] of stats) {
    if (!ours(pid)) continue;
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!command.includes('chromium')) continue;
    const kind = /--type=([\w-]+)/.exec(command)?.[1] ?? 'browser';
    found.push({ pid, kind, cpu: (Number(fields[11]) + Number(fields[12])) / TICKS });
  }
  return found;
}

/** The whole machine's busy CPU seconds so far (every core, every process: the bench shares the machine). */
function machineBusy(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS;
}

interface Counted {
  fed: number;
  sent: number;
  decoded: number;
  drawn: number;
  queueMax: number;
  inDecoderMax: number;
  errors: number;
}
interface Snapshot {
  at: number;
  streams: Record<string, Counted>;
  longTasks: number;
  longTaskMs: number;
  animationFrames: number;
  drawingLoad: { perSecond: number; tiles: number };
  onScreen: number;
}

interface PageFigures {
  name: string;
  followers: number;
  leader: boolean;
  seconds: number;
  /** Pictures drawn a second per follower (p50, min) and the leader's. */
  followerFpsP50: number | null;
  followerFpsMin: number | null;
  leaderFps: number | null;
  /** The leader's share of the pictures not decoded and not drawn below. */
  leaderNotDecoded: number | null;
  leaderNotDrawn: number | null;
  /** The fewest pictures drawn in one second of the window: by any follower, by the leader. */
  followerWorstSecond: number | null;
  leaderWorstSecond: number | null;
  /** Over every stream in the window: pictures fed, not decoded, decoded and not drawn. */
  fed: number;
  notDecoded: number;
  notDrawn: number;
  decoderErrors: number;
  queueMax: number;
  inDecoderMax: number;
  longTasks: number;
  longTaskMs: number;
  animationFps: number;
  /** The page's own drawing-load counter (GroupPicture's drawingLoad) at the end. */
  drawingLoadPerSecond: number;
  tilesOnScreen: number;
  /** Chromium's CPU, % of one core: every process, the renderer alone. */
  chromiumCpuPct: number;
  rendererCpuPct: number;
  /** By process kind (browser, renderer, gpu-process, utility, zygote). */
  cpuPctByKind: Record<string, number>;
  machineBusyPct: number;
}

async function measure(page: Page, name: string, followers: number, leader: boolean): Promise<PageFigures> {
  await page.goto(`${origin}/?followers=${followers}&leader=${leader ? 1 : 0}`);
  await page.waitForFunction('window.__benchStarted === true', undefined, { timeout: 30_000 });
  await pause(WARMUP_S * 1000);
  const cpuBefore = new Map(chromiumProcesses().map((p) => [p.pid, p.cpu]));
  const busyBefore = machineBusy();
  const before = (await page.evaluate('window.__benchSnapshot(true)')) as Snapshot;
  // Read every second, for each stream's worst second (the reading is a few microseconds of the page's thread).
  const readings: Snapshot[] = [before];
  const startedAt = Date.now();
  for (let second = 1; second <= WINDOW_S; second++) {
    await pause(startedAt + second * 1000 - Date.now());
    readings.push((await page.evaluate('window.__benchSnapshot()')) as Snapshot);
  }
  const after = readings.at(-1)!;
  const busy = machineBusy() - busyBefore;
  const cpuAfter = chromiumProcesses();
  const seconds = (after.at - before.at) / 1000;
  const used = (kinds?: string[]) => cpuAfter.filter((p) => !kinds || kinds.includes(p.kind)).reduce((sum, p) => sum + p.cpu - (cpuBefore.get(p.pid) ?? 0), 0);
  const delta = (id: string, key: keyof Counted) => after.streams[id]![key] - (before.streams[id]?.[key] ?? 0);
  const ids = Object.keys(after.streams);
  const followerIds = ids.filter((id) => id !== 'leader');
  const followerFps = followerIds.map((id) => delta(id, 'drawn') / seconds);
  /** A stream's fewest pictures drawn in one second of the window (each reading's interval, scaled to a second). */
  const worstSecond = (id: string) =>
    Math.min(
      ...readings.slice(1).map((reading, i) => {
        const previous = readings[i]!;
        return (reading.streams[id]!.drawn - previous.streams[id]!.drawn) / ((reading.at - previous.at) / 1000);
      }),
    );
  const sum = (key: keyof Counted) => ids.reduce((total, id) => total + delta(id, key), 0);
  const fed = sum('fed');
  const sent = sum('sent');
  const decoded = sum('decoded');
  return {
    name,
    followers,
    leader,
    seconds,
    followerFpsP50: followerFps.length ? percentile(followerFps, 50) : null,
    followerFpsMin: followerFps.length ? Math.min(...followerFps) : null,
    leaderFps: leader ? delta('leader', 'drawn') / seconds : null,
    leaderNotDecoded: leader ? delta('leader', 'fed') - delta('leader', 'sent') : null,
    leaderNotDrawn: leader ? delta('leader', 'decoded') - delta('leader', 'drawn') : null,
    followerWorstSecond: followerIds.length ? Math.min(...followerIds.map(worstSecond)) : null,
    leaderWorstSecond: leader ? worstSecond('leader') : null,
    fed,
    notDecoded: fed - sent,
    notDrawn: decoded - sum('drawn'),
    decoderErrors: sum('errors'),
    queueMax: Math.max(...ids.map((id) => after.streams[id]!.queueMax)),
    inDecoderMax: Math.max(...ids.map((id) => after.streams[id]!.inDecoderMax)),
    longTasks: after.longTasks - before.longTasks,
    longTaskMs: after.longTaskMs - before.longTaskMs,
    animationFps: (after.animationFrames - before.animationFrames) / seconds,
    drawingLoadPerSecond: after.drawingLoad.perSecond,
    tilesOnScreen: after.onScreen,
    chromiumCpuPct: (100 * used()) / seconds,
    cpuPctByKind: Object.fromEntries([...new Set(cpuAfter.map((p) => p.kind))].map((kind) => [kind, Number(((100 * used([kind])) / seconds).toFixed(1))])),
    rendererCpuPct: (100 * used(['renderer'])) / seconds,
    machineBusyPct: (100 * busy) / seconds,
  };
}

const { chromium } = requireFromWeb('playwright-core') as typeof import('../../web/node_modules/playwright-core/index.js');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
});
const browserVersion = browser.version();
const loadBefore = loadavg();
const results: PageFigures[] = [];
let supported = false;
try {
  const pages: [string, number, boolean][] = [
    ['1 follower (baseline)', 1, false],
    ['leader alone (baseline)', 0, true],
    [`${FOLLOWERS} followers + leader`, FOLLOWERS, true],
  ];
  for (const [name, followers, leader] of pages) {
    // Every tile on screen (the page decodes no tile off screen): ten columns of 245 px tall tiles, the leader 1000 px.
    const context = await browser.newContext({ viewport: { width: 1600, height: Math.max(1000, Math.ceil(followers / 10) * 247) } });
    try {
      const page = await context.newPage();
      if (!supported) {
        await page.goto(`${origin}/clips.json`);
        supported = (await page.evaluate(
          `VideoDecoder.isConfigSupported({ codec: 'avc1.42c01e', optimizeForLatency: true }).then((answer) => answer.supported === true)`,
        )) as boolean;
        if (!supported) throw new Error('this Chromium cannot decode H.264 baseline with WebCodecs');
      }
      results.push(await measure(page, name, followers, leader));
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.close();
  rmSync(outDir, { recursive: true, force: true });
}

const [one, leaderAlone, group] = results as [PageFigures, PageFigures, PageFigures];
const fps = (value: number | null) => (value === null ? '—' : value.toFixed(1));
const share = (part: number, whole: number) => (whole > 0 ? `${part} (${((100 * part) / whole).toFixed(1)} %)` : String(part));
console.log(
  `\nbench:group-decode: ${FOLLOWERS} followers 216x480 @ ${FOLLOWER_FPS} FPS + the leader 324x720 @ ${LEADER_FPS} FPS, H.264 baseline, ` +
    `headless Chromium ${browserVersion} (software decoding), ${WINDOW_S} s each after ${WARMUP_S} s; ${cpus().length} cores, load ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);
const header = [
  'page'.padEnd(26),
  'follower fps p50/min/worst s'.padStart(28),
  'leader fps/worst s'.padStart(18),
  'fed'.padStart(6),
  'not decoded'.padStart(14),
  'not drawn'.padStart(14),
  'queue/in dec.'.padStart(13),
  'long tasks'.padStart(15),
  'rAF/s'.padStart(6),
  'Chromium CPU'.padStart(13),
  'renderer'.padStart(9),
  'machine'.padStart(8),
];
console.log(header.join(' '));
for (const r of results) {
  console.log(
    [
      r.name.padEnd(26),
      (r.followerFpsP50 === null ? '—' : `${fps(r.followerFpsP50)} / ${fps(r.followerFpsMin)} / ${fps(r.followerWorstSecond)}`).padStart(28),
      (r.leaderFps === null ? '—' : `${fps(r.leaderFps)} / ${fps(r.leaderWorstSecond)}`).padStart(18),
      String(r.fed).padStart(6),
      share(r.notDecoded, r.fed).padStart(14),
      share(r.notDrawn, r.fed).padStart(14),
      `${r.queueMax} / ${r.inDecoderMax}`.padStart(13),
      `${r.longTaskMs.toFixed(0)} ms (${r.longTasks})`.padStart(15),
      r.animationFps.toFixed(0).padStart(6),
      `${r.chromiumCpuPct.toFixed(0)} %`.padStart(13),
      `${r.rendererCpuPct.toFixed(0)} %`.padStart(9),
      `${r.machineBusyPct.toFixed(0)} %`.padStart(8),
    ].join(' '),
  );
}
const followersMet = (group.followerFpsMin ?? 0) >= FOLLOWER_BUDGET;
const leaderMet = (group.leaderFps ?? 0) >= LEADER_BUDGET;
console.log(
  `group page: tiles on screen ${group.tilesOnScreen}, the page's own drawing load ${group.drawingLoadPerSecond} pictures/s, decoder errors ${group.decoderErrors}, ` +
    `the leader's share of not decoded / not drawn ${group.leaderNotDecoded} / ${group.leaderNotDrawn}; ` +
    `per stream vs alone: follower p50 ${fps(group.followerFpsP50)} vs ${fps(one.followerFpsP50)}, leader ${fps(group.leaderFps)} vs ${fps(leaderAlone.leaderFps)}`,
);
for (const r of results) {
  const kinds = Object.entries(r.cpuPctByKind)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, pct]) => `${kind} ${pct.toFixed(0)} %`);
  console.log(`Chromium's CPU by process, ${r.name}: ${kinds.join(', ')}`);
}
console.log(
  `budget: every follower ≥ ${FOLLOWER_BUDGET} FPS drawn: ${followersMet ? 'met' : 'missed'} (min ${fps(group.followerFpsMin)}; worst second of any follower ${fps(group.followerWorstSecond)})`,
);
console.log(
  `budget: the leader ≥ ${LEADER_BUDGET} FPS drawn: ${leaderMet ? 'met' : 'missed'} (${fps(group.leaderFps)}; worst second ${fps(group.leaderWorstSecond)})`,
);

if (process.env.BENCH_JSON) {
  writeFileSync(
    process.env.BENCH_JSON,
    JSON.stringify({ followers: FOLLOWERS, windowS: WINDOW_S, cores: cpus().length, load: loadBefore, one, leaderAlone, group, followersMet, leaderMet }),
  );
}
