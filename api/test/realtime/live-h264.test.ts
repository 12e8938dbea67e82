/**
 * The live screen on its H.264 path, over real sockets: the real agent with the real scrcpy session code, against a
 * fake scrcpy-server streaming ffmpeg-made clips (red, then blue after a touch). Watchers whose browser decodes
 * H.264 get the packets, relayed and never decoded, each starting at a key frame; the controller gets the control
 * stream and the others the watch stream (or the one that runs); a tap goes through scrcpy's control socket, not a
 * shell; JPEG stays for browsers without WebCodecs and phones that cannot start scrcpy-server; protocol 1 agents and
 * JPEG agents are untouched.
 */
import type { Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { configFacts, nalType, nalUnits } from '@farm/agent-protocol';
import type { LiveFrameOut, LiveVideoOut } from '@farm/contracts';
import { VideoSimPhone, type VideoPhoneOptions } from '../../../agent-protocol/test/video-phone.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, enrolledPhone, send, simulatedPhone, until } from './phones.ts';
import { connected, pause } from './sockets.ts';

const { url, operator, closers, liveSocket } = await realtimeApp({ liveControlIdleMs: 60_000, automation: { heartbeatMs: 1000 } });

type Answer = { ok: true; [key: string]: unknown } | { ok: false; error: string };
const ask = (socket: Socket, event: string, message: unknown) => new Promise<Answer>((resolve) => socket.emit(event, message, resolve));

async function videoPhone(name: string, options: VideoPhoneOptions = {}) {
  const ui = new VideoSimPhone({ serial: `SIM-${name}`, width: 1080, height: 2400, ...options });
  return { ...(await simulatedPhone(url, operator, name, closers, ui)), ui };
}

/** What a watcher gets: packets (acknowledged at once unless `stall`, or held while `seen.stalled`) and JPEG frames. */
function received(socket: Socket, options: { stall?: boolean } = {}) {
  const held: (() => void)[] = [];
  const seen = {
    video: [] as (LiveVideoOut & { at: number })[],
    jpeg: [] as LiveFrameOut[],
    stalled: false,
    /** Acknowledges what was held, and everything from now on. */
    resume() {
      seen.stalled = false;
      for (const ack of held.splice(0)) ack();
    },
  };
  socket.on('live.video', (packet: LiveVideoOut, ack: () => void) => {
    seen.video.push({ ...packet, at: performance.now() });
    if (seen.stalled) held.push(ack);
    else if (!options.stall) ack();
  });
  socket.on('live.frame', (frame: LiveFrameOut, ack: () => void) => {
    seen.jpeg.push(frame);
    ack();
  });
  return seen;
}

const bytes = (data: ArrayBuffer | Uint8Array) => (data instanceof Uint8Array ? data : new Uint8Array(data));

describe('live screen as H.264', () => {
  it('relays the phone’s packets to an H.264 watcher from a key frame on, and a late watcher starts at once', async () => {
    const { device, agent, ui } = await videoPhone('Pixel h264');
    const first = liveSocket(operator);
    await connected(first);
    const seen = received(first);
    expect(await ask(first, 'live.watch', { deviceId: device.id, h264: true })).toMatchObject({ ok: true, streaming: true });
    await until(async () => seen.video.length >= 20, 'twenty packets', 8000);
    // The watch stream only (nobody controls), from its configuration and a key frame, in order, untouched.
    expect(ui.running()).toEqual(['watch']);
    expect(new Set(seen.video.map((packet) => packet.stream))).toEqual(new Set(['watch']));
    expect(seen.video[0]).toMatchObject({ deviceId: device.id, codec: 'h264', config: true, width: 160, height: 320 });
    expect(seen.video.find((packet) => !packet.config)?.keyFrame).toBe(true);
    const config = bytes(seen.video[0]!.data);
    expect(nalUnits(config).map(nalType)).toEqual([7, 8]);
    expect(configFacts(config)).toMatchObject({ width: 160, height: 320 });
    const seqs = seen.video.map((packet) => packet.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seen.jpeg).toHaveLength(0);
    expect(agent.live.active).toBe(false);

    // A second watcher, mid-stream: the configuration and a key frame come first, not a picture it cannot decode.
    const late = liveSocket(operator);
    await connected(late);
    const lateSeen = received(late);
    await ask(late, 'live.watch', { deviceId: device.id, h264: true });
    await until(async () => lateSeen.video.length >= 3, 'the late watcher’s packets', 5000);
    expect(lateSeen.video[0]?.config).toBe(true);
    expect(lateSeen.video[1]?.keyFrame).toBe(true);
  });

  it('gives the controller the control stream, taps through scrcpy’s control socket, and the next clip shows the tap', async () => {
    const { device, ui } = await videoPhone('Pixel control');
    const watcher = liveSocket(operator);
    await connected(watcher);
    const seen = received(watcher);
    await ask(watcher, 'live.watch', { deviceId: device.id, h264: true });
    await until(async () => seen.video.length > 5, 'packets', 8000);
    expect(await ask(watcher, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    await until(async () => ui.running().includes('control'), 'the control stream', 5000);
    // Only the controller watches: the watch stream is stopped, the controller follows the control stream.
    await until(async () => !ui.running().includes('watch'), 'the watch stream stopped', 5000);
    await until(async () => seen.video.at(-1)?.stream === 'control', 'control packets', 5000);
    const switched = seen.video.findIndex((packet) => packet.stream === 'control');
    expect(seen.video[switched]?.config).toBe(true);

    const tapped = await ask(watcher, 'live.input', { deviceId: device.id, seq: 1, input: { kind: 'tap', x: 0.25, y: 0.5 } });
    expect(tapped).toMatchObject({ ok: true });
    // scrcpy got a touch down and up in the picture's pixels; the phone's shell was not used.
    const touches = ui.scrcpy.control.filter((message) => message.type === 'touch');
    expect(touches.slice(-2)).toMatchObject([
      { action: 'down', x: 40, y: 160, width: 160, height: 320 },
      { action: 'up', x: 40, y: 160, width: 160, height: 320 },
    ]);
    expect(ui.taps).toHaveLength(0);
    await until(async () => seen.video.some((packet) => packet.inputSeq === 1), 'a packet after the tap', 3000);

    // Text as text, a key, and Back through its own message.
    expect(await ask(watcher, 'live.input', { deviceId: device.id, seq: 2, input: { kind: 'text', text: 'Olá 👋' } })).toMatchObject({ ok: true });
    expect(await ask(watcher, 'live.input', { deviceId: device.id, seq: 3, input: { kind: 'key', key: 'back' } })).toMatchObject({ ok: true });
    const kinds = ui.scrcpy.control.map((message) => message.type);
    expect(kinds).toContain('clipboard');
    expect(kinds).toContain('back');
    expect(ui.typed).toHaveLength(0);

    // Handing back: the watch stream runs again for the person still watching.
    expect(await ask(watcher, 'live.release', { deviceId: device.id })).toEqual({ ok: true });
    await until(async () => ui.running().includes('watch') && !ui.running().includes('control'), 'back on the watch stream', 5000);
  });

  it('gives a watcher that is behind when its stream starts the parameter sets, and a picture once it keeps pace', async () => {
    const { device, ui } = await videoPhone('Pixel late');
    const watcher = liveSocket(operator);
    await connected(watcher);
    const seen = received(watcher);
    await ask(watcher, 'live.watch', { deviceId: device.id, h264: true });
    await until(async () => seen.video.length > 5, 'packets', 8000);
    // A busy tab: nothing acknowledged for 2 s, so the relay counts it behind (1.5 s).
    seen.stalled = true;
    await pause(2000);
    // It takes control while behind: the control stream starts.
    expect(await ask(watcher, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    await until(async () => seen.video.some((packet) => packet.stream === 'control'), 'the control stream’s configuration', 8000);
    const control = () => seen.video.filter((packet) => packet.stream === 'control');
    expect(control()[0]?.config).toBe(true);
    expect(ui.running()).toContain('control');
    // It catches up: it is sent the control stream's cached key frame, after the parameter sets, and pictures go on.
    seen.resume();
    await until(async () => control().filter((packet) => !packet.config).length >= 10, 'control pictures', 8000);
    const firstPicture = control().findIndex((packet) => !packet.config);
    expect(control()[firstPicture]?.keyFrame).toBe(true);
    expect(
      control()
        .slice(0, firstPicture)
        .some((packet) => packet.config),
    ).toBe(true);
  });

  it('serves JPEG to a browser without WebCodecs beside H.264, and skips a watcher that stops reading to its next key frame', async () => {
    const { device, agent } = await videoPhone('Pixel mixed', { frameMs: 10 });
    const modern = liveSocket(operator);
    const old = liveSocket(operator);
    const stuck = liveSocket(operator);
    await Promise.all([connected(modern), connected(old), connected(stuck)]);
    const modernSeen = received(modern);
    const oldSeen = received(old);
    const stuckSeen = received(stuck, { stall: true });
    await ask(modern, 'live.watch', { deviceId: device.id, h264: true });
    // Until its first packet an H.264 watcher is sent JPEG (the fallback while video starts): the JPEG watcher joins
    // once the video flows, so any JPEG the modern one saw would be a fault.
    await until(async () => modernSeen.video.length > 0, 'the first packets', 8000);
    await ask(old, 'live.watch', { deviceId: device.id });
    await ask(stuck, 'live.watch', { deviceId: device.id, h264: true });
    await until(async () => oldSeen.jpeg.length >= 3 && modernSeen.video.length >= 60, 'both paths', 8000);
    expect(agent.live.active).toBe(true);
    expect(oldSeen.video).toHaveLength(0);
    expect(modernSeen.jpeg).toHaveLength(0);
    // The stuck watcher is sent no picture once it is behind (only the few bytes of each configuration), while the
    // others go on.
    await pause(2000);
    const pictures = (video: LiveVideoOut[]) => video.filter((packet) => !packet.config).length;
    const stuckCount = pictures(stuckSeen.video);
    const modernCount = modernSeen.video.length;
    // Frames come every 10 ms; a busy machine sends them slower, so wait for thirty more rather than a second.
    await until(async () => modernSeen.video.length > modernCount + 30, 'the modern watcher goes on', 8000);
    expect(pictures(stuckSeen.video)).toBe(stuckCount);
    expect(modernSeen.video.length).toBeGreaterThan(modernCount + 30);
  });

  it('falls back to JPEG when scrcpy-server cannot start, and refuses an oversized packet naming the field', async () => {
    const { device, agent } = await videoPhone('Pixel no scrcpy', { refuse: ['watch', 'control'] });
    const watcher = liveSocket(operator);
    await connected(watcher);
    const seen = received(watcher);
    await ask(watcher, 'live.watch', { deviceId: device.id, h264: true });
    await until(async () => seen.jpeg.length >= 3, 'JPEG frames instead', 8000);
    expect(seen.video).toHaveLength(0);
    expect(agent.live.active).toBe(true);

    const { token } = await enrolledPhone(operator, { name: 'Pixel raw' });
    const raw = bareAgent(url, token);
    closers.push(() => raw.disconnect());
    await connected(raw);
    expect((await send(raw, 'agent.hello', { protocol: 2, agentVersion: 'test-raw', battery: 80, features: ['live', 'h264', 'teleport'] })).ok).toBe(true);
    const answer = await send(raw, 'live.video', {
      stream: 'watch',
      seq: 1,
      config: false,
      keyFrame: true,
      ptsUs: 0,
      width: 160,
      height: 320,
      data: Buffer.alloc(900 * 1024 + 1),
    });
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.error).toContain('data');
    // Nobody asked for this stream: the packet is refused and the phone told to stop.
    const unasked = await send(raw, 'live.video', {
      stream: 'watch',
      seq: 2,
      config: true,
      keyFrame: false,
      ptsUs: null,
      width: 160,
      height: 320,
      data: Buffer.from([0, 0, 0, 1, 0x67]),
    });
    expect(unasked).toMatchObject({ ok: false });
  });
});
