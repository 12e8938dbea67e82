/**
 * The agent's backend for a phone it drives through `PhoneDevice`: a real Android phone over ADB, or the simulated
 * phone UI. Work runs as a recipe on the phone's UI (the one the task carries, or the shipped one for the routine,
 * platform and installed app version); heartbeats read the phone's battery and screen; screenshots are the phone's
 * own, scaled to 720 px and JPEG-encoded.
 */
import { toPixels, type LiveInput } from '../live.ts';
import type { InstalledApp, ServerMessage } from '../messages.ts';
import {
  androidKeyCodes,
  PhoneError,
  withTimeout,
  type LiveFrameSource,
  type LiveVideoSession,
  type PhoneDevice,
  type PhoneInfo,
  type UiReaderInfo,
} from '../phone/phone.device.ts';
import { screenshotSource } from './live-stream.ts';
import { readPhoneStatus } from '../phone/phone.status.ts';
import { parseRecipe, type Recipe, type RecipeParams, type RecipePlatform, type RoutineType } from '../recipes/recipe.schema.ts';
import { recipeApps, resolveRecipe } from '../recipes/recipe.resolver.ts';
import { MediaError } from './media.ts';
import { runRecipe, type RecipeRunOptions } from '../recipes/recipe.runner.ts';
import type { RunMedia } from '../recipes/recipe.media.ts';
import { captureTree, recordTarget, type RecordedTarget, type UiCapture } from '../recipes/recipe.inspect.ts';
import { parseUiXml } from '../recipes/recipe.ui.ts';
import type { TaskWork } from '../work.ts';
import type { DryRunOutcome, DryRunWork, PhoneBackend, WorkContext, WorkOutcome } from './phone-agent.backend.ts';

export interface DeviceBackendOptions {
  agentVersion: string;
  /** How often the phone's battery and screen are read for heartbeats. */
  readEveryMs?: number;
  /** Pacing of recipe runs (tests speed them up). */
  recipeOptions?: Pick<RecipeRunOptions, 'random' | 'clock' | 'pollMs' | 'busyPauseMs'>;
  /**
   * Brings stored media (`/api/objects/<id>`) to files on the host the phone can be given, and says the folder it keeps
   * them in (a MediaFetcher). A run copies to its phone only the files fetched for it; none: runs go without media.
   */
  media?: MediaSource;
  /** Told each step as it starts (the simulated phone draws it on its screen). */
  onStep?: (label: string) => void;
  /**
   * The checks before each run (screen and lock, app and version, battery, network, language, a known start, the
   * signed-in account): `full` (the default), `no-account` for phones that hold no account of their own (the
   * simulated ones of the demo farm), `off` to run the steps on the phone as it is.
   */
  preflight?: 'full' | 'no-account' | 'off';
}

/** What the backend needs of the agent's media fetcher. */
export interface MediaSource {
  fetch(address: string): Promise<string>;
  readonly dir: string;
}

interface Cached {
  battery: number;
  charging: boolean;
  screenOn: boolean;
  foregroundApp: string | undefined;
  answered: boolean;
}

export class DeviceBackend implements PhoneBackend {
  private info: PhoneInfo | undefined;
  private cached: Cached = { battery: 100, charging: false, screenOn: true, foregroundApp: undefined, answered: true };
  private readonly timer: NodeJS.Timeout;
  private paused = false;
  /** The host holds every phone's work around an adb server restart (`host.fleet.ts`): reported idle, given none. */
  holding = false;
  private working = false;
  /** Quarter turns given from the console since the agent started. */
  private quarterTurns = 0;

  constructor(
    readonly phone: PhoneDevice,
    private readonly options: DeviceBackendOptions,
  ) {
    if (phone.openVideo) this.openVideo = (kind) => this.startVideo(kind);
    this.timer = setInterval(() => void this.read(), options.readEveryMs ?? 5000);
    this.timer.unref();
  }

  /** Reads what the phone is before it says hello. */
  async start(): Promise<this> {
    this.info = await this.phone.info();
    await this.read();
    return this;
  }

  private async read(): Promise<void> {
    const status = await readPhoneStatus(this.phone).catch(() => undefined);
    if (!status) return;
    this.cached = {
      battery: status.battery?.level ?? this.cached.battery,
      charging: status.battery?.charging ?? this.cached.charging,
      screenOn: status.screen?.on ?? this.cached.screenOn,
      foregroundApp: status.foreground?.package ?? this.cached.foregroundApp,
      answered: status.answered,
    };
  }

  describe() {
    return {
      model: this.info?.model ?? 'Android phone',
      androidVersion: this.info?.androidVersion ?? 'unknown',
      serial: this.phone.serial,
      agentVersion: this.options.agentVersion,
    };
  }

  /**
   * The phone's UI reader for the hello. The first ask may install and start the UI server; the hello does not wait
   * on that past a few seconds (the reader is said again at the next connection).
   */
  async uiReader(): Promise<UiReaderInfo | undefined> {
    return withTimeout(this.phone.uiReader(), 5000, 'The UI reader').catch(() => undefined);
  }

  /**
   * The versions of the apps the shipped recipes drive, for the hello: `dumpsys package PKG | grep versionName` for
   * each (null when it is not installed). Within a few seconds, or not at all (said again at the next connection).
   */
  async installedApps(): Promise<InstalledApp[] | undefined> {
    const read = Promise.all(recipeApps().map(async (name) => ({ package: name, version: await this.phone.appVersion(name) })));
    return withTimeout(read, 5000, 'Reading the app versions').catch(() => undefined);
  }

  state() {
    const status = this.working ? ('busy' as const) : this.paused || this.holding || !this.cached.screenOn ? ('idle' as const) : ('online' as const);
    return { battery: this.cached.battery, charging: this.cached.charging, screenOn: this.cached.screenOn, status, foregroundApp: this.cached.foregroundApp };
  }

  async screenshot() {
    const shot = await this.phone.screenshot({ maxSide: 720, quality: 70 });
    return { mime: shot.mime, data: shot.data };
  }

  command(name: ServerMessage<'command'>['name']): void {
    if (name === 'pause') this.paused = true;
    if (name === 'resume' || name === 'restart_session') this.paused = false;
  }

  named(name: string): void {
    this.phone.named?.(name);
  }

  /** The phone's own stream where it has one (minicap, the simulator), else one screenshot after another. */
  openLive(settings: { maxSide: number; quality: number }): Promise<LiveFrameSource> {
    if (this.phone.openLive) return this.phone.openLive(settings);
    return Promise.resolve(screenshotSource(async (options) => ({ ...(await this.phone.screenshot(options)), source: 'screencap' as const }), settings));
  }

  /**
   * The screen as H.264 (absent where the phone cannot): while a session runs, a person's input goes through its
   * control socket instead of a shell command per action.
   */
  readonly openVideo?: (kind: 'control' | 'watch') => Promise<LiveVideoSession>;
  private readonly videos = new Map<'control' | 'watch', LiveVideoSession>();

  private async startVideo(kind: 'control' | 'watch'): Promise<LiveVideoSession> {
    const session = await this.phone.openVideo!(kind);
    this.videos.set(kind, session);
    session.onEnded(() => {
      if (this.videos.get(kind) === session) this.videos.delete(kind);
    });
    return session;
  }

  /**
   * The screen's UI tree and the frame taken right after it, with the app in front, its version and the phone's
   * language: what the recipe studio's Inspect shows. The tree is cut to the capture's limits.
   */
  async capture(): Promise<UiCapture> {
    const tree = captureTree(parseUiXml(await this.phone.dumpUi()));
    const shot = await this.phone.screenshot({ maxSide: 1280, quality: 70 });
    const packageName = tree.packageName ?? (await this.phone.foregroundApp().catch(() => null))?.package ?? null;
    const version = packageName ? await this.phone.appVersion(packageName).catch(() => null) : null;
    const locale = (await this.phone.locale?.().catch(() => null)) ?? null;
    return {
      tree,
      frame: { mime: shot.mime, data: new Uint8Array(shot.data), width: shot.width, height: shot.height },
      app: { package: packageName, version, locale },
      capturedAt: new Date().toISOString(),
    };
  }

  /** Record: the element under a point (a share of the screen), read now, before the person's input goes in. */
  async recordTarget(point: { x: number; y: number }): Promise<RecordedTarget> {
    const target = recordTarget(parseUiXml(await this.phone.dumpUi()), point);
    const appVersion = target.package ? await this.phone.appVersion(target.package).catch(() => null) : null;
    const locale = (await this.phone.locale?.().catch(() => null)) ?? null;
    return { ...target, appVersion, locale };
  }

  /** A person's input from the console, at the point they touched scaled to this phone's screen as it is turned now. */
  async input(input: LiveInput): Promise<void> {
    const video = this.videos.get('control') ?? this.videos.get('watch');
    if (video) return videoInput(video, input);
    this.info ??= await this.phone.info();
    const portrait = this.info.screen;
    const screen = this.quarterTurns % 2 === 1 ? { width: portrait.height, height: portrait.width } : portrait;
    switch (input.kind) {
      case 'tap': {
        const at = toPixels(screen, input);
        return this.phone.tap(at.x, at.y);
      }
      case 'long_press': {
        const at = toPixels(screen, input);
        return this.phone.longPress(at.x, at.y, input.durationMs);
      }
      case 'swipe':
        return this.phone.swipe(toPixels(screen, input.from), toPixels(screen, input.to), input.durationMs);
      case 'scroll': {
        // The finger moves against the wheel: content scrolls up as it moves up.
        const from = toPixels(screen, input);
        const to = toPixels(screen, { x: input.x, y: Math.max(0, Math.min(1, input.y - input.dy * 0.6)) });
        return this.phone.swipe(from, to, 200);
      }
      case 'text':
        return this.phone.text(input.text);
      case 'key':
        return this.phone.key(input.key);
      case 'rotate':
        if (!this.phone.rotate) throw new PhoneError('command_failed', 'This phone cannot be turned from the console');
        await this.phone.rotate();
        this.quarterTurns = (this.quarterTurns + 1) % 4;
        return;
    }
  }

  async run(work: TaskWork, context: WorkContext): Promise<WorkOutcome> {
    if (work.kind === 'manual') return { status: 'failed', code: 'unknown', message: 'This task is for a person, not for the phone agent', retryable: false };
    const routine: RoutineType = work.kind === 'post.publish' ? 'create_post' : (work.routineType as RoutineType);
    const platform = (work.kind === 'post.publish' ? work.account.platform : work.platform) as RecipePlatform;
    const recipe = await this.recipeFor(work, routine, platform);
    if (!recipe)
      return {
        status: 'failed',
        code: 'element_missing',
        message: `No recipe fits ${platform} ${routine.replace(/_/g, ' ')} on this phone's app version`,
        retryable: false,
      };
    let params: RecipeParams;
    let media: RunMedia | undefined;
    try {
      params = await this.paramsOf(work);
      media = this.runMedia(params.media ?? []);
    } catch (error) {
      // The post's media could not be brought here: nothing was done on the phone.
      if (error instanceof MediaError) return { status: 'failed', code: 'network', message: error.message, retryable: error.retryable };
      throw error;
    }
    this.working = true;
    try {
      const checks = this.options.preflight ?? 'full';
      // Timed here, around the run, on this machine's clock: the health board's median duration.
      const started = performance.now();
      const result = await runRecipe(this.phone, recipe, params, {
        ...this.options.recipeOptions,
        ...(checks === 'off'
          ? {}
          : {
              preflight: {
                account: checks === 'full' ? (work.account?.username ?? null) : null,
                allowUntestedApp: work.allowUntestedApp ?? false,
                verifiedApps: work.verifiedApps ?? [],
              },
            }),
        ...(media ? { media } : {}),
        signal: context.signal,
        onProgress: (step) => {
          if (step.status !== 'started') return;
          if (step.counts === 'post') context.publishing?.();
          this.options.onStep?.(step.label);
          context.progress(step.percent, step.label);
        },
      });
      const engagement = { likes: result.actions.like, follows: result.actions.follow, comments: result.actions.comment, posts: result.actions.post };
      const app = result.package && result.appVersion ? { package: result.package, version: result.appVersion } : undefined;
      const run = { recipe: result.recipe, ...(app ? { app } : {}), durationMs: Math.max(0, Math.round(performance.now() - started)) };
      if (result.status === 'completed') return { status: 'completed', engagement, run };
      // What the run left out and missed goes with the reason, so a person reading it sees the whole run.
      const aside = [
        result.skipped.length > 0 ? `left out: ${[...new Set(result.skipped)].join(', ')}` : '',
        result.misses > 0 ? `${result.misses} miss${result.misses === 1 ? '' : 'es'}` : '',
        result.package && result.appVersion ? `${result.package} ${result.appVersion}` : '',
      ].filter(Boolean);
      if (result.status === 'cancelled') return { status: 'failed', code: 'cancelled', message: 'Called off' };
      return {
        status: 'failed',
        code: result.failure?.code ?? 'unknown',
        message:
          `${result.failure ? `${result.failure.label}: ${result.failure.message}` : 'The recipe stopped'}${aside.length > 0 ? ` (${aside.join('; ')})` : ''}`.slice(
            0,
            2000,
          ),
        engagement,
        ...(result.failure?.retryable === false ? { retryable: false } : {}),
        recipe: result.recipe,
        ...(app ? { app } : {}),
        run,
        ...(result.failure?.trace ? { trace: result.failure.trace } : {}),
      };
    } finally {
      this.working = false;
      this.options.onStep?.('');
    }
  }

  /**
   * A dry run (the recipe studio): the recipe a person chose, on this phone, with the pre-flight the console asks for
   * (as this backend runs it for tasks: a simulated phone checks no account), a trace of every step with its
   * screenshot and tree, waiting at `beforeStep`, stopping before counted steps when `effects` is false. Its tasks
   * wait meanwhile (the agent takes none, and this backend says busy).
   */
  async dryRun(work: DryRunWork): Promise<DryRunOutcome> {
    this.working = true;
    const started = performance.now();
    // The steps traced (the pre-flight and a step stopped before count): what `dryrun.result` says it sent.
    let traced = 0;
    try {
      const checks = this.options.preflight ?? 'full';
      // The picked uploads come as a task's media do: fetched from the console, the only files the run may copy.
      let fetched: string[];
      try {
        fetched = await this.fetchAll(work.media);
      } catch (error) {
        if (!(error instanceof MediaError)) throw error;
        return {
          outcome: 'failed',
          failure: { code: 'network', message: error.message.slice(0, 2000) },
          steps: 0,
          durationMs: Math.max(0, Math.round(performance.now() - started)),
        };
      }
      const media = this.runMedia(fetched);
      const { media: _sent, ...params } = work.params;
      const result = await runRecipe(this.phone, work.recipe, fetched.length > 0 ? { ...params, media: fetched } : params, {
        ...this.options.recipeOptions,
        ...(media ? { media } : {}),
        ...(checks === 'off'
          ? {}
          : {
              preflight: {
                account: checks === 'full' ? work.preflight.account : null,
                allowUntestedApp: work.preflight.allowUntestedApp ?? false,
                verifiedApps: work.preflight.verifiedApps ?? [],
              },
            }),
        signal: work.signal,
        traceScreens: true,
        effects: work.effects,
        beforeStep: work.beforeStep,
        onTrace: (step) => {
          traced += 1;
          return work.onTrace(step);
        },
        // No separate failure screenshot: the failed step's trace has one.
        screenshotOnFailure: false,
        onProgress: (step) => {
          if (step.status === 'started') this.options.onStep?.(step.label);
        },
      });
      const packageName = result.package ?? null;
      const version = result.appVersion ?? (packageName ? await this.phone.appVersion(packageName).catch(() => null) : null);
      const locale = (await this.phone.locale?.().catch(() => null)) ?? null;
      return {
        outcome: result.status === 'completed' ? 'passed' : result.status === 'failed' ? 'failed' : 'stopped',
        ...(result.status === 'failed'
          ? {
              failure: {
                code: result.failure?.code ?? 'unknown',
                message: (result.failure ? `${result.failure.label}: ${result.failure.message}` : 'The recipe stopped').slice(0, 2000),
              },
            }
          : {}),
        actions: { ...result.actions },
        ...(packageName ? { app: { package: packageName, version, locale } } : {}),
        steps: traced,
        durationMs: Math.max(0, Math.round(performance.now() - started)),
      };
    } finally {
      this.working = false;
      this.options.onStep?.('');
    }
  }

  /**
   * The recipe for the work on this phone: among the workspace's recipes the task carries and the shipped ones, the
   * one written for the app version installed here (a workspace recipe wins over a shipped one).
   */
  private async recipeFor(work: TaskWork, routine: RoutineType, platform: RecipePlatform): Promise<Recipe | null> {
    const carried = work.kind === 'manual' ? [] : [...(work.recipes ?? []), ...(work.kind === 'routine.run' && work.recipe ? [work.recipe] : [])];
    const own = carried.flatMap((body) => {
      const parsed = parseRecipe(body);
      return parsed.ok ? [parsed.recipe] : [];
    });
    const any = resolveRecipe({ routine, platform }, own);
    if (!any) return null;
    const version = await this.phone.appVersion(any.recipe.app.package).catch(() => null);
    return (resolveRecipe({ routine, platform, appVersion: version }, own) ?? any).recipe;
  }

  /** Stored media brought to the host (at most ten files); none without a fetcher. */
  private async fetchAll(addresses: readonly string[]): Promise<string[]> {
    const source = this.options.media;
    if (!source) return [];
    return Promise.all(addresses.slice(0, 10).map((address) => source.fetch(address)));
  }

  /** The run's allow-list: the files fetched for it and the fetcher's folder. */
  private runMedia(files: readonly string[]): RunMedia | undefined {
    const source = this.options.media;
    return source ? { files: [...files], dir: source.dir } : undefined;
  }

  private async paramsOf(work: Exclude<TaskWork, { kind: 'manual' }>): Promise<RecipeParams> {
    if (work.kind === 'post.publish') {
      const media = await this.fetchAll(work.mediaUrls);
      return { caption: work.caption, hashtags: work.hashtags.slice(0, 30), media, count: 1 };
    }
    const settings = work.settings as { targetPosts?: unknown; actionCount?: unknown; engagementRate?: unknown; comments?: unknown };
    const count = typeof settings.targetPosts === 'number' ? settings.targetPosts : typeof settings.actionCount === 'number' ? settings.actionCount : undefined;
    const comments = Array.isArray(settings.comments)
      ? settings.comments.filter((item): item is string => typeof item === 'string' && item.length > 0).slice(0, 100)
      : undefined;
    return {
      keywords: work.keywords
        .filter(Boolean)
        .slice(0, 50)
        .map((keyword) => keyword.slice(0, 100)),
      accounts: work.referenceAccounts
        .map((account) => account.replace(/^@/, '').slice(0, 100))
        .filter(Boolean)
        .slice(0, 100),
      minutes: Math.min(600, work.durationMinutes),
      ...(count !== undefined ? { count: Math.min(1000, Math.max(0, Math.round(count))) } : {}),
      ...(typeof settings.engagementRate === 'number' ? { engagement: Math.min(100, Math.max(0, settings.engagementRate)) } : {}),
      ...(comments && comments.length > 0 ? { comments } : {}),
      allowances: { like: work.allowance.likes, follow: work.allowance.follows, comment: work.allowance.comments, post: work.allowance.posts },
    };
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    return this.phone.close();
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A finger moved from one point to another over `durationMs`, one touch move about every 16 ms (a display frame). */
async function drag(video: LiveVideoSession, from: { x: number; y: number }, to: { x: number; y: number }, durationMs: number): Promise<void> {
  const steps = Math.max(1, Math.round(durationMs / 16));
  video.touch('down', from.x, from.y);
  for (let step = 1; step <= steps; step++) {
    await pause(durationMs / steps);
    const t = step / steps;
    video.touch(step === steps ? 'up' : 'move', Math.round(from.x + (to.x - from.x) * t), Math.round(from.y + (to.y - from.y) * t));
  }
}

/** A person's input through scrcpy's control socket, in the stream's picture pixels (scrcpy scales them to the screen). */
async function videoInput(video: LiveVideoSession, input: LiveInput): Promise<void> {
  const screen = video.size;
  switch (input.kind) {
    case 'tap': {
      const at = toPixels(screen, input);
      video.touch('down', at.x, at.y);
      video.touch('up', at.x, at.y);
      return;
    }
    case 'long_press': {
      const at = toPixels(screen, input);
      video.touch('down', at.x, at.y);
      await pause(input.durationMs);
      video.touch('up', at.x, at.y);
      return;
    }
    case 'swipe':
      return drag(video, toPixels(screen, input.from), toPixels(screen, input.to), input.durationMs);
    case 'scroll':
      // As on the shell path: the finger moves against the wheel, content scrolls up as it moves up.
      return drag(video, toPixels(screen, input), toPixels(screen, { x: input.x, y: Math.max(0, Math.min(1, input.y - input.dy * 0.6)) }), 200);
    case 'text':
      video.type(input.text);
      return;
    case 'key':
      if (input.key === 'back') video.back();
      else video.key(androidKeyCodes[input.key]);
      return;
    case 'rotate':
      video.rotate();
      return;
  }
}
