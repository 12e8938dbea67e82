/**
 * The phone's line through the adb server, shared by every room of `AdbPhone`: its options, the queries that run as
 * one shell process each (`exec`), the copies through adb's sync service (`upload`), and the health their answers
 * move. Every command has a timeout; consecutive failures mark the phone unresponsive (reported through `onHealth`),
 * the first answer after that marks it responsive again. The rooms read and move the same counts, so they live here
 * rather than being passed from room to room.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { Duplex } from 'node:stream';
import type { DeviceClient } from '@devicefarmer/adbkit';
import { PhoneError, withTimeout } from '../phone/phone.device.ts';
import type { UiServerApks, UiServerOptions } from './adb.uiserver.ts';

export type PhoneHealth = 'responsive' | 'unresponsive';

export interface AdbPhoneOptions {
  /** Limit for one query or input command. */
  commandTimeoutMs?: number;
  /** Limit for `uiautomator dump`, which takes seconds on a busy screen. */
  dumpTimeoutMs?: number;
  screenshotTimeoutMs?: number;
  /** Limit for pushing one media file. */
  pushTimeoutMs?: number;
  /** Failed commands in a row after which the phone counts as unresponsive. */
  unresponsiveAfter?: number;
  /** Where `uiautomator dump` writes on the phone (the shell user may write under /data/local/tmp). */
  dumpPath?: string;
  /** Default folder for pushed media. */
  mediaDir?: string;
  /**
   * The farm host's media folder (the agent's fetched files): set, `pushMedia` copies nothing that lies outside it once
   * its links are followed, whatever a recipe run let through.
   */
  mediaRoot?: string;
  /** How long minicap has to start streaming before the live screen falls back to screenshots. */
  liveStartTimeoutMs?: number;
  /** The verified scrcpy-server file (`ensureScrcpyServer`); absent: the live screen stays on JPEG. */
  scrcpyServer?: () => Promise<string>;
  /** How long scrcpy-server has to listen and send its header. */
  videoStartTimeoutMs?: number;
  /** The UI server to install and read through; false reads with `uiautomator dump` only. */
  uiServer?: UiServerApks | false;
  /** Limits of the UI server's requests and start. */
  uiServerTimeouts?: UiServerOptions;
  /** After the UI server could not be started, how long the dump is used before the server is tried again. */
  uiServerRetryMs?: number;
  /** After the phone refused to install it (e.g. "Install via USB" off), how long before installing is tried again. */
  uiServerInstallRetryMs?: number;
  /** Dumps tried in one read when the phone says "null root node" or "could not get idle state". */
  dumpAttempts?: number;
  /** Pause between those tries. */
  dumpRetryPauseMs?: number;
  /** How long files have to appear in the media store after a scan. */
  mediaIndexTimeoutMs?: number;
  onHealth?: (health: PhoneHealth, reason: string) => void;
}

/** The part of adbkit's DeviceClient this backend uses (tests and other transports may stand in). */
export type AdbDevice = Pick<DeviceClient, 'shell' | 'screencap' | 'push' | 'openLocal' | 'openTcp'>;

const DEFAULTS = {
  commandTimeoutMs: 10_000,
  dumpTimeoutMs: 20_000,
  screenshotTimeoutMs: 15_000,
  pushTimeoutMs: 120_000,
  unresponsiveAfter: 2,
  dumpPath: '/data/local/tmp/farm-ui.xml',
  mediaDir: '/sdcard/DCIM/Farm',
  liveStartTimeoutMs: 3000,
  uiServerRetryMs: 60_000,
  uiServerInstallRetryMs: 30 * 60_000,
  dumpAttempts: 3,
  dumpRetryPauseMs: 500,
  mediaIndexTimeoutMs: 10_000,
};

/** The options with their defaults filled in. */
export type LinkOptions = typeof DEFAULTS &
  Pick<AdbPhoneOptions, 'onHealth' | 'uiServer' | 'uiServerTimeouts' | 'scrcpyServer' | 'videoStartTimeoutMs' | 'mediaRoot'>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function readAll(stream: Duplex): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export class PhoneLink {
  readonly options: LinkOptions;
  private failures = 0;
  health: PhoneHealth = 'responsive';
  /** Set once the phone is let go: nothing new is started on it. */
  closed = false;
  /** When the phone last answered a command or its UI server a request (performance.now()), or null before that. */
  answeredAt: number | null = null;

  constructor(
    readonly serial: string,
    readonly device: AdbDevice,
    options: AdbPhoneOptions,
  ) {
    this.options = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) };
  }

  private succeeded(): void {
    this.answeredAt = performance.now();
    this.failures = 0;
    if (this.health === 'unresponsive') {
      this.health = 'responsive';
      this.options.onHealth?.('responsive', 'The phone answers again.');
    }
  }

  private failed(error: unknown): void {
    if (!(error instanceof PhoneError) || (error.code !== 'timeout' && error.code !== 'disconnected')) return;
    this.failures += 1;
    if (this.failures >= this.options.unresponsiveAfter && this.health === 'responsive') {
      this.health = 'unresponsive';
      this.options.onHealth?.('unresponsive', error.message);
    }
  }

  /** Runs work on the phone, counting its answer or its failure toward the phone's health. */
  async tracked<T>(work: () => Promise<T>): Promise<T> {
    try {
      const value = await work();
      this.succeeded();
      return value;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  /**
   * One request to the UI server. An answer counts as the phone answering; a failure does not count against the
   * phone's health: a hung or dead server is the server's trouble, and the read that met it says so.
   */
  async serverCall<T>(work: () => Promise<T>): Promise<T> {
    const value = await work();
    this.succeeded();
    return value;
  }

  /** Runs one command in its own shell process and answers what it printed. */
  exec(command: string, timeoutMs = this.options.commandTimeoutMs): Promise<string> {
    return this.tracked(async () => {
      const held: { stream?: Duplex; late?: boolean } = {};
      const work = (async () => {
        const stream = await this.device.shell(command);
        held.stream = stream;
        if (held.late) stream.destroy();
        return (await readAll(stream)).toString('utf8');
      })();
      return withTimeout(work, timeoutMs, `"${command.slice(0, 80)}"`, () => {
        held.late = true;
        held.stream?.destroy();
      }).catch((error: unknown) => {
        if (error instanceof PhoneError) throw error;
        throw new PhoneError('disconnected', `The phone did not run "${command.slice(0, 80)}": ${error instanceof Error ? error.message : String(error)}`);
      });
    });
  }

  /** Copies a local file to `remote` with adb's sync service, with the given file mode. */
  upload(localPath: string, remote: string, mode: number, timeoutMs: number): Promise<void> {
    return this.tracked(async () => {
      const transfer = await withTimeout(
        Promise.resolve(this.device.push(createReadStream(localPath), remote, mode)),
        this.options.commandTimeoutMs,
        'Starting the upload',
      );
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          transfer.on('end', () => resolve());
          transfer.on('error', (error: Error) =>
            reject(
              // adbkit's PrematureEOFError: the stream ended under the transfer because the phone went away, not a refusal.
              error.name === 'PrematureEOFError'
                ? new PhoneError('disconnected', `The phone went away while receiving ${remote}: ${error.message}`)
                : new PhoneError('command_failed', `The phone refused the file ${remote}: ${error.message}`),
            ),
          );
        }),
        timeoutMs,
        `Uploading ${basename(localPath)}`,
        () => transfer.cancel(),
      );
    });
  }
}
