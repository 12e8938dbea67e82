/**
 * A run's progress reports, as the console hears them: quick steps go as one message, the newest at the end of the
 * gap; the result drops a report still held. The real PhoneAgent against the in-process console of test/fake-console.ts.
 */
import { afterEach, expect, it } from 'vitest';
import { fakeConsole } from '../../test/fake-console.ts';
import type { Ack } from '../messages.ts';
import type { PhoneBackend, WorkContext, WorkOutcome } from './phone-agent.backend.ts';
import { PhoneAgent } from './phone-agent.ts';
import { PROGRESS_GAP_MS } from './phone-agent.tasks.ts';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(10);
  }
}

it('sends quick steps as one report and the newest after the gap; the result drops a report still held', async () => {
  const heard: { what: string; at: number }[] = [];
  const farmConsole = await fakeConsole();
  closers.push(() => farmConsole.close());

  // A recipe whose first five steps are taps a millisecond apart, then, after a pause, two more and its end.
  const run = async (context: WorkContext): Promise<WorkOutcome> => {
    for (const [index, step] of ['Open Settings', 'Tap Network', 'Tap Wi-Fi', 'Tap the network', 'Tap Forget'].entries()) {
      context.progress((index + 1) * 10, step);
      await pause(1);
    }
    await pause(PROGRESS_GAP_MS * 3);
    context.progress(60, 'Confirm');
    context.progress(70, 'Back home');
    return { status: 'completed' };
  };
  const backend: PhoneBackend = {
    describe: () => ({ model: 'Pixel 7', androidVersion: '14', agentVersion: 'test/2' }),
    state: () => ({ battery: 90, charging: true, screenOn: true, status: 'online' }),
    screenshot: async () => undefined,
    run: (_work, context) => run(context),
  };
  const agent = new PhoneAgent({ url: farmConsole.url, token: 'device-token', backend, reconnectionDelayMs: 100 });
  closers.push(() => agent.close());
  await until(() => agent.connected && farmConsole.phone('') !== undefined, 'the agent to connect');
  const phoneSocket = farmConsole.phone('')!;
  phoneSocket.on('task.progress', (message: { percent: number; step?: string }) => heard.push({ what: `${message.percent} ${message.step}`, at: Date.now() }));
  phoneSocket.on('task.result', (message: { status: string }, ack: (answer: Ack) => void) => {
    heard.push({ what: `result ${message.status}`, at: Date.now() });
    ack({ ok: true });
  });

  phoneSocket.emit('task.dispatch', {
    taskId: 't1',
    attempt: 1,
    type: 'warmup',
    title: 'Forget a Wi-Fi network',
    deadline: null,
    protocol: 2,
    work: { kind: 'manual', description: 'Forget the network' },
    ackWithinMs: 10_000,
  });
  await until(() => heard.some(({ what }) => what.startsWith('result')), 'the result');
  await pause(PROGRESS_GAP_MS * 2);

  expect(heard.map(({ what }) => what)).toEqual(['10 Open Settings', '50 Tap Forget', '60 Confirm', 'result completed']);
  // The held report went at the gap's end, not before.
  expect(heard[1]!.at - heard[0]!.at).toBeGreaterThanOrEqual(PROGRESS_GAP_MS - 20);
});
