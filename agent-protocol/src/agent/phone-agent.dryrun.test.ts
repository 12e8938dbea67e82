/**
 * Dry runs end to end on the agent's side: the real PhoneAgent and DeviceBackend over the simulated phone (its
 * screens the real apps' trees, its frames its renderer's), against an in-process Socket.IO server standing in for the
 * console. The console's side of these messages is built elsewhere; here the phone is checked against the protocol.
 * Also here, with the same stand-in console: what a post cut off by its farm host reports (its failed step's trace and
 * whether its share tap had started).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { dryRunAgentMessages, failure as failureSchema, failureTrace, traceStep, type TraceStep } from '../index.ts';
import { agentMessages, type Ack } from '../messages.ts';
import { manualClock } from '../recipes/recipe.pacing.ts';
import { SHIPPED_RECIPES_DIR } from '../recipes/recipe.resolver.ts';
import type { RecipeInput } from '../recipes/recipe.schema.ts';
import { SimulatedPhoneUi } from '../simphone/simphone.device.ts';
import { DeviceBackend } from './device-backend.ts';
import { PhoneAgent, withoutTraceFrame, type WorkContext } from './phone-agent.ts';
import { SimulatedBackend } from './simulator.ts';
import { FarmHost } from '../host/host.ts';
import { AgentState } from './state.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Console {
  url: string;
  hellos: Record<string, unknown>[];
  steps: { runId: string; step: TraceStep }[];
  results: Record<string, unknown>[];
  heartbeats: { status: string }[];
  taskAcks: unknown[];
  taskResults: Record<string, unknown>[];
  phone(): ServerSocket;
  close(): Promise<void>;
}

/** The console's agent namespace, as far as a phone needs one: hello answered, the rest gathered and answered. */
async function fakeConsole(options: { refuseSteps?: boolean } = {}): Promise<Console> {
  const http: HttpServer = createServer();
  const io = new Server(http);
  const state = {
    hellos: [] as Record<string, unknown>[],
    steps: [] as { runId: string; step: TraceStep }[],
    results: [] as Record<string, unknown>[],
    heartbeats: [] as { status: string }[],
    taskAcks: [] as unknown[],
    taskResults: [] as Record<string, unknown>[],
  };
  let socket: ServerSocket | undefined;
  io.of('/agent').on('connection', (connected) => {
    const auth = connected.handshake.auth as { hostToken?: string; serial?: string };
    if (auth.hostToken && !auth.serial) {
      // A farm host's control connection: welcomed, nothing more.
      connected.on('host.hello', (_message: unknown, ack: (answer: Ack) => void) => ack({ ok: true, hostName: 'Desk host' }));
      return;
    }
    socket = connected;
    connected.on('agent.hello', (message: Record<string, unknown>, ack: (answer: unknown) => void) => {
      state.hellos.push(message);
      ack({ ok: true, protocol: 2, heartbeatMs: 100, deviceId: 'd1', deviceName: 'Sim one' });
    });
    connected.on('agent.heartbeat', (message: { status: string }) => state.heartbeats.push(message));
    connected.on('task.ack', (message: unknown) => state.taskAcks.push(message));
    connected.on('task.result', (message: Record<string, unknown>, ack: (answer: Ack) => void) => {
      state.taskResults.push(message);
      ack({ ok: true });
    });
    connected.on('dryrun.step', (message: unknown, ack: (answer: Ack) => void) => {
      // Checked as the console checks it: the protocol's own schema.
      const parsed = dryRunAgentMessages['dryrun.step'].safeParse(message);
      if (!parsed.success) return ack({ ok: false, error: parsed.error.issues[0]?.message ?? 'not valid' });
      state.steps.push(parsed.data);
      ack(options.refuseSteps ? { ok: false, error: 'No such dry run.' } : { ok: true });
    });
    connected.on('dryrun.result', (message: Record<string, unknown>, ack: (answer: Ack) => void) => {
      const parsed = dryRunAgentMessages['dryrun.result'].safeParse(message);
      if (!parsed.success) return ack({ ok: false, error: parsed.error.issues[0]?.message ?? 'not valid' });
      state.results.push(parsed.data);
      ack({ ok: true });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ...state,
    phone: () => {
      if (!socket) throw new Error('no phone connected');
      return socket;
    },
    close: async () => {
      await io.close();
    },
  };
}

async function until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const settle = (ms = 150) => new Promise((resolve) => setTimeout(resolve, ms));

/** Instagram's shipped warm-up with these steps (its elements, start and guards as shipped). */
function warmupWith(steps: RecipeInput['steps']): Record<string, unknown> {
  const shipped = JSON.parse(readFileSync(`${SHIPPED_RECIPES_DIR}instagram/warmup.json`, 'utf8')) as RecipeInput;
  return { ...shipped, id: 'workspace.like-first', version: 1, steps } as unknown as Record<string, unknown>;
}

const likeFirst = warmupWith([
  { do: 'wait_for', target: 'like_button', label: 'Wait for the first post' },
  { do: 'toggle', target: 'like_button', off: [{ selected: false }], on: [{ selected: true }], counts: 'like', within: '3s', label: 'Like the first post' },
  { do: 'swipe', direction: 'up', count: 1, pause: '1s', label: 'Next post' },
]);

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function simulatedAgent(options: { challenge?: 'login'; refuseSteps?: boolean } = {}) {
  const server = await fakeConsole({ refuseSteps: options.refuseSteps ?? false });
  const ui = new SimulatedPhoneUi({ serial: 'SIM-DRY', ...(options.challenge ? { challenge: options.challenge } : {}) });
  const backend = await new DeviceBackend(ui, {
    agentVersion: 'test/2',
    preflight: 'no-account',
    recipeOptions: { clock: manualClock(Date.now()), pollMs: 500, busyPauseMs: 1 },
  }).start();
  const logs: string[] = [];
  const agent = new PhoneAgent({ url: server.url, token: 'device-token', backend, reconnectionDelayMs: 100, log: (line) => logs.push(line) });
  closers.push(
    () => server.close(),
    () => backend.close(),
    () => agent.close(),
  );
  await until(() => agent.connected, 'the agent to connect');
  return { server, ui, agent, logs };
}

function start(server: Console, message: Record<string, unknown>): Promise<Ack> {
  return server.phone().timeout(5000).emitWithAck('dryrun.start', message) as Promise<Ack>;
}

const startMessage = (extra: Record<string, unknown> = {}) => ({
  runId: 'run-1',
  recipe: likeFirst,
  params: {},
  mode: 'step',
  effects: true,
  preflight: { account: null },
  ...extra,
});

describe('dry runs on a simulated phone', () => {
  it('lists dryrun in its hello; the quick simulator backend does not', async () => {
    const { server } = await simulatedAgent();
    expect(server.hellos[0]?.features).toContain('dryrun');

    const other = await fakeConsole();
    const simple = new PhoneAgent({ url: other.url, token: 't', backend: new SimulatedBackend() });
    closers.push(
      () => other.close(),
      () => simple.close(),
    );
    await until(() => simple.connected, 'the simple agent to connect');
    expect(other.hellos[0]?.features ?? []).not.toContain('dryrun');
  });

  it('runs step by step: one traced step per next, each with its frame and tree, then the result with the app', async () => {
    const { server, ui } = await simulatedAgent();
    expect(await start(server, startMessage())).toEqual({ ok: true });
    await settle();
    // Nothing runs before the person asks for the first step.
    expect(server.steps).toEqual([]);
    expect(ui.taps).toEqual([]);
    // Busy meanwhile: another dry run is refused, a task is left unacknowledged, heartbeats say busy.
    expect(await start(server, startMessage({ runId: 'run-2' }))).toEqual({ ok: false, error: 'The phone is already running a dry run.' });
    const dispatch = (attempt: number) =>
      server.phone().emit('task.dispatch', {
        taskId: 'task-1',
        attempt,
        type: 'warmup',
        title: 'Warm up',
        deadline: null,
        protocol: 2,
        work: { kind: 'manual', description: 'Check the phone' },
        ackWithinMs: 10_000,
      });
    dispatch(1);
    await until(() => server.heartbeats.some((beat) => beat.status === 'busy'), 'a busy heartbeat');

    const expected = [
      ['start', 'preflight'],
      ['0', 'wait_for'],
      ['1', 'toggle'],
      ['2', 'swipe'],
    ];
    for (const [index, [path, kind]] of expected.entries()) {
      server.phone().emit('dryrun.next', { runId: 'run-1' });
      await until(() => server.steps.length === index + 1, `step ${path}`);
      await settle(100);
      expect(server.steps).toHaveLength(index + 1);
      const { runId, step } = server.steps[index]!;
      expect(runId).toBe('run-1');
      expect(step).toMatchObject({ seq: index + 1, path, do: kind, verdict: 'done' });
      expect(step.frame?.mime).toBe('image/jpeg');
      expect(step.frame?.data.byteLength).toBeGreaterThan(1000);
      expect(traceStep.safeParse(step).success).toBe(true);
    }
    // Every step but the swipe read the screen: its tree goes with it, and the like's matched node lies in it.
    for (const { step } of server.steps.slice(0, 3)) expect(step.tree?.nodes.length).toBeGreaterThan(10);
    const like = server.steps[2]!.step;
    expect(like).toMatchObject({ action: 'like', selector: expect.objectContaining({ id: 'row_feed_button_like' }) });
    expect(like.tree?.nodes[like.matched?.node ?? -1]?.selected).toBe(true);

    const result = await until(() => server.results[0], 'the result');
    expect(result).toMatchObject({
      runId: 'run-1',
      outcome: 'passed',
      actions: { like: 1, follow: 0, comment: 0, post: 0 },
      app: { package: 'com.instagram.android', version: '447.0.0.55.81', locale: 'en-US' },
      steps: 4,
    });
    expect(server.results).toHaveLength(1);
    expect(ui.liked.size).toBe(1);
    expect(server.taskAcks).toEqual([]);
    // Once it ended, the task the server gives out again is taken.
    dispatch(2);
    await until(() => server.taskAcks.length > 0, 'the task to be acknowledged');
    expect(server.taskAcks).toEqual([{ taskId: 'task-1', attempt: 2 }]);
  });

  it('in no-effects mode stops before the like, taps nothing that counts, and says stopped', async () => {
    const { server, ui } = await simulatedAgent();
    expect(await start(server, startMessage({ mode: 'straight', effects: false }))).toEqual({ ok: true });
    const result = await until(() => server.results[0], 'the result');
    expect(result).toMatchObject({ outcome: 'stopped', actions: { like: 0 } });
    expect(result).not.toHaveProperty('failure');
    expect(server.steps.map(({ step }) => [step.path, step.verdict])).toEqual([
      ['start', 'done'],
      ['0', 'done'],
      ['1', 'stopped'],
    ]);
    expect(server.steps[2]?.step.detail).toBe('No effects: stopped before a step that counts a like.');
    expect(server.steps[2]?.step.frame).toBeDefined();
    expect(ui.liked.size).toBe(0);
  });

  it('stops before the next step when the person says so', async () => {
    const { server } = await simulatedAgent();
    expect(await start(server, startMessage())).toEqual({ ok: true });
    server.phone().emit('dryrun.next', { runId: 'run-1' });
    await until(() => server.steps.length === 1, 'the pre-flight');
    // A stop for another run changes nothing.
    server.phone().emit('dryrun.stop', { runId: 'run-other' });
    await settle();
    expect(server.results).toEqual([]);
    server.phone().emit('dryrun.stop', { runId: 'run-1' });
    const result = await until(() => server.results[0], 'the result');
    expect(result).toMatchObject({ outcome: 'stopped', steps: 2 });
    expect(server.steps.at(-1)?.step).toMatchObject({ path: '0', verdict: 'stopped', detail: 'Stopped by the person before this step.' });
  });

  it('answers a failed run with its failure, and refuses a recipe the schema refuses, naming the field', async () => {
    const { server } = await simulatedAgent({ challenge: 'login' });
    const refused = await start(server, startMessage({ recipe: warmupWith([{ do: 'tap', target: 'no_such_element' }]) }));
    expect(refused).toEqual({ ok: false, error: 'The recipe is not valid: steps.0.target: No element named "no_such_element" in this recipe\'s elements.' });
    const unreadable = await start(server, startMessage({ mode: 'sideways' }));
    expect(unreadable).toMatchObject({ ok: false, error: expect.stringContaining('mode') });

    expect(await start(server, startMessage({ mode: 'straight' }))).toEqual({ ok: true });
    const result = await until(() => server.results[0], 'the result');
    expect(result).toMatchObject({ outcome: 'failed', failure: { code: 'login_required' }, app: { package: 'com.instagram.android' } });
    expect(server.steps.at(-1)?.step).toMatchObject({ path: 'start', verdict: 'failed' });
    expect(server.steps.at(-1)?.step.tree).toBeDefined();
  });

  it('puts a failed task’s step trace in its result, which an older server’s schema reads without it', async () => {
    const { server } = await simulatedAgent({ challenge: 'login' });
    server.phone().emit('task.dispatch', {
      taskId: 'task-2',
      attempt: 1,
      type: 'post',
      title: 'Publish',
      deadline: null,
      protocol: 2,
      work: {
        kind: 'post.publish',
        postId: 'p1',
        account: { id: 'a1', username: 'glow.daily', platform: 'instagram' },
        caption: 'Morning',
        hashtags: [],
        mediaUrls: [],
        // The shipped post template rests on what no public source shows: the workspace lets it run.
        allowUntestedApp: true,
      },
      ackWithinMs: 10_000,
    });
    const result = await until(() => server.taskResults[0], 'the task result');
    expect(agentMessages['task.result'].safeParse(result).success).toBe(true);
    const sent = result.failure as { code: string; trace?: unknown };
    expect(sent.code).toBe('login_required');
    const trace = failureTrace.parse(sent.trace);
    expect(trace).toMatchObject({ path: 'start', do: 'preflight', verdict: 'failed' });
    // The screen it failed on goes with it, as bytes; the journal keeps the result without them (JSON lines).
    expect(trace.frame?.data.byteLength).toBeGreaterThan(0);
    const kept = withoutTraceFrame(result as unknown as Parameters<typeof withoutTraceFrame>[0]);
    expect(kept.status === 'failed' && kept.failure?.trace).toMatchObject({ path: 'start' });
    expect(kept.status === 'failed' && kept.failure?.trace && 'frame' in kept.failure.trace).toBe(false);
    expect(JSON.parse(JSON.stringify(kept))).toEqual(kept);
    // A server from before `trace` (its failure schema without the field) takes the result and drops the trace.
    const older = failureSchema.omit({ trace: true }).safeParse(sent);
    expect(older.success && 'trace' in older.data).toBe(false);
    expect(older.success).toBe(true);
  });

  it('reaches a phone behind a farm host, which runs it through the same agent', async () => {
    const server = await fakeConsole();
    const dir = mkdtempSync(join(tmpdir(), 'farm-host-dryrun-'));
    const host = new FarmHost({
      server: server.url,
      token: 'host-token',
      state: new AgentState(dir),
      backend: 'sim',
      devices: 1,
      recipeOptions: { clock: manualClock(Date.now()), pollMs: 500, busyPauseMs: 1 },
    });
    closers.push(
      () => server.close(),
      () => rmSync(dir, { recursive: true, force: true }),
      () => host.close(),
    );
    await host.start();
    await until(() => host.agent('SIM-0001')?.connected, 'the host’s phone to connect');
    expect(server.hellos[0]?.features).toContain('dryrun');
    expect(await start(server, startMessage({ mode: 'straight', effects: false }))).toEqual({ ok: true });
    const result = await until(() => server.results[0], 'the result');
    expect(result).toMatchObject({ outcome: 'stopped', app: { package: 'com.instagram.android', locale: 'en-US' } });
    expect(server.steps.map(({ step }) => step.verdict)).toEqual(['done', 'done', 'stopped']);
  });

  it('logs a refused step and goes on; a run cut from the console stops before its next step and sends its result on reconnect', async () => {
    const refused = await simulatedAgent({ refuseSteps: true });
    expect(await start(refused.server, startMessage({ mode: 'straight', effects: false }))).toEqual({ ok: true });
    expect(await until(() => refused.server.results[0], 'the result')).toMatchObject({ outcome: 'stopped' });
    expect(refused.logs).toContain('dry run run-1: the console refused step 1: No such dry run.');

    const { server } = await simulatedAgent();
    expect(await start(server, startMessage())).toEqual({ ok: true });
    server.phone().emit('dryrun.next', { runId: 'run-1' });
    await until(() => server.steps.length === 1, 'the pre-flight');
    const first = server.phone();
    first.disconnect(true);
    const result = await until(() => server.results[0], 'the result after reconnecting');
    expect(server.phone()).not.toBe(first);
    expect(result).toMatchObject({ runId: 'run-1', outcome: 'stopped' });
    expect(server.hellos).toHaveLength(2);
  });
});

describe('a post cut off by its farm host', () => {
  /** A backend whose post runs until it is stopped, having started its share tap or not. */
  function stalledPost(startsSharing: boolean) {
    return {
      describe: () => ({ model: 'Pixel 7', androidVersion: '14', agentVersion: 'test/2' }),
      state: () => ({ battery: 80, charging: true, screenOn: true, status: 'online' as const }),
      screenshot: async () => undefined,
      run: async (_work: unknown, context: WorkContext) => {
        if (startsSharing) context.publishing?.();
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
        return { status: 'failed' as const, code: 'cancelled' as const, message: 'Called off' };
      },
    };
  }
  const post = (taskId: string) => ({
    taskId,
    attempt: 1,
    type: 'post',
    title: 'Publish',
    deadline: null,
    protocol: 2,
    work: {
      kind: 'post.publish',
      postId: 'p1',
      account: { id: 'a1', username: 'glow.daily', platform: 'instagram' },
      caption: 'Morning',
      hashtags: [],
      mediaUrls: [],
    },
    ackWithinMs: 10_000,
  });

  for (const [sharing, code] of [
    [false, 'device_offline'],
    [true, 'post_unconfirmed'],
  ] as const) {
    it(`${sharing ? 'after' : 'before'} its share tap started is reported ${code}`, async () => {
      const server = await fakeConsole();
      const agent = new PhoneAgent({ url: server.url, token: 'device-token', backend: stalledPost(sharing), reconnectionDelayMs: 100 });
      closers.push(
        () => server.close(),
        () => agent.close(),
      );
      await until(() => agent.connected, 'the agent to connect');
      server.phone().emit('task.dispatch', post('task-cut'));
      await until(() => agent.busy, 'the post running');
      await agent.cutOff('device_offline', 'The farm host restarted its adb server');
      const result = await until(() => server.taskResults[0], 'the result');
      expect(result).toMatchObject({ status: 'failed', failure: { code } });
      // A post that may be up is never tried again by itself: a person checks it (the console asks the phone's VA).
      if (sharing) expect(result.failure).toMatchObject({ retryable: false, message: expect.stringContaining('may have gone up') });
    });
  }
});

describe('group control on the agent (same stand-in console)', () => {
  it('lists group in its hello and answers group.act with the phone’s result; the quick simulator answers Not supported', async () => {
    const { server } = await simulatedAgent();
    expect(server.hellos[0]?.features).toContain('group');
    // The simulated phone starts on its launcher, which group control acts in; the result says the screen it acted on.
    const answer = (await server
      .phone()
      .timeout(5000)
      .emitWithAck('group.act', { actionId: 'g1', action: { kind: 'key', key: 'back' } })) as Ack & { result?: unknown };
    expect(answer).toEqual({ ok: true, result: { actionId: 'g1', kind: 'done', label: 'Done', screen: expect.objectContaining({ ids: expect.any(Array) }) } });
    // An intent with a component cannot even be said.
    const bad = (await server
      .phone()
      .timeout(5000)
      .emitWithAck('group.act', {
        actionId: 'g3',
        action: { kind: 'intent', action: 'android.settings.WIFI_SETTINGS', component: 'com.android.settings/.Settings' },
      })) as Ack;
    expect(bad.ok).toBe(false);

    const other = await fakeConsole();
    const simple = new PhoneAgent({ url: other.url, token: 't', backend: new SimulatedBackend() });
    closers.push(
      () => other.close(),
      () => simple.close(),
    );
    await until(() => simple.connected, 'the simple agent to connect');
    expect(other.hellos[0]?.features ?? []).not.toContain('group');
    const unsupported = (await other
      .phone()
      .timeout(5000)
      .emitWithAck('group.act', { actionId: 'g2', action: { kind: 'key', key: 'home' } })) as Ack & { result?: { label: string } };
    expect(unsupported.ok && unsupported.result?.label).toBe('Not supported');
  });
});
