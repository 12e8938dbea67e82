/**
 * A task's work on a phone the backend drives: the recipe for it (one the task carries, or a shipped one, for the
 * routine, the platform and the app version installed), its parameters from the work (a post's media fetched first),
 * the run with its progress and publishing step told to the agent, and how it ended in the words a person reads.
 */
import type { RecipeRunResult } from '../recipes/recipe.runner.ts';
import { CAROUSEL_UNSUPPORTED, runRecipe } from '../recipes/recipe.runner.ts';
import { resolveRecipe } from '../recipes/recipe.resolver.ts';
import { parseRecipe, type Recipe, type RecipeParams, type RecipePlatform, type RoutineType } from '../recipes/recipe.schema.ts';
import type { RunMedia } from '../recipes/recipe.media.ts';
import type { TaskWork } from '../work.ts';
import { MediaError } from './media.ts';
import type { WorkContext, WorkOutcome } from './phone-agent.backend.ts';
import type { BackendState } from './device-backend.state.ts';

type PhoneWork = Exclude<TaskWork, { kind: 'manual' }>;

/** Runs the task's recipe on the phone and says how it ended. */
export async function runTask(state: BackendState, work: TaskWork, context: WorkContext): Promise<WorkOutcome> {
  if (work.kind === 'manual') return { status: 'failed', code: 'unknown', message: 'This task is for a person, not for the phone agent', retryable: false };
  const routine: RoutineType = work.kind === 'post.publish' ? 'create_post' : (work.routineType as RoutineType);
  const platform = (work.kind === 'post.publish' ? work.account.platform : work.platform) as RecipePlatform;
  const recipe = await recipeFor(state, work, routine, platform);
  if (!recipe)
    return {
      status: 'failed',
      code: 'element_missing',
      message: `No recipe fits ${platform} ${routine.replace(/_/g, ' ')} on this phone's app version`,
      retryable: false,
    };
  // A carousel ends before its files are fetched: no phone can be handed several files at once (`runRecipe` says so too).
  if (work.kind === 'post.publish' && work.mediaUrls.length > 1)
    return { status: 'failed', code: 'unsupported', message: CAROUSEL_UNSUPPORTED, retryable: false };
  let params: RecipeParams;
  let media: RunMedia | undefined;
  try {
    params = await paramsOf(state, work);
    media = state.runMedia(params.media ?? []);
  } catch (error) {
    // The post's media could not be brought here: nothing was done on the phone.
    if (error instanceof MediaError) return { status: 'failed', code: 'network', message: error.message, retryable: error.retryable };
    throw error;
  }
  return state.busyWith(async () => {
    // Timed here, around the run, on this machine's clock: the health board's median duration.
    const started = performance.now();
    const result = await runRecipe(state.phone, recipe, params, {
      ...state.options.recipeOptions,
      ...state.preflight({
        account: work.account?.username ?? null,
        allowUntestedApp: work.allowUntestedApp ?? false,
        verifiedApps: work.verifiedApps ?? [],
      }),
      ...(media ? { media } : {}),
      signal: context.signal,
      // Each post the run hands to a VA goes to the server as the run reaches it.
      ...(context.handOver ? { onHandOver: context.handOver } : {}),
      onProgress: (step) => {
        if (step.status !== 'started') return;
        if (step.counts === 'post') context.publishing?.();
        state.options.onStep?.(step.label);
        context.progress(step.percent, step.label);
      },
    });
    return outcomeOf(result, Math.max(0, Math.round(performance.now() - started)));
  });
}

/** How the run ended, as the agent reports it: what it did, the app it drove, and a failure in a person's words. */
function outcomeOf(result: RecipeRunResult, durationMs: number): WorkOutcome {
  const engagement = { likes: result.actions.like, follows: result.actions.follow, comments: result.actions.comment, posts: result.actions.post };
  const app =
    result.package && result.appVersion
      ? { package: result.package, version: result.appVersion, ...(result.appLocale ? { locale: result.appLocale } : {}) }
      : undefined;
  const run = { recipe: result.recipe, ...(app ? { app } : {}), durationMs };
  if (result.status === 'completed') return { status: 'completed', engagement, run };
  // What the run left out and missed goes with the reason, so a person reading it sees the whole run.
  const aside = [
    result.skipped.length > 0 ? `left out: ${[...new Set(result.skipped)].join(', ')}` : '',
    result.misses > 0 ? `${result.misses} miss${result.misses === 1 ? '' : 'es'}` : '',
    result.package && result.appVersion ? `${result.package} ${result.appVersion}` : '',
  ].filter(Boolean);
  if (result.status === 'cancelled') return { status: 'failed', code: 'cancelled', message: 'Called off' };
  const said = result.failure ? `${result.failure.label}: ${result.failure.message}` : 'The recipe stopped';
  return {
    status: 'failed',
    code: result.failure?.code ?? 'unknown',
    message: `${said}${aside.length > 0 ? ` (${aside.join('; ')})` : ''}`.slice(0, 2000),
    engagement,
    ...(result.failure?.retryable === false ? { retryable: false } : {}),
    recipe: result.recipe,
    ...(app ? { app } : {}),
    run,
    ...(result.failure?.trace ? { trace: result.failure.trace } : {}),
  };
}

/**
 * The recipe for the work on this phone: among the workspace's recipes the task carries and the shipped ones, the
 * one written for the app version installed here (a workspace recipe wins over a shipped one).
 */
async function recipeFor(state: BackendState, work: PhoneWork, routine: RoutineType, platform: RecipePlatform): Promise<Recipe | null> {
  const carried = [...(work.recipes ?? []), ...(work.kind === 'routine.run' && work.recipe ? [work.recipe] : [])];
  const own = carried.flatMap((body) => {
    const parsed = parseRecipe(body);
    return parsed.ok ? [parsed.recipe] : [];
  });
  const any = resolveRecipe({ routine, platform }, own);
  if (!any) return null;
  const version = await state.phone.appVersion(any.recipe.app.package).catch(() => null);
  return (resolveRecipe({ routine, platform, appVersion: version }, own) ?? any).recipe;
}

/** The recipe's parameters from the work, within the limits a run takes; a post's media fetched to the host first. */
async function paramsOf(state: BackendState, work: PhoneWork): Promise<RecipeParams> {
  if (work.kind === 'post.publish') {
    const media = await state.fetchAll(work.mediaUrls);
    return { caption: work.caption, hashtags: work.hashtags.slice(0, 30), media, count: 1 };
  }
  const settings = work.settings as { targetPosts?: unknown; actionCount?: unknown; engagementRate?: unknown };
  const count = typeof settings.targetPosts === 'number' ? settings.targetPosts : typeof settings.actionCount === 'number' ? settings.actionCount : undefined;
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
    allowances: { like: work.allowance.likes, follow: work.allowance.follows, comment: work.allowance.comments, post: work.allowance.posts },
  };
}
