/**
 * The agent's H.264 streams (live-video.ts) on stand-in sessions: packets go out with their stream and sequence and
 * the last input; what is not acknowledged is the backlog the session skips by; a session that ends by itself is
 * started again, and given up (the agent falls back to JPEG) when it ends again at once; stop ends them.
 */
import { describe, expect, it, vi } from 'vitest';
import type { LiveVideo as LiveVideoMessage } from '../live.ts';
import type { LiveVideoPacket, LiveVideoSession } from '../phone/phone.device.ts';
import { createAdbClient } from '../adb/adb.host.ts';
import { AdbPhone } from '../adb/adb.phone.ts';
import { DeviceBackend } from './device-backend.ts';
import { LiveVideo } from './live-video.ts';
import { PhoneAgentState } from './phone-agent.state.ts';

class StandIn implements LiveVideoSession {
  readonly size = { width: 160, height: 320 };
  send: ((packet: LiveVideoPacket) => number) | null = null;
  ended: string | null = null;
  keyFrames = 0;
  private readonly listeners = new Set<(reason: string) => void>();
  constructor(readonly kind: 'control' | 'watch') {}
  watch(send: (packet: LiveVideoPacket) => number) {
    this.send = send;
    return () => {
      this.send = null;
    };
  }
  keyFrame() {
    this.keyFrames += 1;
  }
  touch() {}
  scroll() {}
  key() {}
  back() {}
  type() {}
  rotate() {}
  onEnded(listener: (reason: string) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  end(reason = 'ended') {
    if (this.ended) return;
    this.ended = reason;
    for (const listener of this.listeners) listener(reason);
  }
}

const packet = (bytes: number, keyFrame = false): LiveVideoPacket => ({
  config: false,
  keyFrame,
  ptsUs: 0,
  data: new Uint8Array(bytes),
  width: 160,
  height: 320,
});

function setUp(options: { refuse?: boolean } = {}) {
  const sessions: StandIn[] = [];
  const sent: { message: LiveVideoMessage; done: () => void }[] = [];
  const unavailable: { kind: string; running: boolean }[] = [];
  let inputSeq: number | undefined;
  const video = new LiveVideo({
    open: async (kind) => {
      if (options.refuse) throw new Error('the encoder is busy');
      const session = new StandIn(kind);
      sessions.push(session);
      return session;
    },
    emit: (message, done) => sent.push({ message, done }),
    inputSeq: () => inputSeq,
    unavailable: (kind, _reason, running) => unavailable.push({ kind, running }),
    restartAfterMs: 10,
  });
  return { video, sessions, sent, unavailable, setInput: (seq: number) => (inputSeq = seq) };
}

describe('the agent’s H.264 streams', () => {
  it('sends each packet with its stream, order and the last input, and counts what is unacknowledged', async () => {
    const { video, sessions, sent, setInput } = setUp();
    await video.start('watch');
    const session = sessions[0]!;
    expect(session.send!(packet(1000, true))).toBe(1000);
    setInput(4);
    expect(session.send!(packet(500))).toBe(1500);
    expect(sent.map(({ message }) => [message.stream, message.seq, message.keyFrame, message.inputSeq])).toEqual([
      ['watch', 1, true, undefined],
      ['watch', 2, false, 4],
    ]);
    sent[0]!.done();
    expect(session.send!(packet(10))).toBe(510);
    // Too large to relay: not sent, and the session is told it is full (it skips to the next key frame).
    expect(session.send!(packet(901 * 1024))).toBe(Number.MAX_SAFE_INTEGER);
    expect(sent).toHaveLength(3);
    video.keyFrame('watch');
    expect(session.keyFrames).toBe(1);
    expect(video.running).toEqual(['watch']);
  });

  it('starts a session that ended by itself again, gives up when it ends again at once, and says whether another runs', async () => {
    const { video, sessions, unavailable } = setUp();
    await video.start('control');
    await video.start('watch');
    sessions[0]!.end('scrcpy-server stopped');
    await vi.waitFor(() => expect(sessions).toHaveLength(3));
    expect(video.running.sort()).toEqual(['control', 'watch']);
    sessions[2]!.end('scrcpy-server stopped again');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sessions).toHaveLength(3);
    expect(unavailable).toEqual([{ kind: 'control', running: true }]);
    expect(video.running).toEqual(['watch']);
  });

  it('gives up a stream that cannot start, and stop ends every session', async () => {
    const refused = setUp({ refuse: true });
    await refused.video.start('watch');
    expect(refused.unavailable).toEqual([{ kind: 'watch', running: false }]);
    const { video, sessions } = setUp();
    await video.start('watch');
    await video.start('control');
    video.stop();
    expect(sessions.map((session) => session.ended)).toEqual(['Nobody watches this stream any more.', 'Nobody watches this stream any more.']);
    expect(video.running).toEqual([]);
  });
});

describe('the h264 feature in the hello', () => {
  const hello = (phone: AdbPhone) => {
    // Never connected: the features are read from the backend, not from a server.
    const state = new PhoneAgentState({ url: 'http://127.0.0.1:9', token: 't', backend: new DeviceBackend(phone, { agentVersion: 'test' }) });
    state.socket.close();
    return state.features();
  };
  const client = createAdbClient({ adbPort: 9 });

  it('is left out on a host run with --no-h264 (no scrcpy-server), and said where one is', () => {
    expect(hello(new AdbPhone('NOH264', client.getDevice('NOH264'), { uiServer: false }))).not.toContain('h264');
    expect(hello(new AdbPhone('H264', client.getDevice('H264'), { uiServer: false, scrcpyServer: async () => '/scrcpy-server' }))).toContain('h264');
  });
});
