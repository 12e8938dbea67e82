/**
 * A dry run on a phone the backend drives (the recipe studio): the recipe a person chose, with the pre-flight the
 * console asks for (as this backend runs it for tasks: a simulated phone checks no account), the uploads they picked
 * fetched as a task's media are, a trace of every step with its screenshot and tree, waiting at `beforeStep`, and
 * stopping before counted steps when `effects` is false. Its tasks wait meanwhile (the agent takes none, and the
 * backend says busy).
 */
import { runRecipe, type RecipeRunResult } from '../recipes/recipe.runner.ts';
import { MediaError } from './media.ts';
import type { DryRunOutcome, DryRunWork } from './phone-agent.backend.ts';
import type { BackendState } from './device-backend.state.ts';

/** Runs the dry run on the phone and says how it ended, with the steps it traced. */
export function runDryRun(state: BackendState, work: DryRunWork): Promise<DryRunOutcome> {
  return state.busyWith(async () => {
    const started = performance.now();
    const elapsed = () => Math.max(0, Math.round(performance.now() - started));
    // The steps traced (the pre-flight and a step stopped before count): what `dryrun.result` says it sent.
    let traced = 0;
    // The picked uploads come as a task's media do: fetched from the console, the only files the run may copy.
    let fetched: string[];
    try {
      fetched = await state.fetchAll(work.media);
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      return { outcome: 'failed', failure: { code: 'network', message: error.message.slice(0, 2000) }, steps: 0, durationMs: elapsed() };
    }
    const media = state.runMedia(fetched);
    const { media: _sent, ...params } = work.params;
    const result = await runRecipe(state.phone, work.recipe, fetched.length > 0 ? { ...params, media: fetched } : params, {
      ...state.options.recipeOptions,
      ...(media ? { media } : {}),
      ...state.preflight({
        account: work.preflight.account,
        allowUntestedApp: work.preflight.allowUntestedApp ?? false,
        verifiedApps: work.preflight.verifiedApps ?? [],
        // A dry run is how a workspace verifies a recipe on another language: the app's language is tried, not refused.
        tryUntestedLanguage: true,
        // And how it verifies a template copy held back by claims no public source shows, on a version of its range.
        tryUnverifiedClaims: true,
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
        if (step.status === 'started') state.options.onStep?.(step.label);
      },
    });
    const app = await appOf(state, result);
    return { ...verdictOf(result), actions: { ...result.actions }, ...(app ? { app } : {}), steps: traced, durationMs: elapsed() };
  });
}

/** Passed, failed (with the failed step in a person's words) or stopped. */
function verdictOf(result: RecipeRunResult): Pick<DryRunOutcome, 'outcome' | 'failure'> {
  if (result.status === 'completed') return { outcome: 'passed' };
  if (result.status !== 'failed') return { outcome: 'stopped' };
  return {
    outcome: 'failed',
    failure: {
      code: result.failure?.code ?? 'unknown',
      message: (result.failure ? `${result.failure.label}: ${result.failure.message}` : 'The recipe stopped').slice(0, 2000),
    },
  };
}

/** The app the run drove, its version and the phone's language, for the studio's coverage. */
async function appOf(state: BackendState, result: RecipeRunResult): Promise<DryRunOutcome['app'] | undefined> {
  const packageName = result.package ?? null;
  const version = result.appVersion ?? (packageName ? await state.phone.appVersion(packageName).catch(() => null) : null);
  // The language the app showed, as the pre-flight reads it (the app's own on Android 13+, else the phone's): the
  // verification a passing dry run records covers that language.
  const locale =
    result.appLocale ??
    (packageName ? await state.phone.appLocale?.(packageName).catch(() => null) : null) ??
    (await state.phone.locale?.().catch(() => null)) ??
    null;
  return packageName ? { package: packageName, version, locale } : undefined;
}
