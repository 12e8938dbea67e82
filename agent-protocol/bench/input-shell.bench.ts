/**
 * Input over one persistent shell versus one adb shell per command, against the fake adb server on loopback.
 * This measures what the host side pays per command (a connection, the transport switch, a shell service);
 * on a real phone each `input` also starts a process on the phone, which both ways pay alike.
 * Prints both figures and their ratio, measured in the same run.
 */
import { performance } from 'node:perf_hooks';
import { FakeAdbServer } from '../test/fake-adb.server.ts';
import { FakeAndroid } from '../test/fake-android.ts';
import { createAdbClient } from '../src/adb/adb.host.ts';
import { AdbPhone } from '../src/adb/adb.phone.ts';

const COMMANDS = Number(process.env.COMMANDS ?? 300);

const server = new FakeAdbServer();
await server.listen();
const fake = new FakeAndroid({ serial: 'BENCH-1' });
server.plug(fake);
const client = createAdbClient({ adbPort: server.port });
const phone = new AdbPhone('BENCH-1', client.getDevice('BENCH-1'));

async function measure(label: string, send: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await send(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < COMMANDS; i++) await send(i);
  const perCommand = (performance.now() - start) / COMMANDS;
  console.log(`${label.padEnd(28)} ${perCommand.toFixed(3)} ms per command`);
  return perCommand;
}

const persistent = await measure('persistent shell', (i) => phone.tap(100 + (i % 50), 200));
const perProcess = await measure('one shell per command', (i) => phone.exec(`input tap ${100 + (i % 50)} 200`));
console.log(`one shell per command / persistent shell: ${(perProcess / persistent).toFixed(2)}x (${COMMANDS} commands each, loopback)`);
console.log(`shells opened for ${COMMANDS + 20} persistent taps: ${phone.inputShellsOpened}`);
await phone.close();
await server.close();
