/**
 * The baseline for bench/live: a bare Socket.IO server that relays frames from phones (`/agent`) to the sockets
 * watching them (`/live`) with the same one-frame-in-flight acks (H.264 packets: each to every watcher), and inputs
 * back to the phone — no sessions, no database, no budget, one stream per phone. It speaks the product's event names, so the same phones and watchers drive both.
 */
import { createServer } from 'node:http';
import { Server, type Socket } from 'socket.io';

const http = createServer();
const io = new Server(http, { serveClient: false, maxHttpBufferSize: 2e6 });
const phones = new Map<string, Socket>();
const watching = new Map<string, Set<{ socket: Socket; inFlight: boolean }>>();

io.of('/agent').on('connection', (socket) => {
  const deviceId = String(socket.handshake.auth.deviceId);
  phones.set(deviceId, socket);
  socket.on('agent.hello', (_message: unknown, ack?: (answer: unknown) => void) => {
    ack?.({ ok: true });
    socket.emit('live.start', { fps: 8, maxSide: 720, quality: 60, codec: 'h264', stream: 'watch' });
  });
  // H.264 packets: passed to every watcher in order, no key-frame cache, no backlog check.
  socket.on('live.video', (packet: Record<string, unknown>, ack?: (answer: unknown) => void) => {
    for (const watch of watching.get(deviceId) ?? []) watch.socket.emit('live.video', { ...packet, codec: 'h264', deviceId }, () => undefined);
    ack?.({ ok: true });
  });
  socket.on('live.frame', (frame: Record<string, unknown>, ack?: (answer: unknown) => void) => {
    for (const watch of watching.get(deviceId) ?? []) {
      if (watch.inFlight) continue;
      watch.inFlight = true;
      watch.socket.emit('live.frame', { ...frame, deviceId }, () => (watch.inFlight = false));
    }
    ack?.({ ok: true });
  });
});

io.of('/live').on('connection', (socket) => {
  socket.on('live.watch', ({ deviceId }: { deviceId: string }, ack: (answer: unknown) => void) => {
    let set = watching.get(deviceId);
    if (!set) {
      set = new Set();
      watching.set(deviceId, set);
    }
    set.add({ socket, inFlight: false });
    ack({ ok: true, streaming: true, canControl: true });
  });
  socket.on('live.control', (_message: unknown, ack: (answer: unknown) => void) => ack({ ok: true }));
  socket.on('live.input', (message: { deviceId: string; seq: number; input: unknown }, ack: (answer: unknown) => void) => {
    const sentAt = performance.now();
    phones
      .get(message.deviceId)
      ?.timeout(5000)
      .emit('live.input', { seq: message.seq, input: message.input }, () => ack({ ok: true, latencyMs: performance.now() - sentAt }));
  });
});

http.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
