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
process.on('message', (message) => {
  if (message === 'loop.reset') loop.reset();
  // None measured when the loop was too busy to take the reset before the read (the bare relay, overloaded).
  if (message === 'loop.read') process.send?.({ loopP99: loop.count > 0 ? loop.percentile(99) / 1e6 : null });
});
