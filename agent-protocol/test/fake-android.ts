/**
 * The phone behind the fake adb server: a small `sh` (`;`, `&&`, `|`, quotes, `2>&1`, `$?`, `VAR=value` and
 * `exec` before a command) in front of the tools the backend calls (getprop, wm, dumpsys, uiautomator, input,
 * monkey, am, settings get/put, screencap, echo, rm, cat, grep -E, kill, pkill -x), answering with fixtures of real
 * outputs. Pushed executables run: a pushed `minicap` (with its `minicap.so` beside it) starts a `FakeMinicap`
 * that the server connects `localabstract:minicap` to. It records every input command, pushed file and killed
 * pid, and can be made busy (uiautomator cannot get an idle state) or frozen (nothing comes back).
 */
import type { Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FakeMinicap, type FakeMinicapBehaviour } from './fake-minicap.ts';

export const fixturesDir = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const fixture = (name: string) => readFileSync(`${fixturesDir}${name}`, 'utf8');

export interface FakeAndroidOptions {
  serial: string;
  model?: string;
  product?: string;
  getprop?: string;
  wmSize?: string;
  battery?: string;
  power?: string;
  window?: string;
  connectivity?: string;
  /** The screen's `uiautomator dump` XML, asked each time it is dumped. */
  screen?: () => string;
  /** PNG bytes `screencap -p` prints. */
  screencap?: () => Buffer;
  /** Packages installed (monkey and am start answer for these). */
  packages?: string[];
  keyboard?: string;
  /** How a pushed minicap behaves once started (`streams` by default). */
  minicap?: FakeMinicapBehaviour;
  /** How often a streaming minicap sends a frame. */
  minicapFrameMs?: number;
}

interface Result {
  out: Buffer;
  code: number;
  /** A process that keeps running: its shell stays open until this resolves with its last words. */
  running?: Promise<Result>;
}

/** Output of the processes a command line starts, as they print it (the adb shell's stream). */
export type ShellWriter = (chunk: Buffer) => void;

/** Splits a command line into words and operators, keeping quoting as sh does. */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') {
        if (line[j] === '\\') j++;
        word += line[j];
        j++;
      }
      i = j;
      inWord = true;
    } else if (c === ' ') {
      if (inWord) tokens.push(word);
      word = '';
      inWord = false;
    } else if (c === ';' || c === '|') {
      if (inWord) tokens.push(word);
      tokens.push(c);
      word = '';
      inWord = false;
    } else if (c === '&' && line[i + 1] === '&') {
      if (inWord) tokens.push(word);
      tokens.push('&&');
      word = '';
      inWord = false;
      i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) tokens.push(word);
  return tokens;
}

export class FakeAndroid {
  readonly serial: string;
  readonly model: string;
  readonly product: string;
  readonly files = new Map<string, Buffer>();
  /** Input commands in order, as the phone received them (`tap 540 1200`, `keyevent 4`, `text 'hi'`). */
  readonly inputs: string[] = [];
  /** Every command line run, in order. */
  readonly commands: string[] = [];
  readonly pushed: { path: string; mode: number; data: Buffer; mtime: number }[] = [];
  readonly scanned: string[] = [];
  readonly launched: string[] = [];
  readonly opened: string[] = [];
  /** Every minicap started, in order (the running one last). */
  readonly minicaps: FakeMinicap[] = [];
  /** Pids sent a signal with `kill` or `pkill`, in order. */
  readonly killed: number[] = [];
  /** `settings` values by `namespace key`; unset ones read as "null", as on a phone. */
  readonly settings = new Map<string, string>([
    ['system accelerometer_rotation', '0'],
    ['system user_rotation', '0'],
  ]);
  private readonly modes = new Map<string, number>();
  private nextPid = 4321;
  /** Dumps to fail with "could not get idle state" before the next one succeeds. */
  busyDumps = 0;
  dumps = 0;
  shellsOpened = 0;
  frozen = false;
  battery: string;
  power: string;
  onInput: (input: string) => void = () => undefined;

  constructor(private readonly options: FakeAndroidOptions) {
    this.serial = options.serial;
    this.model = options.model ?? 'Pixel 7';
    this.product = options.product ?? 'panther';
    this.battery = options.battery ?? fixture('dumpsys-battery.txt');
    this.power = options.power ?? fixture('dumpsys-power.txt');
    this.settings.set('secure default_input_method', options.keyboard ?? 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME');
  }

  /** The process listening on an abstract unix socket (`localabstract:<name>`), or null when none does. */
  listener(name: string): { accept(socket: Socket): void } | null {
    if (name !== 'minicap') return null;
    return this.minicaps.find((item) => item.running && item.listening) ?? null;
  }

  /** Ends every process still running (the phone is put away). */
  shutdown(): void {
    for (const minicap of this.minicaps) minicap.kill();
  }

  receive(path: string, mode: number, data: Buffer, mtime: number): void {
    this.pushed.push({ path, mode, data, mtime });
    this.files.set(path, data);
    this.modes.set(path, mode);
  }

  /**
   * Runs one command line as the phone's shell would. A process that keeps running (minicap) holds the answer back
   * until it ends; what it prints meanwhile goes to `write` when given.
   */
  async sh(line: string, write?: ShellWriter): Promise<Buffer> {
    this.commands.push(line);
    const tokens = tokenize(line);
    const output: Buffer[] = [];
    let last = 0;
    let skip = false;
    let pipeInput: Buffer | null = null;
    let words: string[] = [];
    const runWords = () => {
      // Redirections of stderr change nothing here: the fake's tools write no stderr.
      const argv = words.filter((word) => word !== '2>&1' && word !== '2>/dev/null');
      words = [];
      const expanded = argv.map((word) => word.replace(/\$\?/g, String(last)));
      const env: Record<string, string> = {};
      while (expanded.length > 1 && /^[A-Za-z_]\w*=/.test(expanded[0] as string)) {
        const assignment = expanded.shift() as string;
        env[assignment.slice(0, assignment.indexOf('='))] = assignment.slice(assignment.indexOf('=') + 1);
      }
      if (expanded[0] === 'exec') expanded.shift();
      const result = this.tool(expanded, pipeInput, env);
      pipeInput = null;
      return result;
    };
    for (const token of [...tokens, ';']) {
      if (token === '|') {
        const result = skip ? { out: Buffer.alloc(0), code: last } : runWords();
        pipeInput = result.out;
        continue;
      }
      if (token === ';' || token === '&&') {
        if (words.length > 0) {
          if (!skip) {
            let result = runWords();
            if (result.running) {
              // What it printed so far reaches the client now; the rest when it ends.
              const early = Buffer.concat([...output.splice(0), result.out]);
              if (write) write(early);
              else output.push(early);
              result = await result.running;
            }
            last = result.code;
            output.push(result.out);
          } else words = [];
        }
        skip = token === '&&' && last !== 0;
        if (token === ';') skip = false;
        continue;
      }
      words.push(token);
    }
    await new Promise((resolve) => setImmediate(resolve));
    return Buffer.concat(output);
  }

  private text(value: string, code = 0): Result {
    return { out: Buffer.from(value), code };
  }

  private tool(argv: string[], stdin: Buffer | null, env: Record<string, string> = {}): Result {
    const [name, ...args] = argv;
    const o = this.options;
    if (name?.startsWith('/')) return this.run(name, args, env);
    switch (name) {
      case 'echo':
        return this.text(`${args.join(' ')}\n`);
      case 'getprop':
        return this.text(o.getprop ?? fixture('getprop.txt'));
      case 'wm':
        return this.text(o.wmSize ?? fixture('wm-size.txt'));
      case 'settings': {
        const [verb, namespace, key, value] = args;
        if (verb === 'get') return this.text(`${this.settings.get(`${namespace} ${key}`) ?? 'null'}\n`);
        if (verb === 'put' && value !== undefined) {
          this.settings.set(`${namespace} ${key}`, value);
          return this.text('');
        }
        return this.text('usage:  settings [--user <USER_ID> | current] get namespace key\n', 255);
      }
      case 'kill': {
        const pid = Number(args[args.length - 1]);
        this.killed.push(pid);
        const minicap = this.minicaps.find((item) => item.pid === pid && item.running);
        if (!minicap) return this.text(`/system/bin/sh: kill: ${args[args.length - 1]}: No such process\n`, 1);
        minicap.kill();
        return this.text('');
      }
      case 'pkill': {
        const running = args[args.length - 1] === 'minicap' ? this.minicaps.filter((item) => item.running) : [];
        for (const minicap of running) {
          this.killed.push(minicap.pid);
          minicap.kill();
        }
        return this.text('', running.length > 0 ? 0 : 1);
      }
      case 'grep': {
        const pattern = new RegExp(args[args.length - 1] ?? '');
        const lines = (stdin ?? Buffer.alloc(0))
          .toString('utf8')
          .split('\n')
          .filter((row) => pattern.test(row));
        return this.text(lines.length ? `${lines.join('\n')}\n` : '', lines.length ? 0 : 1);
      }
      case 'dumpsys': {
        const service = args[0];
        if (service === 'battery') return this.text(this.battery);
        if (service === 'power') return this.text(this.power);
        if (service === 'window') return this.text(o.window ?? fixture('dumpsys-window.txt'));
        if (service === 'connectivity') return this.text(o.connectivity ?? fixture('dumpsys-connectivity.txt'));
        if (service === 'package') {
          const pkg = args[1] ?? '';
          if (!(o.packages ?? []).includes(pkg)) return this.text('');
          return this.text(fixture('dumpsys-package.txt').replaceAll('com.instagram.android', pkg));
        }
        return this.text(`Can't find service: ${service}\n`);
      }
      case 'rm':
        this.files.delete(args[args.length - 1] ?? '');
        return this.text('');
      case 'cat': {
        const file = this.files.get(args[0] ?? '');
        return file ? { out: file, code: 0 } : this.text(`cat: ${args[0]}: No such file or directory\n`, 1);
      }
      case 'uiautomator': {
        this.dumps += 1;
        if (this.busyDumps > 0) {
          this.busyDumps -= 1;
          return this.text('ERROR: could not get idle state.\n', 0);
        }
        const file = args[1] ?? '/sdcard/window_dump.xml';
        this.files.set(file, Buffer.from(o.screen?.() ?? "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"></hierarchy>"));
        return this.text(`UI hierchary dumped to: ${file}\n`);
      }
      case 'screencap':
        return { out: Buffer.concat([o.screencap?.() ?? Buffer.alloc(0)]), code: 0 };
      case 'input': {
        const input = args.join(' ');
        this.inputs.push(input);
        this.onInput(input);
        return this.text('');
      }
      case 'monkey': {
        const pkg = args[args.indexOf('-p') + 1] ?? '';
        if (!(o.packages ?? []).includes(pkg)) return this.text('  bash arg: -p\n** No activities found to run, monkey aborted.\n', 252);
        this.launched.push(pkg);
        return this.text(
          `  bash arg: -p\n  bash arg: ${pkg}\n  bash arg: -c\n  bash arg: android.intent.category.LAUNCHER\n  bash arg: 1\nargs: [-p, ${pkg}, -c, android.intent.category.LAUNCHER, 1]\nEvents injected: 1\n## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n`,
        );
      }
      case 'am': {
        const data = args[args.indexOf('-d') + 1] ?? '';
        if (args[0] === 'broadcast') {
          if (args.includes('android.intent.action.MEDIA_SCANNER_SCAN_FILE')) this.scanned.push(data.replace('file://', ''));
          return this.text(`Broadcasting: Intent { act=${args[args.indexOf('-a') + 1]} dat=${data} flg=0x400000 }\nBroadcast completed: result=0\n`);
        }
        if (args[0] === 'start') {
          const component = args[args.indexOf('-n') + 1];
          if (args.includes('-n') && component) {
            const pkg = component.split('/')[0] ?? '';
            if (!(o.packages ?? []).includes(pkg))
              return this.text(`Starting: Intent { cmp=${component} }\nError type 3\nError: Activity class {${component}} does not exist.\n`, 1);
            this.launched.push(pkg);
            return this.text(`Starting: Intent { cmp=${component} }\n`);
          }
          this.opened.push(data);
          return this.text(`Starting: Intent { act=android.intent.action.VIEW dat=${data} }\n`);
        }
        return this.text('');
      }
      default:
        return this.text(`/system/bin/sh: ${name}: not found\n`, 127);
    }
  }

  /** Runs a pushed program: only minicap is known. */
  private run(path: string, args: string[], env: Record<string, string>): Result {
    const mode = this.modes.get(path);
    if (!this.files.has(path) || mode === undefined) return this.text(`/system/bin/sh: ${path}: not found\n`, 127);
    if ((mode & 0o111) === 0) return this.text(`/system/bin/sh: ${path}: can't execute: Permission denied\n`, 126);
    if (!path.endsWith('/minicap')) return this.text('', 0);
    const libraries = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
    if (!libraries.some((dir) => this.files.has(`${dir}/minicap.so`)))
      return this.text(`CANNOT LINK EXECUTABLE "${path}": library "minicap.so" not found\n`, 1);
    const early: Buffer[] = [];
    const minicap = new FakeMinicap(this.nextPid++, args, this.options.minicap ?? 'streams', this.options.minicapFrameMs ?? 50, (text) =>
      early.push(Buffer.from(text)),
    );
    this.minicaps.push(minicap);
    return { out: Buffer.concat(early), code: 0, running: minicap.exited.then((last) => ({ out: last, code: minicap.exitCode })) };
  }
}
