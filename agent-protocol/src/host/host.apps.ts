/**
 * App jobs on a farm host (issue #42): the console sends `app.run` for one phone; the host answers at once that it
 * took it, fetches the APKs from the console (`/api/agent/apps/<key>`, its own credential, no redirect followed,
 * streamed to disk and checked against the size the console gave), installs them with `pm install` or one
 * `install-create` session for a split set, or removes the app, and reports the phone's result (`host.app`) with
 * the package manager's code in words (adb/adb.packages.ts). One job at a time per phone.
 *
 * `pm install -r` (and `pm uninstall`) kill the app: a job waits until the task running on the phone has ended, and
 * from the moment it is queued the phone takes no new task (`PhoneWork`), until the job ended. A split set installs
 * only the splits the phone needs (adb/adb.splits.ts). While a job runs, its stage and how long it has been in it go
 * to the console every few seconds (`host.app-progress`), so a ten-minute install is seen going on.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { installApk, installSplitSet, uninstallPackage, type PackagePhone, type PackageResult } from '../adb/adb.packages.ts';
import type { CommandLimits } from '../adb/adb.shell.ts';
import { readDeviceSpec, splitsFor } from '../adb/adb.splits.ts';
import { appJob, type AppJob, type AppJobStage, type FleetHostMessage } from '../fleet/fleet.messages.ts';
import { PhoneError } from '../phone/phone.device.ts';

/** The phone's tasks as an app job meets them (its agent): held while a job is queued or runs, and waited for. */
export interface PhoneWork {
  /** An app job is queued or runs (true), or one ended (false): counted, the phone takes no new task while any is. */
  appJob(active: boolean): void;
  /** Resolves once no task runs on the phone. */
  idle(): Promise<void>;
}

export interface HostAppsOptions {
  /** The console's address (the one the host connects to). */
  server: string;
  /** The host's credential. */
  token: string;
  /** Where fetched APKs are kept (by their stored key: a key's bytes never change). */
  dir: string;
  /** The phone of this serial as the package code drives it, or undefined when the host does not see it now. */
  phone: (serial: string) => PackagePhone | undefined;
  send: (name: 'host.app', message: FleetHostMessage<'host.app'>) => void;
  /** Where a running job's stage goes (`host.app-progress`). */
  progress?: (message: FleetHostMessage<'host.app-progress'>) => void;
  /** How often a running job's stage is sent again (default 10 s). */
  progressMs?: number;
  /** The phone's tasks, to hold and wait for; undefined when nothing runs tasks on it. */
  work?: (serial: string) => PhoneWork | undefined;
  /** The package manager's limits, where they differ from `commandLimits` (a test's scaled ones). */
  limits?: Partial<CommandLimits>;
  log?: (line: string) => void;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** How long the host waits for a phone's running task before an app job goes ahead anyway (a task stuck for good). */
const TASK_WAIT_MS = 30 * 60_000;

/** A failure before the package manager had its say: the host's own code and words. */
class JobError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class HostApps {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly options: HostAppsOptions) {}

  /** Takes a job from the console: answers whether it is one (ack), then runs it after the phone's earlier jobs. */
  take(raw: unknown, ack?: (answer: { ok: boolean; error?: string }) => void): void {
    const parsed = appJob.safeParse(raw);
    if (!parsed.success) {
      ack?.({ ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') });
      return;
    }
    ack?.({ ok: true });
    const job = parsed.data;
    // From the moment it is queued: a task given to the phone meanwhile would be killed by the install.
    const work = this.options.work?.(job.serial);
    work?.appJob(true);
    const before = this.queues.get(job.serial) ?? Promise.resolve();
    const run = before.then(() => this.run(job)).finally(() => work?.appJob(false));
    this.queues.set(job.serial, run);
    void run.finally(() => {
      if (this.queues.get(job.serial) === run) this.queues.delete(job.serial);
    });
  }

  /** Runs one job and reports its result; never throws. */
  async run(job: AppJob): Promise<void> {
    let result: PackageResult;
    const progress = this.progress(job);
    const work = this.options.work?.(job.serial);
    work?.appJob(true);
    try {
      result = await this.execute(job, progress.stage);
    } catch (error) {
      const late = error instanceof PhoneError && error.code === 'timeout';
      const code = error instanceof JobError ? error.code : late ? 'install_timeout' : 'host_error';
      const message = error instanceof Error ? error.message : String(error);
      // Past its kind's limit the phone counts as not answering; the person is told which command it did not finish.
      const reason = late ? `The phone did not finish in time, which counts as not answering: ${message}` : message;
      result = { ok: false, code, reason, detail: message };
    } finally {
      progress.stop();
      work?.appJob(false);
    }
    this.options.log?.(`${job.serial}: ${job.action} ${job.package} ${result.ok ? 'succeeded' : `failed (${result.code})`}`);
    this.options.send('host.app', {
      jobId: job.jobId,
      serial: job.serial,
      ok: result.ok,
      code: result.ok ? null : result.code.slice(0, 100),
      reason: result.ok ? null : result.reason.slice(0, 1000),
      detail: (result.ok ? result.output : result.detail).slice(0, 1000) || null,
    });
  }

  /** Sends the job's stage now and every `progressMs` while it is in it; `stop` ends the ticking. */
  private progress(job: AppJob): { stage: (stage: AppJobStage) => void; stop: () => void } {
    const send = this.options.progress;
    let timer: NodeJS.Timeout | undefined;
    return {
      stage: (stage) => {
        if (!send) return;
        clearInterval(timer);
        const since = Date.now();
        const tell = () => send({ jobId: job.jobId, serial: job.serial, stage, elapsedMs: Math.max(0, Date.now() - since) });
        tell();
        timer = setInterval(tell, this.options.progressMs ?? 10_000);
        timer.unref();
      },
      stop: () => clearInterval(timer),
    };
  }

  private async execute(job: AppJob, stage: (stage: AppJobStage) => void): Promise<PackageResult> {
    const work = this.options.work?.(job.serial);
    if (work) {
      stage('waiting_for_task');
      await Promise.race([work.idle(), new Promise<void>((resolve) => setTimeout(resolve, TASK_WAIT_MS).unref())]);
    }
    const phone = this.options.phone(job.serial);
    if (!phone) throw new JobError('phone_missing', 'The host does not see this phone now (unplugged or not answering).');
    const limits = this.options.limits;
    if (job.action === 'remove') {
      stage('installing');
      const removed = await uninstallPackage(phone, job.package, limits);
      // Not there is what a removal wants (also a removal sent again after the first one went through).
      return !removed.ok && removed.code === 'not_installed' ? { ok: true, output: 'The app was not installed.' } : removed;
    }
    if (job.files.length === 0) throw new JobError('no_files', 'The console sent no APK for this version.');
    // The splits this phone needs (its ABI, density and language), as bundletool would install them; the base first.
    const files = job.files.length === 1 ? job.files : splitsFor(job.files, await readDeviceSpec(phone, limits?.quick));
    stage('downloading');
    const paths: string[] = [];
    for (const file of files) paths.push(await this.fetchApk(file.objectKey, file.size));
    const options = { allowDowngrade: job.allowDowngrade, ...(limits ? { limits } : {}) };
    stage('installing');
    if (files.length === 1) return installApk(phone, paths[0] as string, `${job.package}.apk`, options);
    return installSplitSet(
      phone,
      files.map((file, index) => ({ localPath: paths[index] as string, name: file.name, size: file.size })),
      options,
    );
  }

  /** Fetches one stored APK (or finds it already here, whole). */
  async fetchApk(key: string, size: number): Promise<string> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const file = join(this.options.dir, `${key}.apk`);
    const known = await stat(file).catch(() => null);
    if (known?.isFile() && known.size === size) return file;
    const target = new URL(`/api/agent/apps/${encodeURIComponent(key)}`, this.options.server);
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(target, {
        headers: { authorization: `Bearer ${this.options.token}` },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10 * 60_000),
      });
    } catch (error) {
      throw new JobError('download_failed', `The APK could not be downloaded from the console: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new JobError('download_failed', `The console answered ${response.status} for the APK.`);
    }
    const partial = `${file}.${process.pid}.${Date.now()}.part`;
    const out = createWriteStream(partial, { mode: 0o600 });
    let written = 0;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        written += chunk.byteLength;
        if (written > size) throw new JobError('download_failed', 'The APK the console sent is larger than announced.');
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      if (written !== size) throw new JobError('download_failed', 'The APK download was cut short.');
    } catch (error) {
      out.destroy();
      await rm(partial, { force: true });
      throw error instanceof JobError
        ? error
        : new JobError('download_failed', `The APK could not be saved: ${error instanceof Error ? error.message : String(error)}`);
    }
    await rename(partial, file);
    return file;
  }
}

/**
 * A simulated phone's package manager (the sim backend and the demo farm): every install, session and removal
 * succeeds with the outputs a real `pm` prints (see test/fixtures/EVIDENCE.md, "Package manager").
 */
export function simulatedPackagePhone(): PackagePhone {
  let session = 1_000_000;
  return {
    async exec(command) {
      const exit = command.includes('echo __farm_pm_exit=') ? '__farm_pm_exit=0\n' : '';
      if (/^pm install-create\b/.test(command)) {
        session += 1;
        return `Success: created install session [${session}]\n${exit}`;
      }
      if (/^pm install-write\b/.test(command)) return `Success: streamed ${/-S (\d+)/.exec(command)?.[1] ?? '0'} bytes\n${exit}`;
      if (/^pm (install|install-commit|uninstall)\b/.test(command)) return `Success\n${exit}`;
      return exit;
    },
    async pushFile() {},
  };
}
