/** The product API (with its Socket.IO gateway) and, on another port, a bare Socket.IO relay to compare with. */
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Server } from 'socket.io';
import { buildApp } from '../../api/src/app.ts';
import { loadConfig } from '../../api/src/config.ts';
import { openProductDatabase } from '../../api/src/db/database.ts';

const config = { ...loadConfig(), logLevel: 'silent' as const, demo: false };
const database = await openProductDatabase(config);
const app = await buildApp({ config, database });
await app.listen({ port: config.port, host: '127.0.0.1' });

// Baseline: what Socket.IO alone costs for the same fan-out (a phone's message relayed to every browser).
const bare = createServer();
const io = new Server(bare, { serveClient: false });
io.of('/phones').on('connection', (socket) => {
  socket.on('beat', (payload: unknown) => io.to('browsers').emit('device.updated', payload));
});
io.on('connection', (socket) => void socket.join('browsers'));
bare.listen(Number(process.env.BARE_PORT), '127.0.0.1', () => process.send?.('ready'));

// The server's event-loop delay over a measured phase, for the run to print beside its own.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
// With BENCH_CPU_PROF=<dir>, each measured phase is profiled too (phase-1 the bare relay, phase-2 the product).
const profileDir = process.env.BENCH_CPU_PROF;
const profiler = profileDir ? new (await import('node:inspector/promises')).Session() : undefined;
profiler?.connect();
let phase = 0;
/** The process's CPU time from the measured phase's start: with the load and other work sharing the cores, CPU per heartbeat is steadier than latency. */
let cpuFrom = process.cpuUsage();
process.on('message', (message) => {
  if (message === 'loop.reset') {
    loop.reset();
    cpuFrom = process.cpuUsage();
    if (profiler) void profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'));
  }
  if (message === 'loop.read' && profiler) {
    phase += 1;
    void profiler.post('Profiler.stop').then(async ({ profile }) => {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${profileDir}/phase-${phase}.cpuprofile`, JSON.stringify(profile));
    });
  }
  // None measured when the loop was too busy to take the reset before the read (the bare relay, overloaded).
  if (message === 'loop.read') {
    const cpu = process.cpuUsage(cpuFrom);
    process.send?.({ loopP99: loop.count > 0 ? loop.percentile(99) / 1e6 : null, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
