/**
 * The product API (with its Socket.IO gateway), or with SERVE=bare a bare Socket.IO relay to compare with, each in a
 * process of its own: the bare relay falls behind at the realtime bench's scale, and what it leaves behind (its
 * sockets' buffers, their collection) goes with its process rather than weighing on the product's phase.
 */
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Server } from 'socket.io';
import { buildApp } from '../../api/src/app.ts';
import { loadConfig } from '../../api/src/config.ts';
import { openProductDatabase } from '../../api/src/db/database.ts';

if (process.env.SERVE === 'bare') {
  // Baseline: what Socket.IO alone costs for the same fan-out (a phone's changed heartbeat relayed to every browser).
  const bare = createServer();
  const io = new Server(bare, { serveClient: false });
  io.of('/phones').on('connection', (socket) => {
    socket.on('beat', (payload: { changed?: boolean }) => {
      if (payload.changed !== false) io.to('browsers').emit('device.updated', payload);
    });
  });
  io.on('connection', (socket) => void socket.join('browsers'));
  await new Promise<void>((resolve) => bare.listen(Number(process.env.PORT), '127.0.0.1', resolve));
} else {
  const config = { ...loadConfig(), logLevel: 'silent' as const, demo: false };
  const database = await openProductDatabase(config);
  const app = await buildApp({ config, database });
  await app.listen({ port: config.port, host: '127.0.0.1' });
}
process.send?.('ready');

// The server's event-loop delay over a measured phase, for the run to print beside its own.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
// With BENCH_CPU_PROF=<dir>, each measured phase is profiled too (bare-relay.cpuprofile, product.cpuprofile).
const profileDir = process.env.BENCH_CPU_PROF;
const profiler = profileDir ? new (await import('node:inspector/promises')).Session() : undefined;
profiler?.connect();
/** The profile of the phase under way, started at its reset (a phase whose reset never came has none). */
let recording: Promise<unknown> | undefined;
/** The process's CPU time from the measured phase's start: with the load and other work sharing the cores, CPU per heartbeat is steadier than latency. */
let cpuFrom = process.cpuUsage();
process.on('message', (message) => {
  if (message === 'loop.reset') {
    loop.reset();
    cpuFrom = process.cpuUsage();
    if (profiler) recording = profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'));
  }
  if (message === 'loop.read' && profiler && recording) {
    const name = `${profileDir}/${process.env.SERVE === 'bare' ? 'bare-relay' : 'product'}.cpuprofile`;
    recording
      .then(() => profiler.post('Profiler.stop'))
      .then(async ({ profile }) => {
        const { writeFileSync } = await import('node:fs');
        writeFileSync(name, JSON.stringify(profile));
      })
      .catch((error: unknown) => console.error(`no profile of ${name}:`, error));
    recording = undefined;
  }
  // None measured when the loop was too busy to take the reset before the read (the bare relay, overloaded).
  if (message === 'loop.read') {
    const cpu = process.cpuUsage(cpuFrom);
    process.send?.({ loopP99: loop.count > 0 ? loop.percentile(99) / 1e6 : null, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
