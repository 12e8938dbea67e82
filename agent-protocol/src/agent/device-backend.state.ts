/**
 * What the device backend's rooms share: the phone, the backend's options, what the phone said it is, whether a run
 * holds it, and what every run is given the same way (the files fetched for it, the pre-flight checks the backend is
 * set to, the step shown on a simulated phone's screen). Task runs (`device-backend.tasks.ts`), dry runs
 * (`device-backend.dryrun.ts`) and a person's control (`device-backend.control.ts`) read them from here.
 */
import type { PhoneDevice, PhoneInfo } from '../phone/phone.device.ts';
import type { RunMedia } from '../recipes/recipe.media.ts';
import type { RecipePreflight, RecipeRunOptions } from '../recipes/recipe.runner.ts';

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

export class BackendState {
  /** What the phone said it is (model, Android version, screen), once read. */
  info: PhoneInfo | undefined;
  /** A task or a dry run runs on the phone now: the backend says busy. */
  working = false;

  constructor(
    /** The phone object every room drives now: a new one when the phone came back on a new connection. */
    public phone: PhoneDevice,
    readonly options: DeviceBackendOptions,
  ) {}

  /** Runs `run` with the phone said busy; the step a simulated phone shows is cleared after. */
  async busyWith<T>(run: () => Promise<T>): Promise<T> {
    this.working = true;
    try {
      return await run();
    } finally {
      this.working = false;
      this.options.onStep?.('');
    }
  }

  /** Stored media brought to the host (at most ten files); none without a fetcher. */
  async fetchAll(addresses: readonly string[]): Promise<string[]> {
    const source = this.options.media;
    if (!source) return [];
    return Promise.all(addresses.slice(0, 10).map((address) => source.fetch(address)));
  }

  /** The run's allow-list: the files fetched for it and the fetcher's folder. */
  runMedia(files: readonly string[]): RunMedia | undefined {
    const source = this.options.media;
    return source ? { files: [...files], dir: source.dir } : undefined;
  }

  /**
   * The pre-flight a run is given by the backend's setting: none when `off`; the account checked only when `full`
   * (a phone of the demo farm holds none of its own).
   */
  preflight(
    check: Required<Pick<RecipePreflight, 'account' | 'allowUntestedApp' | 'verifiedApps'>> &
      Pick<RecipePreflight, 'tryUntestedLanguage' | 'tryUnverifiedClaims'>,
  ): Pick<RecipeRunOptions, 'preflight'> {
    const checks = this.options.preflight ?? 'full';
    if (checks === 'off') return {};
    return { preflight: { ...check, account: checks === 'full' ? check.account : null } };
  }
}
