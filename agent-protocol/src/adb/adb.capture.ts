/**
 * What the phone's screen shows, as pictures: screenshots, the live screen (`adb.live.ts`: minicap, or screenshots
 * where no build fits) and scrcpy-server sessions (`adb.scrcpy.session.ts`: H.264 with input through their control
 * socket), which stream over connections of their own, and turning the screen. A phone has one live screen and at most
 * one scrcpy session of each kind; restarting the screen sources (a rung of the recovery ladder) ends them all.
 */
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { PhoneError, withTimeout, type LiveVideoSession, type Screenshot, type ScreenshotOptions } from '../phone/phone.device.ts';
import { encodeScreenshot } from '../phone/phone.screenshot.ts';
import type { PhoneFacts } from './adb.facts.ts';
import { readAll, type PhoneLink } from './adb.link.ts';
import { AdbLiveScreen, type LiveScreenOptions } from './adb.live.ts';
import type { ScrcpyStreamKind } from './adb.scrcpy.ts';
import { asLiveVideoSession, ScrcpySession, type ScrcpySessionOptions } from './adb.scrcpy.session.ts';

export class PhoneCapture {
  private live: AdbLiveScreen | null = null;
  /** scrcpy-server sessions running on this phone (at most a control and a watch stream). */
  private readonly scrcpySessions = new Set<ScrcpySession>();
  private readonly copiedMinicap = new Set<string>();

  constructor(
    private readonly link: PhoneLink,
    private readonly facts: PhoneFacts,
  ) {}

  /**
   * When the last screenshot was taken and how long it took (the phone sending it, the host encoding it); null before
   * the first and after one that failed, so a screen that stopped giving pictures is not vouched for by an older one.
   */
  lastShot: { at: number; tookMs: number } | null = null;
  /** The last screenshot encoded at each size and quality asked, with the digest of the PNG it was made from. */
  private readonly encoded = new Map<string, { digest: string; shot: Screenshot }>();

  async screenshot(options: ScreenshotOptions = {}): Promise<Screenshot> {
    const started = performance.now();
    try {
      const shot = await this.takeScreenshot(options);
      this.lastShot = { at: Date.now(), tookMs: performance.now() - started };
      return shot;
    } catch (error) {
      this.lastShot = null;
      throw error;
    }
  }

  private async takeScreenshot(options: ScreenshotOptions): Promise<Screenshot> {
    const { device } = this.link;
    const png = await this.link.tracked(() => {
      const held: { stream?: Duplex; late?: boolean } = {};
      const work = (async () => {
        const stream = await device.screencap();
        held.stream = stream;
        if (held.late) stream.destroy();
        return readAll(stream);
      })();
      return withTimeout(work, this.link.options.screenshotTimeoutMs, 'The screenshot', () => {
        held.late = true;
        held.stream?.destroy();
      });
    });
    if (png.length === 0) throw new PhoneError('command_failed', 'The phone sent an empty screenshot (is the screen secure or off?).');
    // A screen that held still since the last screenshot at this size (a home screen, a lock screen, one turned off)
    // gives the same PNG: its JPEG is the one made last time, not decoded and encoded again. Hashing the PNG costs a
    // few milliseconds; decoding and encoding it, tens, every 15 s on every phone of a farm.
    const size = `${options.maxSide ?? ''}/${options.quality ?? ''}`;
    const digest = createHash('sha256').update(png).digest('base64');
    const last = this.encoded.get(size);
    if (last?.digest === digest) return { ...last.shot, capturedAt: new Date().toISOString() };
    const shot = await encodeScreenshot(png, options);
    this.encoded.set(size, { digest, shot });
    return shot;
  }

  private refuseClosed(): void {
    if (this.link.closed) throw new PhoneError('disconnected', 'The phone was closed.');
  }

  /**
   * Streams the screen while someone watches: minicap where a build fits the phone, screenshots otherwise.
   * A phone has one live screen; opening another ends the one before.
   */
  async openLive(options: LiveScreenOptions = {}): Promise<AdbLiveScreen> {
    this.refuseClosed();
    const { link } = this;
    // The one before is ended first: its minicap holds the socket the new one listens on.
    await this.live?.close();
    const info = await this.facts.knownOrRead();
    const rotation = await this.displayRotation().catch(() => 0);
    this.refuseClosed();
    const screen = new AdbLiveScreen(
      {
        info,
        rotation,
        push: (localPath, remote, mode) => link.upload(localPath, remote, mode, link.options.commandTimeoutMs),
        copied: this.copiedMinicap,
        shell: async (command) => link.device.shell(command),
        openLocal: async (path) => link.device.openLocal(path),
        exec: (command, timeoutMs) => link.exec(command, timeoutMs),
        screenshot: (shot) => this.screenshot(shot),
      },
      options,
      { startTimeoutMs: link.options.liveStartTimeoutMs, commandTimeoutMs: link.options.commandTimeoutMs },
    );
    const before = this.live;
    this.live = screen;
    await before?.close();
    await screen.start();
    this.refuseClosed();
    return screen;
  }

  /**
   * Starts a scrcpy-server session of its own on this phone (H.264 from the phone's encoder, input through its control
   * socket); `serverFile` is the verified file (`ensureScrcpyServer`). The caller ends it; closing the phone ends it too,
   * and so does opening another of the same kind.
   */
  async openScrcpy(kind: ScrcpyStreamKind, serverFile: string, options: Omit<ScrcpySessionOptions, 'kind' | 'serverFile'> = {}): Promise<ScrcpySession> {
    this.refuseClosed();
    const { link } = this;
    // At most one session of each kind (a control and a watch stream): a new one replaces the one before.
    for (const running of this.scrcpySessions) if (running.kind === kind) running.end(`A new ${kind} stream replaced this one.`);
    const session = new ScrcpySession(
      {
        push: (localPath, remote, mode) => link.upload(localPath, remote, mode, link.options.pushTimeoutMs),
        shell: async (command) => link.device.shell(command),
        openLocal: async (path) => link.device.openLocal(path),
      },
      { startTimeoutMs: link.options.liveStartTimeoutMs, ...options, kind, serverFile },
    );
    this.scrcpySessions.add(session);
    session.onEnded(() => this.scrcpySessions.delete(session));
    await session.start();
    return session;
  }

  /**
   * Restarts the screen sources (a rung of the recovery ladder): every scrcpy session and the minicap stream end, and
   * the agent starts them again while someone watches.
   */
  async restart(reason: string): Promise<void> {
    for (const session of [...this.scrcpySessions]) session.end(reason);
    const live = this.live;
    this.live = null;
    await live?.close();
  }

  /**
   * The screen as H.264 from scrcpy-server, with input through its control socket: the live screen's fast path.
   * Rejects (and the agent falls back to JPEG) when this host has no scrcpy-server file or the phone cannot start it.
   */
  async openVideo(kind: ScrcpyStreamKind): Promise<LiveVideoSession> {
    const { options } = this.link;
    if (!options.scrcpyServer) throw new PhoneError('command_failed', 'This farm host has no scrcpy-server: the live screen stays on JPEG.');
    const file = await options.scrcpyServer();
    const session = await this.openScrcpy(kind, file, { startTimeoutMs: options.videoStartTimeoutMs ?? 10_000 });
    return asLiveVideoSession(session);
  }

  /**
   * Turns the screen a quarter turn from where it is and keeps it there (auto-rotate off). With auto-rotate on, the
   * phone is taken to stand upright: the stored `user_rotation` is stale then.
   */
  async rotate(): Promise<void> {
    const next = ((await this.displayRotation()) + 1) % 4;
    const output = await this.link.exec(`settings put system accelerometer_rotation 0 && settings put system user_rotation ${next} && echo farm-rotated`);
    if (!output.includes('farm-rotated'))
      throw new PhoneError('command_failed', `The phone did not turn its screen: ${output.trim().slice(0, 200) || 'no answer'}`);
    await this.live?.reorient(next);
  }

  /** The display's rotation in quarter turns, as the rotation settings say (0 while auto-rotate is on). */
  private async displayRotation(): Promise<number> {
    const [auto, user] = (await this.link.exec('settings get system accelerometer_rotation; settings get system user_rotation'))
      .split('\n')
      .map((line) => line.trim());
    if (auto === '1') return 0;
    const rotation = Number.parseInt(user ?? '', 10);
    return rotation >= 0 && rotation <= 3 ? rotation : 0;
  }

  /** Ends the live screen and every scrcpy session with the phone. */
  async close(): Promise<void> {
    await this.live?.close();
    for (const session of this.scrcpySessions) session.end('The phone was closed.');
  }
}
