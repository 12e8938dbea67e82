/**
 * The pre-flight: what a run checks before its first step so it starts from a known place (the screen on and
 * unlocked, the app installed at a covered version, battery, network, the UI language, the app launched to its home,
 * the signed-in account the work's). These checks change with phones and apps, not with what steps do, so they sit
 * in their own room; the start's own steps (back, account, switch) still run through the step actions.
 */
import { coversApp, isTestedVersion, recipeLanguage, recipePackages } from './recipe.coverage.ts';
import type { Locator } from './recipe.locate.ts';
import { Miss, StepFailure, type RecipePreflight, type Scope, type StepProgress } from './recipe.outcome.ts';
import type { Recipe, Step } from './recipe.schema.ts';
import type { RunState } from './recipe.state.ts';
import type { TraceRecorder } from './recipe.trace.ts';

export const PREFLIGHT_LABEL = 'Check the phone and the app before the run';

/** Runs one of the start's own steps (at its path, with its scope) as any step of the recipe runs. */
export type RunStep = (step: Step, path: string, scope: Scope) => Promise<void>;

/** What the recipe says of its start: its home screen, the ways back to it, and where the signed-in account shows. */
type RecipeStart = NonNullable<Recipe['start']>;

export class Preflight {
  constructor(
    private readonly run: RunState,
    private readonly trace: TraceRecorder,
    private readonly locator: Locator,
    private readonly runStep: RunStep,
  ) {}

  async check(checks: RecipePreflight, scope: Scope): Promise<void> {
    this.report('started', 'Screen, app, version, battery, network, language, account');
    this.run.inPreflight = true;
    try {
      await this.trace.traceStep('start', 'preflight', PREFLIGHT_LABEL, () => this.checks(checks, scope));
    } finally {
      this.run.inPreflight = false;
    }
  }

  private report(status: StepProgress['status'], detail: string): void {
    // Before the first step, whatever a start's own steps do: progress stays at 0.
    this.trace.progress('start', 'preflight', PREFLIGHT_LABEL, status, { percent: 0, detail });
  }

  private async checks(checks: RecipePreflight, scope: Scope): Promise<void> {
    const run = this.run;
    await this.unlocked();
    await this.appCovered(checks);
    const battery = await run.phone.battery();
    const minBattery = checks.minBattery ?? 10;
    if (battery.level < minBattery && !battery.charging) throw new StepFailure('unknown', `The battery is at ${battery.level}% and not charging.`);
    const network = await run.phone.network();
    if (!network.connected) throw new StepFailure('network', 'The phone has no network connection.');

    // A known start: force-stopped and launched to its home, drafts discarded on the way.
    await run.phone.forceStop(run.packageName);
    await run.phone.launchApp(run.packageName);
    const start = run.recipe.start;
    if (start) {
      await this.home(start, scope);
      const wanted = checks.account?.replace(/^@/, '').trim().toLowerCase();
      if (wanted && start.account) await this.account(start.account, wanted, scope);
    }
    this.report('done', `${run.packageName} ${run.appVersion}${checks.account ? `, @${checks.account.replace(/^@/, '')}` : ''}`);
  }

  /** The screen on and unlocked: a swipe opens a plain keyguard; a PIN, pattern or password needs a person. */
  private async unlocked(): Promise<void> {
    const { phone, clock } = this.run;
    const screen = await phone.screen();
    if (!screen.on) await phone.wake();
    let lock = await phone.lockState();
    if (lock === 'locked') {
      const { width, height } = this.run.screenSize();
      await phone.swipe({ x: Math.round(width / 2), y: Math.round(height * 0.85) }, { x: Math.round(width / 2), y: Math.round(height * 0.3) }, 300);
      await clock.sleep(800);
      lock = await phone.lockState();
    }
    if (lock === 'locked_secure')
      throw new StepFailure('device_locked', 'The phone is locked with a PIN, pattern or password; a person must unlock it (or turn the lock off).');
    if (lock === 'locked') throw new StepFailure('device_locked', 'The phone stays on its lock screen after a swipe.');
  }

  /** Installed in one of its packages, and covered by the recipe or the workspace's verifications. */
  private async appCovered(checks: RecipePreflight): Promise<void> {
    const run = this.run;
    const packages = recipePackages(run.recipe);
    let found: { name: string; version: string } | null = null;
    for (const name of packages) {
      const version = await run.phone.appVersion(name);
      if (version) {
        found = { name, version };
        break;
      }
    }
    if (!found) throw new StepFailure('unknown', `${packages.join(' or ')} is not installed on this phone.`);
    run.packageName = found.name;
    run.appVersion = found.version;
    // Covered: the package, the UI language the recipe's words are written for (where the phone can say it), and a
    // version tested or verified by the workspace (or, where the work allows it, a template on any version). A phone
    // in a language the recipe does not read ends `language_untested` here, before it acts: its word guards would
    // read nothing there.
    const uiLocale = recipeLanguage(run.recipe) ? await this.appLanguage(found.name) : null;
    if (uiLocale) run.appLocale = uiLocale;
    const options = { verifications: checks.verifiedApps ?? [], allowUntested: checks.allowUntestedApp ?? false };
    let coverage = coversApp(run.recipe, { package: found.name, version: found.version, locale: uiLocale }, options);
    if (!coverage.covered && coverage.problem === 'locale' && checks.tryUntestedLanguage) {
      // A dry run tries the language; the version is still checked.
      coverage = coversApp(run.recipe, { package: found.name, version: found.version, locale: null }, options);
      if (coverage.covered) this.report('done', `Trying ${run.recipe.name} on ${uiLocale}, a language it is not verified in.`);
    }
    if (!coverage.covered && coverage.problem === 'version' && checks.tryUnverifiedClaims && isTestedVersion(run.recipe, found.name, found.version)) {
      // Inside its tested range and still not covered: held back only by claims no public source shows. A dry run
      // tries it, so that a person watching can verify it on this version.
      this.report('done', `Trying ${run.recipe.name}, which relies on what no public source shows, on ${found.name} ${found.version}: watch each step.`);
      coverage = { covered: true, by: 'tested' };
    }
    if (!coverage.covered) {
      if (coverage.problem === 'locale') {
        const written = recipeLanguage(run.recipe);
        throw new StepFailure(
          'language_untested',
          `${found.name} shows ${uiLocale} on this phone; ${run.recipe.name} is written for ${written}. Set the phone's language (or the app's, Android 13+) to ${written}, or verify the recipe on ${uiLocale} with a dry run.`,
        );
      }
      throw new StepFailure(coverage.problem === 'version' ? 'app_version_untested' : 'unknown', coverage.reason);
    }
    if (coverage.by === 'untested_allowed') this.report('done', `Running on untested ${found.name} ${found.version}, as the workspace allows.`);
  }

  /**
   * The language the app shows: its own on Android 13+ when someone picked one for it (that overrides the phone's),
   * else the phone's (`persist.sys.locale`, then `ro.product.locale`); null when the phone cannot say.
   */
  private async appLanguage(packageName: string): Promise<string | null> {
    const { phone } = this.run;
    const own = phone.appLocale ? await phone.appLocale(packageName).catch(() => null) : null;
    if (own) return own;
    return phone.locale ? await phone.locale().catch(() => null) : null;
  }

  /** The app at its home screen after launch, through the recipe's way back when it opens elsewhere. */
  private async home(start: RecipeStart, scope: Scope): Promise<void> {
    const run = this.run;
    const locator = this.locator;
    // Only with no home screen (no feed, no captions) may words anywhere tell a login or suspension page.
    const insteadOfHome = () => {
      const screen = run.lastScreen;
      if (!screen || !run.readLast) return;
      if (start.signedOut && locator.findTarget(screen, start.signedOut, scope))
        throw new StepFailure('login_required', `${run.packageName} is signed out on this phone; a person must log in.`);
      for (const item of start.instead ?? []) if (locator.findTarget(screen, item.when, scope)) throw new StepFailure(item.reason, item.message);
    };
    let home = await locator.locate(start.home, 20_000, scope);
    if (!home.node) {
      insteadOfHome();
      if (start.back) {
        for (const [index, step] of start.back.entries()) await this.runStep(step, `start.back.${index}`, scope);
        home = await locator.locate(start.home, 10_000, scope);
      }
    }
    if (!home.node) {
      insteadOfHome();
      throw await locator.missing(start.home, undefined, 'The app did not come to its home screen after launch.');
    }
  }

  /** The signed-in account is the work's: read, switched to when the app offers it, then the account screen closed. */
  private async account(account: NonNullable<RecipeStart['account']>, wanted: string, scope: Scope): Promise<void> {
    const inner = new Map(scope).set('account', wanted);
    const readAccount = async () => {
      for (const [index, step] of account.open.entries()) await this.runStep(step, `start.account.${index}`, inner);
      const read = await this.locator.locate(account.read, 10_000, inner);
      return read.node ? read.node.text.replace(/^@/, '').trim().toLowerCase() : null;
    };
    let signedIn = await readAccount();
    if (signedIn !== null && signedIn !== wanted && account.switch) {
      const other = signedIn;
      try {
        for (const [index, step] of account.switch.entries()) await this.runStep(step, `start.switch.${index}`, inner);
      } catch (error) {
        // The phone does not hold the work's account (nothing to switch to): the other one stays signed in.
        if (error instanceof Miss || (error instanceof StepFailure && error.code === 'element_missing'))
          throw new StepFailure('wrong_account', `@${other} is signed in on this phone, not @${wanted}, and the app offers no switch to it.`);
        throw error;
      }
      signedIn = await readAccount();
    }
    if (signedIn === null) throw new StepFailure('element_missing', 'The signed-in account could not be read from the app.');
    if (signedIn !== wanted) throw new StepFailure('wrong_account', `@${signedIn} is signed in on this phone, not @${wanted}.`);
    for (const [index, step] of (account.close ?? []).entries()) await this.runStep(step, `start.close.${index}`, inner);
  }
}
