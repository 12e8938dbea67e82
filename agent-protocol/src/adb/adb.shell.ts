/**
 * One long-lived `sh` per phone for input. Opening an adb shell costs a connection, a transport switch and a
 * process on the phone; input comes in bursts (a swipe every few seconds, a caption typed in chunks), so
 * commands are written into one shell and each is followed by a marker line that says it finished and how.
 * A command that gets no marker in time ends the shell (its state is unknown) and the next one opens another.
 */
import type { Duplex } from 'node:stream';
import { PhoneError } from '../phone/phone.device.ts';

/**
 * How long each kind of phone command may take before the phone counts as not answering. One table, so a command's
 * limit is looked up by what it is rather than chosen where it is run: a quick shell command or read answers in
 * well under a second on a working phone (10 s is a phone in trouble); a `pm install` of a 100–200 MB app is
 * compiled on the phone and often scanned by Play Protect first, which takes minutes on an older phone. A command
 * that answers within its kind's limit is an answer (the phone is well); one past it counts toward "unresponsive".
 */
export const commandLimits = {
  /** An echo, a getprop, a small query, an input line. */
  quick: 10_000,
  /** `dumpsys` and the like: a few hundred KB printed by a busy system server. */
  read: 20_000,
  /** `pm uninstall`, `pm install-create`, `install-abandon`, and removing a copied file. */
  package: 60_000,
  /** `pm install-write`: the phone copies one APK of the set into its session. */
  installWrite: 5 * 60_000,
  /** `pm install` and `pm install-commit`: verified, compiled and scanned on the phone. */
  install: 10 * 60_000,
} as const satisfies Record<string, number>;

export type CommandKind = keyof typeof commandLimits;
export type CommandLimits = Record<CommandKind, number>;

/** The limits with some replaced (a farm's own, or a test's scaled ones). */
export function limitsWith(overrides: Partial<CommandLimits> = {}): CommandLimits {
  return { ...commandLimits, ...overrides };
}

export interface ShellResult {
  output: string;
  exitCode: number;
}

interface Pending {
  marker: string;
  resolve: (result: ShellResult) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Opens the stream of a shell (`shell:sh` in adb's v1 shell service: a plain process, no terminal, no echo). */
export type ShellOpener = () => Promise<Duplex>;

export class PersistentShell {
  private stream: Duplex | null = null;
  private opening: Promise<Duplex> | null = null;
  private buffer = '';
  private pending: Pending | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private sequence = 0;
  private closed = false;
  /** How many shells were opened: one while the phone answers. */
  opened = 0;

  constructor(
    private readonly open: ShellOpener,
    private readonly timeoutMs: number,
  ) {}

  /** Runs one command line; commands run one after another, in the order given. */
  run(command: string, timeoutMs = this.timeoutMs): Promise<ShellResult> {
    const next = this.queue.then(() => this.execute(command, timeoutMs));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async stream_(): Promise<Duplex> {
    if (this.stream) return this.stream;
    if (!this.opening) {
      this.opening = this.open().then((stream) => {
        this.opened += 1;
        this.stream = stream;
        this.buffer = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => this.onData(chunk));
        const ended = () => this.onEnd(stream);
        stream.on('end', ended);
        stream.on('close', ended);
        stream.on('error', ended);
        return stream;
      });
      this.opening.finally(() => (this.opening = null)).catch(() => undefined);
    }
    return this.opening;
  }

  private async execute(command: string, timeoutMs: number): Promise<ShellResult> {
    if (this.closed) throw new PhoneError('disconnected', 'The phone shell is closed.');
    this.sequence += 1;
    const marker = `__farm_done_${this.sequence}_`;
    return new Promise<ShellResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        this.reset();
        reject(new PhoneError('timeout', `The phone did not finish "${command.slice(0, 80)}" within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.pending = { marker, resolve, reject, timer };
      this.stream_()
        .then((stream) => {
          if (this.pending?.marker !== marker) return;
          // The marker is echoed from two quoted halves so a terminal echoing the line back cannot match it.
          stream.write(`${command} 2>&1; echo "${marker.slice(0, 7)}""${marker.slice(7)}$?"\n`);
        })
        .catch((error: unknown) => {
          if (this.pending?.marker !== marker) return;
          clearTimeout(timer);
          this.pending = null;
          reject(
            error instanceof PhoneError
              ? error
              : new PhoneError('disconnected', `The phone shell could not be opened: ${error instanceof Error ? error.message : String(error)}`),
          );
        });
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    const pending = this.pending;
    if (!pending) {
      // Output nobody waits for (a command that timed out finishing late): drop it.
      this.buffer = '';
      return;
    }
    const match = new RegExp(`(?:^|\\n)${pending.marker}(\\d+)\\r?\\n`).exec(this.buffer);
    if (!match) return;
    const output = this.buffer.slice(0, match.index);
    this.buffer = this.buffer.slice(match.index + match[0].length);
    clearTimeout(pending.timer);
    this.pending = null;
    pending.resolve({ output, exitCode: Number(match[1]) });
  }

  private onEnd(stream: Duplex): void {
    if (this.stream !== stream) return;
    this.stream = null;
    const pending = this.pending;
    if (pending) {
      clearTimeout(pending.timer);
      this.pending = null;
      pending.reject(new PhoneError('disconnected', 'The phone shell closed before the command finished.'));
    }
  }

  /** Drops the current shell; the next command opens a fresh one. */
  reset(): void {
    const stream = this.stream;
    this.stream = null;
    stream?.destroy();
  }

  close(): void {
    this.closed = true;
    const pending = this.pending;
    if (pending) {
      clearTimeout(pending.timer);
      this.pending = null;
      pending.reject(new PhoneError('disconnected', 'The phone shell was closed.'));
    }
    this.reset();
  }
}
