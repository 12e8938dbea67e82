/**
 * The baseline for bench/host: a bare loop on the adb client library the farm host uses (adbkit, through the host's
 * own `createAdbClient`), sending the fake phones the requests the host sent them, at the same times: each one-shot
 * shell command read to its end, each line written into one kept-open `sh` per phone, each UI server request written
 * into a fresh `tcp:` stream and its answer read to the end. It parses nothing and keeps nothing: what is left is the
 * cost of talking adb to that many phones at that rate.
 *
 * Messages from the parent: `{ gc: true }` → `{ gc: true }` (a collection before a memory reading); `{ replay }` →
 * `{ replayed: { sent, answered, failed, skipped } }` once the recording's span has passed.
 */
import type { Duplex } from 'node:stream';
import { createAdbClient } from '../../agent-protocol/src/adb/adb.host.ts';
import { pause } from '../lib.ts';
import type { Recorded, Recording } from './record.ts';

const client = createAdbClient({ adbHost: '127.0.0.1', adbPort: Number(process.env.BENCH_ADB_PORT), adbBin: '/nonexistent/adb' });
/** One kept-open `sh` per phone, as the host keeps one for input. */
const shells = new Map<string, Promise<Duplex>>();
/** Past this an answer is not waited for (as the host's own limits end a command). */
const ANSWER_MS = 20_000;

/** Reads a stream to its end (or ANSWER_MS), keeping nothing. */
function drain(stream: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stream.destroy();
      resolve();
    }, ANSWER_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.on('data', () => undefined);
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}

function shell(serial: string): Promise<Duplex> {
  const open = shells.get(serial);
  if (open) return open;
  const opened = (async () => {
    const stream: Duplex = await client.getDevice(serial).shell('sh');
    stream.on('data', () => undefined);
    stream.once('close', () => shells.delete(serial));
    return stream;
  })();
  shells.set(serial, opened);
  return opened;
}

async function send(event: Recorded): Promise<void> {
  const device = client.getDevice(event.serial);
  switch (event.kind) {
    case 'exec':
      return drain(await device.shell(event.text));
    case 'line': {
      (await shell(event.serial)).write(`${event.text}\n`);
      return;
    }
    case 'tcp': {
      const stream = await device.openTcp(event.port ?? 6790);
      const answered = drain(stream);
      stream.write(Buffer.from(event.text, 'base64'));
      return answered;
    }
  }
}

/**
 * Sends every request at its time. Starting the UI server again (`am instrument`) is left out: it would end the
 * running one, whose session the recorded requests name.
 */
async function replay(recording: Recording): Promise<void> {
  const start = performance.now();
  const counts = { sent: 0, answered: 0, failed: 0, skipped: 0, unanswered: [] as string[] };
  const open = new Set<Recorded>();
  const events = [...recording.events].sort((a, b) => a.at - b.at);
  for (const event of events) {
    if (event.kind === 'exec' && /\bam instrument\b/.test(event.text)) {
      counts.skipped += 1;
      continue;
    }
    const wait = start + event.at - performance.now();
    if (wait > 1) await pause(wait);
    counts.sent += 1;
    open.add(event);
    send(event).then(
      () => {
        open.delete(event);
        counts.answered += 1;
      },
      () => {
        open.delete(event);
        counts.failed += 1;
      },
    );
  }
  await pause(start + recording.ms - performance.now());
  // What was still under way when the span ended, by kind (a few sent in its last moments are expected).
  counts.unanswered = [...new Set([...open].map((event) => `${event.kind} ${event.kind === 'tcp' ? 'request' : event.text.slice(0, 40)}`))].slice(0, 5);
  process.send?.({ replayed: counts });
}

process.on('message', (message: { gc?: boolean; replay?: Recording; stop?: boolean }) => {
  if (message.gc) {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ gc: true });
  }
  if (message.replay) void replay(message.replay);
  if (message.stop) process.exit(0);
});
process.send?.({ ready: true });
