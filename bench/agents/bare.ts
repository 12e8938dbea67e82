/**
 * The baseline for bench/agents: a bare Socket.IO server on `/agent` that answers every phone message with an ack
 * and does nothing else, plus, when the runner asks, a dispatch → ack round trip to a sample of its phones
 * (answered over IPC as the latencies in ms).
 */
import { createServer } from 'node:http';
import { Server, type Socket } from 'socket.io';

const http = createServer();
const io = new Server(http, { serveClient: false, maxHttpBufferSize: 2e6 });
const phones: Socket[] = [];
const waiting = new Map<string, { at: number; done: (ms: number) => void }>();

io.of('/agent').on('connection', (socket) => {
  phones.push(socket);
  socket.on('disconnect', () => phones.splice(phones.indexOf(socket), 1));
  for (const event of ['agent.hello', 'agent.heartbeat', 'agent.screenshot', 'task.result', 'task.progress']) {
    socket.on(event, (_message: unknown, ack?: (answer: unknown) => void) => ack?.({ ok: true }));
  }
  socket.on('task.ack', (message: { taskId: string }, ack?: (answer: unknown) => void) => {
    const pending = waiting.get(message.taskId);
    if (pending) {
      waiting.delete(message.taskId);
      pending.done(performance.now() - pending.at);
    }
    ack?.({ ok: true });
  });
});

// Not awaited by the emitter: each latency settles (an ack, or NaN after 10 s), so a round does not reject.
process.on('message', (message: { sample: number }) => void sampleRound(message));

async function sampleRound(message: { sample: number }): Promise<void> {
  const chosen = [...phones].sort(() => Math.random() - 0.5).slice(0, message.sample);
  const latencies = await Promise.all(
    chosen.map(
      (socket, i) =>
        new Promise<number>((resolve) => {
          const taskId = `bare-${Date.now()}-${i}`;
          waiting.set(taskId, { at: performance.now(), done: resolve });
          socket.emit('task.dispatch', {
            protocol: 2,
            taskId,
            attempt: 1,
            type: 'post',
            title: 'Bare',
            deadline: null,
            ackWithinMs: 10_000,
            work: { kind: 'manual' },
          });
          setTimeout(() => {
            if (!waiting.delete(taskId)) return;
            resolve(Number.NaN);
          }, 10_000);
        }),
    ),
  );
  process.send?.({ latencies });
}

http.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
