/**
 * A simulated phone whose live screen streams H.264 the way a real one does through the farm host: the real scrcpy
 * session code (adb.scrcpy.session.ts) against the fake scrcpy-server of `fake-scrcpy.ts`, streaming ffmpeg-made
 * clips; a touch switches to the next clip at its next key frame. Everything else is the simulated phone UI. For the
 * API's and the browser's tests of the H.264 path.
 */
import { asLiveVideoSession, ScrcpySession } from '../src/adb/adb.scrcpy.session.ts';
import type { LiveVideoSession } from '../src/phone/phone.device.ts';
import { SimulatedPhoneUi, type SimulatedPhoneUiOptions } from '../src/simphone/simphone.device.ts';
import { clipPackets, FakeScrcpyPhone, makeClip } from './fake-scrcpy.ts';
import type { ScrcpyPacket } from '../src/adb/adb.scrcpy.ts';

/** Two solid clips (red, then blue after a touch), 160 × 320, a key frame every 10 frames: small, and easy to tell apart. */
export function colourClips(): { clips: ScrcpyPacket[][]; width: number; height: number } {
  const width = 160;
  const height = 320;
  return {
    clips: ['color=c=red', 'color=c=blue'].map((source) => clipPackets(makeClip(source, { width, height, frames: 30, gop: 10 }))),
    width,
    height,
  };
}

export interface VideoPhoneOptions extends SimulatedPhoneUiOptions {
  clips?: { clips: ScrcpyPacket[][]; width: number; height: number };
  frameMs?: number;
  /** Streams of these kinds cannot start (an encoder that refuses a second session, no scrcpy-server). */
  refuse?: ('control' | 'watch')[];
}

export class VideoSimPhone extends SimulatedPhoneUi {
  readonly scrcpy: FakeScrcpyPhone;
  readonly sessions: ScrcpySession[] = [];
  refuse: ('control' | 'watch')[];

  constructor(options: VideoPhoneOptions = {}) {
    super(options);
    const clips = options.clips ?? colourClips();
    this.scrcpy = new FakeScrcpyPhone({ ...clips, frameMs: options.frameMs ?? 33 });
    this.refuse = options.refuse ?? [];
  }

  async openVideo(kind: 'control' | 'watch'): Promise<LiveVideoSession> {
    if (this.refuse.includes(kind)) throw new Error(`scrcpy-server could not start a ${kind} stream: the encoder is busy`);
    const session = new ScrcpySession(this.scrcpy, { kind, serverFile: '/nonexistent/scrcpy-server', startTimeoutMs: 3000 });
    await session.start();
    this.sessions.push(session);
    return asLiveVideoSession(session);
  }

  /** The scrcpy sessions still running, by kind. */
  running(): string[] {
    return this.sessions.filter((session) => session.endedWith === null).map((session) => session.kind);
  }

  override async close(): Promise<void> {
    for (const session of this.sessions) session.end('The phone was closed.');
    await super.close();
  }
}
