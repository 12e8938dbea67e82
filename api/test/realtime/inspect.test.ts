/**
 * Inspect over real sockets: the person who may control a phone asks for its screen on the live socket and gets the
 * UI tree with the frame it belongs to, read by the real agent from the simulated phone; a VA only on the phones
 * assigned to them; an agent that cannot is named, and one that sends garbage is refused with the reason and keeps its
 * connection.
 */
import type { Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { selectorsFor, nodeAt } from '@farm/agent-protocol/inspect';
import type { LiveCaptureOut } from '@farm/contracts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, enrolledPhone, helloV1, send, simulatedPhone } from './phones.ts';
import { connected } from './sockets.ts';

const { url, operator, va, closers, liveSocket } = await realtimeApp({ automation: { heartbeatMs: 1000 } });

type Answer = { ok: true; capture: LiveCaptureOut } | { ok: false; error: string };
const ask = <T = Answer>(socket: Socket, event: string, message: unknown) => new Promise<T>((resolve) => socket.emit(event, message, resolve));

describe('Inspect', () => {
  it('gives whoever may control the phone its UI tree and frame; a VA only their own phones', async () => {
    const { device } = await simulatedPhone(url, operator, 'Pixel inspect', closers);
    const watcher = liveSocket(operator);
    await connected(watcher);
    expect(await ask(watcher, 'live.inspect', { deviceId: device.id })).toEqual({ ok: false, error: "Open the phone's live screen before inspecting it" });
    await ask(watcher, 'live.watch', { deviceId: device.id });
    const answer = await ask(watcher, 'live.inspect', { deviceId: device.id });
    expect(answer.ok).toBe(true);
    const capture = (answer as { capture: LiveCaptureOut }).capture;
    expect(capture.tree.nodes.length).toBeGreaterThan(1);
    expect(capture.tree).toMatchObject({ width: 1080, height: 2400 });
    expect(capture.frame.mime).toBe('image/jpeg');
    expect(
      Buffer.from(capture.frame.data as ArrayBuffer)
        .subarray(0, 2)
        .toString('hex'),
    ).toBe('ffd8');
    // What the studio does with it: the node under a point and its selectors.
    const node = capture.tree.nodes.findIndex((candidate) => candidate.clickable && candidate.bounds.right > candidate.bounds.left);
    const { left, top, right, bottom } = capture.tree.nodes[node]!.bounds;
    const under = nodeAt(capture.tree, (left + right) / 2, (top + bottom) / 2);
    expect(under).not.toBeNull();
    expect(selectorsFor(capture.tree, under!).length).toBeGreaterThan(0);

    // A VA watching a phone not assigned to them cannot inspect it.
    const vaSocket = liveSocket(va);
    await connected(vaSocket);
    await ask(vaSocket, 'live.watch', { deviceId: device.id });
    expect(await ask(vaSocket, 'live.inspect', { deviceId: device.id })).toEqual({
      ok: false,
      error: 'Only operators and the VA this phone is assigned to may inspect it',
    });
  });

  it('names an agent that cannot, and refuses a garbage capture with the reason while the phone stays connected', async () => {
    const { device: old, token: oldToken } = await enrolledPhone(operator, { name: 'Pixel v1 inspect' });
    const v1 = bareAgent(url, oldToken);
    closers.push(() => v1.disconnect());
    await connected(v1);
    expect((await send(v1, 'agent.hello', helloV1)).ok).toBe(true);
    const watcher = liveSocket(operator);
    await connected(watcher);
    await ask(watcher, 'live.watch', { deviceId: old.id });
    expect(await ask(watcher, 'live.inspect', { deviceId: old.id })).toEqual({
      ok: false,
      error: "This phone's agent cannot be inspected. Update farm-agent on it to use Inspect.",
    });

    const { device, token } = await enrolledPhone(operator, { name: 'Pixel garbage' });
    const raw = bareAgent(url, token);
    closers.push(() => raw.disconnect());
    await connected(raw);
    raw.on('inspect.capture', (_message: unknown, ack: (answer: unknown) => void) =>
      ack({ ok: true, capture: { tree: { nodes: [], packageName: null, width: 0, height: 0 }, frame: { mime: 'image/gif' }, app: {}, capturedAt: 'now' } }),
    );
    expect((await send(raw, 'agent.hello', { protocol: 2, agentVersion: 'test-raw', battery: 80, features: ['inspect'] })).ok).toBe(true);
    await ask(watcher, 'live.watch', { deviceId: device.id });
    const refused = await ask(watcher, 'live.inspect', { deviceId: device.id });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).toMatch(/^The phone sent a screen that cannot be read: tree\.nodes: /);
    expect(raw.connected).toBe(true);
  });
});
