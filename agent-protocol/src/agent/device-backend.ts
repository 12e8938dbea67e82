/**
 * The agent's backend for a phone it drives through `PhoneDevice`: a real Android phone over ADB, or the simulated
 * phone UI. Work runs as a recipe on the phone's UI (the one the task carries, or the shipped one for the routine,
 * platform and installed app version); heartbeats read the phone's battery and screen; screenshots are the phone's
 * own, scaled to 720 px and JPEG-encoded.
 *
 * This file composes the backend and owns what the phone is and says (its facts, its status, its screen) and which
 * phone object it drives (a phone that comes back on a new connection is bound again, `rebind`); the work
 * lives in rooms: `device-backend.tasks.ts` (task runs), `device-backend.dryrun.ts` (dry runs) and
 * `device-backend.control.ts` (a person's input, Inspect, Record), sharing `device-backend.state.ts`.
 */
import type { LiveInput } from '../live.ts';
import type { InstalledApp, ServerMessage } from '../messages.ts';
import { withTimeout, type LiveFrameSource, type LiveVideoSession, type PhoneDevice, type PhoneInfo, type UiReaderInfo } from '../phone/phone.device.ts';
import { readPhoneStatus } from '../phone/phone.status.ts';
import type { RecordedTarget, UiCapture } from '../recipes/recipe.inspect.ts';
import { recipeApps } from '../recipes/recipe.resolver.ts';
import type { TaskWork } from '../work.ts';
import { PhoneControl } from './device-backend.control.ts';
import { MAX_TRACE_FRAME_BYTES } from '../dryrun.ts';
import { actOnPhone } from '../group/group.act.ts';
import type { GroupActMessage, GroupActResult } from '../group/group.messages.ts';
import { runDryRun } from './device-backend.dryrun.ts';
import { BackendState, type DeviceBackendOptions } from './device-backend.state.ts';
import { runTask } from './device-backend.tasks.ts';
import { screenshotSource } from './live-stream.ts';
import type { DryRunOutcome, DryRunWork, PhoneBackend, WorkContext, WorkOutcome } from './phone-agent.backend.ts';

export type { DeviceBackendOptions, MediaSource } from './device-backend.state.ts';

interface Cached {
  battery: number;
  charging: boolean;
  screenOn: boolean;
  foregroundApp: string | undefined;
  answered: boolean;
}

export class DeviceBackend implements PhoneBackend {
  private readonly shared: BackendState;
  private readonly control: PhoneControl;
  private cached: Cached = { battery: 100, charging: false, screenOn: true, foregroundApp: undefined, answered: true };
  private readonly timer: NodeJS.Timeout;
  private paused = false;
  /** The device's name in the console, told again to a phone object bound later. */
  private name: string | undefined;
  /** The host holds every phone's work around an adb server restart (`host.fleet.ts`): reported idle, given none. */
  holding = false;

  constructor(
    phone: PhoneDevice,
    private readonly options: DeviceBackendOptions,
  ) {
    this.shared = new BackendState(phone, options);
    this.control = new PhoneControl(this.shared);
    // A phone that can never start H.264 here (`--no-h264`) is not offered it: the hello then leaves `h264` out.
    if (phone.openVideo && phone.videoAvailable !== false) this.openVideo = (kind) => this.control.startVideo(kind);
    this.timer = setInterval(() => void this.read(), options.readEveryMs ?? 5000);
    this.timer.unref();
  }

  /** The phone object the backend drives now. */
  get phone(): PhoneDevice {
    return this.shared.phone;
  }

  /**
   * The phone came back on a new connection (it went offline and returned, or adb opened a new transport to it): from
   * now on every room drives `phone`. The H.264 sessions of the old object end (the agent starts its streams again),
   * what the phone is is read again, and the old object is closed, its shells and UI server with it. A run still
   * going on the old object fails as the phone left it.
   */
  async rebind(phone: PhoneDevice, info?: PhoneInfo): Promise<void> {
    const old = this.shared.phone;
    if (old === phone) return;
    this.shared.phone = phone;
    if (this.name !== undefined) phone.named?.(this.name);
    this.control.endVideos('The phone came back on a new connection.');
    this.shared.info = info ?? (await phone.info().catch(() => undefined));
    await Promise.all([old.close().catch(() => undefined), this.read()]);
  }

  /** Reads what the phone is before it says hello. */
  async start(): Promise<this> {
    this.shared.info = await this.phone.info();
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
    const info = this.shared.info;
    return {
      model: info?.model ?? 'Android phone',
      androidVersion: info?.androidVersion ?? 'unknown',
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
    const status = this.shared.working ? ('busy' as const) : this.paused || this.holding || !this.cached.screenOn ? ('idle' as const) : ('online' as const);
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
    this.name = name;
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

  /** What the recipe studio's Inspect shows: the screen's UI tree, its frame, the app in front. */
  capture(): Promise<UiCapture> {
    return this.control.capture();
  }

  /** Record: the element under a point (a share of the screen), read now, before the person's input goes in. */
  recordTarget(point: { x: number; y: number }): Promise<RecordedTarget> {
    return this.control.recordTarget(point);
  }

  /** A person's input from the console, at the point they touched scaled to this phone's screen as it is turned now. */
  input(input: LiveInput): Promise<void> {
    return this.control.input(input);
  }

  /**
   * Group control on this phone: the screen read once, matched, resolved and checked against the rules, then the
   * input through the same path as a person's live input (scrcpy's control socket while a session runs).
   */
  groupAct(message: GroupActMessage): Promise<GroupActResult> {
    return actOnPhone(
      {
        dumpUi: () => this.phone.dumpUi(),
        input: (input) => (input.kind === 'text' ? this.control.typeAndClear(input.text) : this.control.input(input)),
        // A frame of a phone that missed, for the grid: a small screenshot, left out when it is too large to send.
        frame: async () => {
          const shot = await this.phone.screenshot({ maxSide: 480, quality: 60 });
          if (shot.data.byteLength > MAX_TRACE_FRAME_BYTES) return undefined;
          return { mime: shot.mime, data: new Uint8Array(shot.data), width: shot.width, height: shot.height };
        },
        startIntent: (action, data) => {
          if (!this.phone.startIntent) return Promise.reject(new Error('This phone cannot open Settings pages.'));
          return this.phone.startIntent(action, data);
        },
      },
      message,
    );
  }

  run(work: TaskWork, context: WorkContext): Promise<WorkOutcome> {
    return runTask(this.shared, work, context);
  }

  /** A dry run of the recipe a person chose in the studio (`device-backend.dryrun.ts`). */
  dryRun(work: DryRunWork): Promise<DryRunOutcome> {
    return runDryRun(this.shared, work);
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    return this.phone.close();
  }
}
