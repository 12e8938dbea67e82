/**
 * The live screen of a phone over adb, while someone watches it in the console. minicap streams JPEG frames from
 * the phone itself (tens a second, the phone doing the encoding); where no minicap build fits the phone, or it
 * stops, screenshots taken one after another stand in, and the viewer notices only the frame rate. Only the newest
 * frame is kept: a viewer that reads slowly skips frames, it never falls behind.
 *
 * minicap runs in its own shell and is read over its own connection, so the persistent input shell is never shared.
 */
import type { Duplex } from 'node:stream';
import {
  PhoneError,
  withTimeout,
  type LiveFrameSource,
  type LiveScreenFrame,
  type PhoneInfo,
  type Screenshot,
  type ScreenshotOptions,
} from '../phone/phone.device.ts';
import { SCREENSHOT_DEFAULTS } from '../phone/phone.screenshot.ts';
import { jpegSize, MINICAP_DIR, MINICAP_SOCKET, minicapCommand, minicapFiles, minicapProjection, MinicapParser, type MinicapBanner } from './adb.minicap.ts';

/** What the live screen needs of the phone it shows (`AdbPhone` gives it; tests may stand in). */
export interface LivePhone {
  info: PhoneInfo;
  /** The display's rotation when the stream starts, in quarter turns. */
  rotation: number;
  push(localPath: string, remotePath: string, mode: number): Promise<void>;
  /** minicap builds already copied to the phone while it stays connected: a stream opened again skips the copy. */
  copied: Set<string>;
  /** A shell running one command, its output as a stream. */
  shell(command: string): Promise<Duplex>;
  /** A connection to a socket on the phone (`localabstract:name`). */
  openLocal(path: string): Promise<Duplex>;
  exec(command: string, timeoutMs?: number): Promise<string>;
  screenshot(options: ScreenshotOptions): Promise<Screenshot>;
}

export interface LiveScreenOptions extends ScreenshotOptions {
  /** Told when the stream changes how it captures (minicap unavailable or stopped); quiet otherwise. */
  log?: (message: string) => void;
}

export interface LiveScreenLimits {
  /** How long minicap has to start listening and send its banner before screenshots are used instead. */
  startTimeoutMs: number;
  /** Limit for the small commands around minicap (ending it). */
  commandTimeoutMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Opens a stream within `ms`; one that arrives after the limit is closed, not leaked. */
async function openWithin(open: () => Promise<Duplex>, ms: number, what: string): Promise<Duplex> {
  const held = { late: false };
  const opening = open().then((stream) => {
    if (held.late) stream.destroy();
    return stream;
  });
  return withTimeout(opening, ms, what, () => (held.late = true));
}

interface Waiter {
  resolve: (frame: LiveScreenFrame) => void;
  reject: (error: Error) => void;
}

/** Holds the newest frame nobody has taken yet; a newer one replaces it, frames never queue. */
class NewestFrame {
  private frame: LiveScreenFrame | null = null;
  private readonly waiters = new Set<Waiter>();
  private ended: Error | null = null;

  put(frame: LiveScreenFrame): void {
    if (this.ended) return;
    if (this.waiters.size === 0) {
      this.frame = frame;
      return;
    }
    this.frame = null;
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiting) waiter.resolve(frame);
  }

  take(signal?: AbortSignal): Promise<LiveScreenFrame> {
    if (this.ended) return Promise.reject(this.ended);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const ready = this.frame;
    if (ready) {
      this.frame = null;
      return Promise.resolve(ready);
    }
    return new Promise<LiveScreenFrame>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(waiter);
        reject(abortReason(signal as AbortSignal));
      };
      const waiter: Waiter = {
        resolve: (frame) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(frame);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  end(error: Error): void {
    this.ended = error;
    this.frame = null;
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiting) waiter.reject(error);
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('The wait for a frame was aborted.');
}

/**
 * One minicap process on the phone and the connection reading it. It counts as started once its banner arrived;
 * after that, its end (the process died, the connection dropped, the stream broke) is reported once through `onLost`.
 */
class MinicapRun {
  pid: number | null = null;
  banner: MinicapBanner | null = null;
  private shell: Promise<Duplex> | null = null;
  private socket: Duplex | null = null;
  private output = '';
  private exited = false;
  private stopped = false;
  private started = false;
  private lost = false;
  private readonly exit: Promise<void>;
  private markExited: () => void = () => undefined;

  constructor(
    private readonly phone: LivePhone,
    private readonly command: string,
    private readonly onFrame: (jpeg: Buffer) => void,
    private readonly onLost: (reason: string) => void,
  ) {
    this.exit = new Promise<void>((resolve) => (this.markExited = resolve));
  }

  /** Starts minicap and connects to it; resolves on its banner, rejects when it gives none within `timeoutMs`. */
  async start(timeoutMs: number): Promise<MinicapBanner> {
    const deadline = Date.now() + timeoutMs;
    // Held as a promise so that stopping while it opens still finds the process to end.
    this.shell = openWithin(() => this.phone.shell(this.command), timeoutMs, 'Starting minicap').then((shell) => this.watch(shell));
    await this.shell;
    for (;;) {
      if (this.stopped) throw new Error('stopped while starting');
      if (this.exited) throw new Error(`minicap exited before streaming${this.said()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`minicap sent nothing within ${timeoutMs} ms${this.said()}`);
      let socket: Duplex;
      try {
        socket = await openWithin(() => this.phone.openLocal(MINICAP_SOCKET), left, 'The minicap socket');
      } catch {
        // Not listening yet: minicap takes a moment to set up its virtual display.
        await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
        continue;
      }
      if (this.stopped) {
        socket.destroy();
        throw new Error('stopped while starting');
      }
      const banner = await this.handshake(socket, deadline);
      if (banner) {
        this.pid = banner.pid;
        this.started = true;
        return banner;
      }
    }
  }

  /** Follows minicap's shell: its first words (the pid) and its end, which is the process's end. */
  private watch(shell: Duplex): Duplex {
    shell.on('data', (chunk: Buffer | string) => {
      // minicap says its pid first ("PID: 1234"): it is the one to kill when no banner ever came.
      this.output = (this.output + chunk.toString()).slice(-4000);
      const pid = /PID: (\d+)/.exec(this.output);
      if (pid && this.pid === null) this.pid = Number(pid[1]);
    });
    const exited = () => {
      if (this.exited) return;
      this.exited = true;
      this.markExited();
      if (this.started) this.lose(`minicap exited${this.said()}`);
      // A connection still waiting for the banner gives up at once.
      else this.socket?.destroy();
    };
    shell.on('end', exited);
    shell.on('close', exited);
    shell.on('error', exited);
    return shell;
  }

  /** Reads the banner from a fresh connection; null when the connection closed first (try again) or time ran out. */
  private handshake(socket: Duplex, deadline: number): Promise<MinicapBanner | null> {
    this.socket = socket;
    const parser = new MinicapParser();
    return new Promise<MinicapBanner | null>((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        finish();
      };
      const timer = setTimeout(
        () =>
          settle(() => {
            socket.destroy();
            resolve(null);
          }),
        Math.max(0, deadline - Date.now()),
      );
      // Only the newest connection speaks for minicap: an earlier one closing late changes nothing.
      const current = () => this.socket === socket;
      socket.on('data', (chunk: Buffer) => {
        if (!current()) return;
        let frames: Buffer[];
        try {
          frames = parser.feed(chunk);
        } catch (error) {
          socket.destroy();
          if (settled) this.lose(describe(error));
          else settle(() => reject(error instanceof Error ? error : new Error(String(error))));
          return;
        }
        const banner = parser.banner;
        if (banner && !settled) {
          this.banner = banner;
          settle(() => resolve(banner));
        }
        // Frames read in one go are older than the last of them: only the newest is worth showing.
        const newest = frames[frames.length - 1];
        if (newest && !this.stopped) this.onFrame(newest);
      });
      const ended = () => {
        if (!current()) return settle(() => resolve(null));
        if (settled) this.lose('the minicap connection closed');
        else settle(() => resolve(null));
      };
      socket.on('end', ended);
      socket.on('close', ended);
      socket.on('error', ended);
    });
  }

  private lose(reason: string): void {
    if (this.stopped || this.lost || !this.started) return;
    this.lost = true;
    this.onLost(reason);
  }

  /** The last thing minicap printed, for the log. */
  private said(): string {
    const last = this.output.trim().split('\n').pop()?.trim();
    return last ? ` ("${last.slice(0, 200)}")` : '';
  }

  /** Ends the process (by its pid), then the connection and the shell; waits briefly for it to be gone. */
  async stop(commandTimeoutMs: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.socket?.destroy();
    const shell = await this.shell?.catch(() => null);
    if (!shell) return;
    if (!this.exited) {
      // Closing the shell alone leaves minicap running: adb's plain shell gives it no hangup to notice. Without its
      // pid (it had not said it yet) it is ended by name, which is safe: the next minicap starts only after this.
      await this.phone.exec(this.pid !== null ? `kill ${this.pid}` : 'pkill -x minicap', commandTimeoutMs).catch(() => undefined);
      // The shell ends when the process does; the next minicap can then take the socket's name.
      await Promise.race([this.exit, sleep(1000)]);
    }
    shell.destroy();
  }
}

/** A phone's live screen over adb: minicap where it runs, screenshots otherwise. */
export class AdbLiveScreen implements LiveFrameSource {
  private readonly frames = new NewestFrame();
  private run: MinicapRun | null = null;
  private method: 'minicap' | 'screencap' = 'screencap';
  private capturing = false;
  private closed = false;
  private rotation: number;
  private build: string | null = null;
  private readonly maxSide: number;
  private readonly quality: number;

  constructor(
    private readonly phone: LivePhone,
    private readonly options: LiveScreenOptions,
    private readonly limits: LiveScreenLimits,
  ) {
    this.rotation = phone.rotation;
    this.maxSide = options.maxSide ?? SCREENSHOT_DEFAULTS.maxSide;
    this.quality = options.quality ?? SCREENSHOT_DEFAULTS.quality;
  }

  /** How frames are captured now. */
  get source(): 'minicap' | 'screencap' {
    return this.method;
  }

  /** minicap's process on the phone, while it streams. */
  get minicapPid(): number | null {
    return this.run?.pid ?? null;
  }

  next(signal?: AbortSignal): Promise<LiveScreenFrame> {
    return this.frames.take(signal);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.frames.end(new PhoneError('disconnected', 'The live screen is closed.'));
    const run = this.run;
    this.run = null;
    await run?.stop(this.limits.commandTimeoutMs);
  }

  /** The display turned: minicap is started again with the new rotation (screenshots follow it on their own). */
  async reorient(quarterTurns: number): Promise<void> {
    this.rotation = quarterTurns;
    const run = this.run;
    if (this.closed || !run) return;
    this.run = null;
    await run.stop(this.limits.commandTimeoutMs);
    await this.startMinicap();
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  /**
   * Starts capturing; resolves once it captures one way or the other (minicap's banner came, or screenshots are
   * under way). Closing meanwhile ends the start too.
   */
  async start(): Promise<void> {
    if (this.closed) return;
    const { abi, sdk } = this.phone.info;
    const files = minicapFiles(abi, sdk);
    if (!files) {
      this.log(`No minicap build for ${abi} on Android SDK ${sdk}: the live screen uses screenshots.`);
      return this.useScreencap();
    }
    this.build = `${files.bin}|${files.lib}`;
    try {
      // One minicap per phone: one left over from an agent that stopped would hold the socket's name.
      await this.phone.exec('pkill -x minicap', this.limits.commandTimeoutMs).catch(() => undefined);
      if (!this.phone.copied.has(this.build)) {
        this.phone.copied.clear();
        await this.phone.push(files.bin, `${MINICAP_DIR}/minicap`, 0o755);
        await this.phone.push(files.lib, `${MINICAP_DIR}/minicap.so`, 0o644);
        this.phone.copied.add(this.build);
      }
    } catch (error) {
      this.log(`minicap could not be copied to the phone (${describe(error)}): the live screen uses screenshots.`);
      return this.useScreencap();
    }
    await this.startMinicap();
  }

  private async startMinicap(): Promise<void> {
    if (this.closed) return;
    const projection = minicapProjection(this.phone.info.screen, this.maxSide, this.rotation);
    const run: MinicapRun = new MinicapRun(
      this.phone,
      minicapCommand(projection, this.quality),
      (jpeg) => this.minicapFrame(run, jpeg),
      (reason) => void this.minicapLost(run, reason),
    );
    this.run = run;
    this.method = 'minicap';
    try {
      await run.start(this.limits.startTimeoutMs);
    } catch (error) {
      // Copied again next time, in case the files on the phone are what failed.
      if (this.build) this.phone.copied.delete(this.build);
      await this.minicapLost(run, describe(error));
    }
  }

  private minicapFrame(run: MinicapRun, jpeg: Buffer): void {
    if (this.run !== run || this.closed) return;
    // The JPEG says its size (turned with the display); the banner's virtual size only if it does not.
    const banner = run.banner as MinicapBanner;
    const turned = banner.orientation % 2 === 1;
    const size = jpegSize(jpeg) ?? { width: turned ? banner.virtualHeight : banner.virtualWidth, height: turned ? banner.virtualWidth : banner.virtualHeight };
    this.frames.put({ mime: 'image/jpeg', data: jpeg, width: size.width, height: size.height, capturedAt: new Date().toISOString(), source: 'minicap' });
  }

  private async minicapLost(run: MinicapRun, reason: string): Promise<void> {
    if (this.run !== run) return;
    this.run = null;
    await run.stop(this.limits.commandTimeoutMs);
    if (this.closed) return;
    this.log(`minicap stopped (${reason}): the live screen uses screenshots.`);
    this.useScreencap();
  }

  private useScreencap(): void {
    this.method = 'screencap';
    if (this.capturing || this.closed) return;
    this.capturing = true;
    void this.captureLoop();
  }

  /** One screenshot at a time, each as soon as the last one is in; a failing phone is retried with a growing pause. */
  private async captureLoop(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      try {
        const shot = await this.phone.screenshot({ maxSide: this.maxSide, quality: this.quality });
        if (this.closed) break;
        failures = 0;
        this.frames.put({ ...shot, source: 'screencap' });
      } catch (error) {
        if (this.closed) break;
        failures += 1;
        if (failures === 1) this.log(`The live screen could not take a screenshot (${describe(error)}); retrying.`);
        await sleep(Math.min(2000, 250 * 2 ** (failures - 1)));
      }
    }
    this.capturing = false;
  }
}
