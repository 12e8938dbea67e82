import { describe, expect, it } from 'vitest';
import { agentMessages, MAX_SCREENSHOT_BYTES, serverMessages, taskDispatchV1, taskDispatchV2 } from './messages.ts';
import { describeWork } from './work.ts';
import { MAX_FRAME_BYTES, toPixels } from './live.ts';
import { solidPng } from './agent/simulator.ts';

describe('agent messages', () => {
  it('accepts what a phone sends and refuses what it must not', () => {
    expect(agentMessages['agent.hello'].safeParse({ protocol: 2, agentVersion: '1', battery: 50 }).success).toBe(true);
    expect(agentMessages['agent.heartbeat'].safeParse({ battery: 101, status: 'online' }).success).toBe(false);
    expect(agentMessages['agent.heartbeat'].safeParse({ battery: 10, status: 'offline' }).success).toBe(false);
    expect(agentMessages['task.result'].safeParse({ taskId: 't', attempt: 0, status: 'completed' }).success).toBe(false);
  });

  it('takes a protocol 1 result unchanged, and a protocol 2 result with its reason and engagement', () => {
    expect(agentMessages['task.result'].safeParse({ taskId: 't', attempt: 1, status: 'failed', error: 'The app showed a dialog' }).success).toBe(true);
    const v2 = agentMessages['task.result'].safeParse({
      taskId: 't',
      attempt: 2,
      status: 'failed',
      failure: { code: 'rate_limited', message: 'Try again later', retryable: false },
      engagement: { likes: 3 },
    });
    expect(v2.success).toBe(true);
    expect(agentMessages['task.result'].safeParse({ taskId: 't', attempt: 2, status: 'failed', failure: { code: 'sleepy' } }).success).toBe(false);
  });

  it('caps screenshots at the protocol size', () => {
    const tooBig = 'A'.repeat(Math.ceil((MAX_SCREENSHOT_BYTES * 4) / 3) + 8);
    expect(agentMessages['agent.screenshot'].safeParse({ mime: 'image/png', data: tooBig }).success).toBe(false);
    const png = solidPng(8, 8, [1, 2, 3]).toString('base64');
    expect(agentMessages['agent.screenshot'].safeParse({ mime: 'image/png', data: png }).success).toBe(true);
  });

  it('keeps the v1 dispatch for protocol 1 agents and types the work for protocol 2', () => {
    const work = {
      kind: 'post.publish' as const,
      postId: 'p1',
      account: { id: 'a1', username: 'glow', platform: 'instagram' },
      caption: 'Spring',
      hashtags: ['#glow'],
      mediaUrls: [],
    };
    const v2 = { protocol: 2, taskId: 't', attempt: 1, type: 'post', title: 'Publish', deadline: null, ackWithinMs: 10_000, work };
    expect(taskDispatchV2.parse(v2).work).toEqual(work);
    expect(serverMessages['task.dispatch'].parse(v2)).toHaveProperty('work');
    const v1 = { taskId: 't', attempt: 1, type: 'post', title: 'Publish', description: describeWork(work), deadline: null };
    expect(taskDispatchV1.parse(v1).description).toBe('Publish on instagram as @glow.\n\nSpring\n\n#glow');
    // live.keyframe, inspect.capture, dryrun.* and group.act go only to agents that listed `h264`, `inspect`, `dryrun` and `group`.
    expect(Object.keys(serverMessages).sort()).toEqual([
      'command',
      'dryrun.next',
      'dryrun.start',
      'dryrun.stop',
      'group.act',
      'inspect.capture',
      'live.input',
      'live.keyframe',
      'live.start',
      'live.stop',
      'task.cancel',
      'task.dispatch',
    ]);
  });

  it('takes a result with or without the recipe run behind it (older agents say nothing of it)', () => {
    const result = { taskId: 't', attempt: 1, status: 'completed' };
    expect(agentMessages['task.result'].parse(result).run).toBeUndefined();
    const run = { recipe: { id: 'instagram.post', version: 3 }, app: { package: 'com.instagram.android', version: '360.0.0.52.192' }, durationMs: 41_250 };
    expect(agentMessages['task.result'].parse({ ...result, run }).run).toEqual(run);
    expect(agentMessages['task.result'].parse({ ...result, status: 'failed', run: { recipe: run.recipe, durationMs: 10 } }).run).toEqual({
      recipe: run.recipe,
      durationMs: 10,
    });
    expect(agentMessages['task.result'].safeParse({ ...result, run: { ...run, durationMs: -1 } }).success).toBe(false);
    expect(agentMessages['task.result'].safeParse({ ...result, run: { ...run, durationMs: 1.5 } }).success).toBe(false);
    expect(agentMessages['task.result'].safeParse({ ...result, run: { app: run.app, durationMs: 5 } }).success).toBe(false);
  });

  it('takes a hello with or without the live features (older agents say nothing of them)', () => {
    const hello = { protocol: 2, agentVersion: 'farm-agent/2', battery: 80 };
    expect(agentMessages['agent.hello'].parse(hello).features).toBeUndefined();
    expect(agentMessages['agent.hello'].parse({ ...hello, features: ['live', 'control'] }).features).toEqual(['live', 'control']);
  });

  it('takes a hello naming features this server does not know, and drops them (a newer agent still connects)', () => {
    const hello = { protocol: 2, agentVersion: 'farm-agent/3', battery: 80 };
    const parsed = agentMessages['agent.hello'].parse({ ...hello, features: ['live', 'teleport', 'ui-server', 'live'] });
    expect(parsed.features).toEqual(['live', 'ui-server']);
    expect(agentMessages['agent.hello'].parse({ ...hello, features: ['teleport'] }).features).toEqual([]);
    expect(agentMessages['agent.hello'].safeParse({ ...hello, features: ['x'.repeat(41)] }).success).toBe(false);
    expect(agentMessages['agent.hello'].safeParse({ ...hello, features: 'live' }).success).toBe(false);
    const reader = { kind: 'ui-server', version: '10.6.6', seesToasts: true };
    expect(agentMessages['agent.hello'].parse({ ...hello, uiReader: reader }).uiReader).toEqual(reader);
    expect(agentMessages['agent.hello'].safeParse({ ...hello, uiReader: { kind: 'magic', version: null, seesToasts: false } }).success).toBe(false);
    // A protocol 1 agent's hello, with none of this, is read as before.
    expect(agentMessages['agent.hello'].parse({ protocol: 1, agentVersion: 'farm-agent/1', battery: 50 })).toEqual({
      protocol: 1,
      agentVersion: 'farm-agent/1',
      battery: 50,
    });
  });

  it('reads a frame only as binary JPEG within its size, and inputs only inside the screen', () => {
    const frame = {
      seq: 1,
      mime: 'image/jpeg',
      data: Buffer.from([0xff, 0xd8, 0xff]),
      width: 324,
      height: 720,
      source: 'sim',
      capturedAt: new Date().toISOString(),
    };
    expect(agentMessages['live.frame'].safeParse(frame).success).toBe(true);
    expect(agentMessages['live.frame'].safeParse({ ...frame, data: 'not binary' }).success).toBe(false);
    expect(agentMessages['live.frame'].safeParse({ ...frame, data: Buffer.alloc(MAX_FRAME_BYTES + 1) }).success).toBe(false);
    expect(serverMessages['live.input'].safeParse({ seq: 1, input: { kind: 'tap', x: 0.5, y: 1.2 } }).success).toBe(false);
    expect(serverMessages['live.input'].parse({ seq: 1, input: { kind: 'swipe', from: { x: 0, y: 0 }, to: { x: 1, y: 1 } } }).input).toMatchObject({
      durationMs: 250,
    });
    expect(toPixels({ width: 1080, height: 2400 }, { x: 1, y: 1 })).toEqual({ x: 1079, y: 2399 });
  });

  it('draws a real PNG for the simulated screen', () => {
    const png = solidPng(3, 2, [255, 0, 0]);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(3);
    expect(png.readUInt32BE(20)).toBe(2);
  });
});
