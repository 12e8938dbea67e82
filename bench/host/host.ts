/**
 * The farm host of bench/host, alone in its process so its CPU and memory are its own: a real FarmHost with the adb
 * backend on the fake adb server (BENCH_ADB_PORT), connected to BENCH_SERVER with the host credential
 * BENCH_HOST_TOKEN, set as `farm-agent host` sets it (a screenshot of each phone every BENCH_SCREENSHOT_MS, 15 s as
 * the command's default) except that the live screen stays JPEG (no scrcpy-server file: nobody watches here).
 *
 * Messages from the parent: `{ status: true }` → `{ status: { phones, connected, busy } }`; `{ gc: true }` →
 * `{ gc: true }` (a collection before a memory reading); with BENCH_PROFILE=DIR, `{ profile: phase }` starts a CPU
 * profile and `{ profiled: phase }` writes it to DIR/host-<phase>.cpuprofile → `{ profiled: true }`; `{ stop: true }` ends the process at once, as a power cut
 * would (what the phones run stays running: the bare loop's requests name the UI servers' sessions).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentState } from '../../agent-protocol/src/agent/state.ts';
import { FarmHost } from '../../agent-protocol/src/host/host.ts';

const log = process.env.BENCH_VERBOSE === '1' ? (line: string) => console.error(`[host] ${line}`) : undefined;
const host = new FarmHost({
  server: process.env.BENCH_SERVER!,
  token: process.env.BENCH_HOST_TOKEN!,
  state: new AgentState(mkdtempSync(join(tmpdir(), 'farm-bench-host-'))),
  backend: 'adb',
  adbHost: '127.0.0.1',
  adbPort: Number(process.env.BENCH_ADB_PORT),
  scrcpyServer: false,
  screenshotMs: Number(process.env.BENCH_SCREENSHOT_MS ?? 15_000),
  // No adb program: a lost fake server must not make adbkit start a real one on its port.
  adb: { adbBin: '/nonexistent/adb' },
  ...(log ? { log } : {}),
});
await host.start();

/** BENCH_PROFILE=DIR: a CPU profile of each measured window, `host-<phase>.cpuprofile` in DIR. */
const profiler = process.env.BENCH_PROFILE ? new Session() : null;
profiler?.connect();
const post = (method: string) =>
  new Promise<unknown>((resolve, reject) => profiler?.post(method, (error, result) => (error ? reject(error) : resolve(result))));

process.on('message', (message: { status?: boolean; gc?: boolean; stop?: boolean; profile?: string; profiled?: string }) => {
  if (message.profile && profiler) void post('Profiler.enable').then(() => post('Profiler.start'));
  if (message.profiled && profiler) {
    void post('Profiler.stop').then((result) => {
      const { profile } = result as { profile: object };
      writeFileSync(join(process.env.BENCH_PROFILE!, `host-${message.profiled}.cpuprofile`), JSON.stringify(profile));
      process.send?.({ profiled: true });
    });
  }
  if (message.status) {
    const agents = host.serials.map((serial) => host.agent(serial));
    process.send?.({
      status: {
        phones: agents.length,
        connected: agents.filter((agent) => agent?.connected).length,
        busy: agents.filter((agent) => agent?.busy).length,
      },
    });
  }
  if (message.gc) {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ gc: true });
  }
  if (message.stop) process.exit(0);
});
process.send?.({ started: true });
