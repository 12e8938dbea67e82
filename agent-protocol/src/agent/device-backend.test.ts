import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../recipes/recipe.pacing.ts';
import { SHIPPED_RECIPES_DIR } from '../recipes/recipe.resolver.ts';
import { SimulatedPhoneUi } from '../simphone/simphone.device.ts';
import type { HandOver } from '../recipes/recipe.outcome.ts';
import type { PublishPostWork, RoutineRunWork } from '../work.ts';
import { DeviceBackend } from './device-backend.ts';
import { MediaError, MediaFetcher } from './media.ts';
import { parseRecipe } from '../recipes/recipe.schema.ts';

const shippedPost = () =>
  JSON.parse(readFileSync(`${SHIPPED_RECIPES_DIR}instagram/post.json`, 'utf8')) as {
    version: number;
    app: Record<string, string>;
    steps: { label?: string }[];
  };

function work(extra: Partial<PublishPostWork> = {}): PublishPostWork {
  return {
    kind: 'post.publish',
    postId: 'p1',
    account: { id: 'a1', username: 'glow.daily', platform: 'instagram' },
    caption: 'Morning routine',
    hashtags: ['#glow'],
    mediaUrls: ['/api/objects/m1'],
    // The shipped post templates rest on what no public source shows (the old banner's discard button): the workspace
    // lets untested templates run, as it must for them to run at all.
    allowUntestedApp: true,
    ...extra,
  };
}

/**
 * Runs the work on a simulated phone (Instagram 447.0.0.55.81 installed, inside the shipped recipe's tested range)
 * and answers the outcome and the steps it showed. The simulated phone holds no account of its own.
 */
/** The agent's media folder with one fetched picture in it, as a MediaFetcher would leave it. */
function mediaFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'farm-backend-media-'));
  writeFileSync(join(dir, 'pier.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
  return { dir, picture: join(dir, 'pier.jpg') };
}

async function run(
  payload: PublishPostWork,
  fetchMedia?: (url: string) => Promise<string>,
  versions: Record<string, string> = { 'com.instagram.android': '447.0.0.55.81' },
) {
  const phone = new SimulatedPhoneUi({ versions });
  const steps: string[] = [];
  const folder = mediaFolder();
  const backend = await new DeviceBackend(phone, {
    agentVersion: 'test',
    preflight: 'no-account',
    media: { dir: folder.dir, fetch: fetchMedia ?? (async () => folder.picture) },
    recipeOptions: { clock: manualClock(Date.now()), pollMs: 1, busyPauseMs: 1 },
  }).start();
  const outcome = await backend.run(payload, {
    taskId: 't1',
    title: 'Publish',
    signal: new AbortController().signal,
    progress: (_percent, step) => step && steps.push(step),
  });
  await backend.close();
  return { outcome, steps, phone };
}

describe('the device backend', () => {
  it('says which UI reader reads the phone, for the hello', async () => {
    const backend = await new DeviceBackend(new SimulatedPhoneUi({}), { agentVersion: 'test' }).start();
    expect(await backend.uiReader()).toEqual({ kind: 'sim', version: null, seesToasts: true });
    await backend.close();
  });

  it('says the installed versions of the apps recipes drive, null for one not installed, for the hello', async () => {
    const backend = await new DeviceBackend(new SimulatedPhoneUi({}), { agentVersion: 'test' }).start();
    expect(await backend.installedApps()).toEqual([
      { package: 'com.instagram.android', version: '447.0.0.55.81' },
      { package: 'com.ss.android.ugc.trill', version: null },
      { package: 'com.zhiliaoapp.musically', version: '43.1.4' },
    ]);
    await backend.close();
  });

  it('runs the workspace recipe the task carries when it claims the app version installed', async () => {
    const own = shippedPost();
    own.version = 5;
    own.steps[0]!.label = 'Copy the media (our checked flow)';
    const { outcome, steps, phone } = await run(work({ recipes: [own] }));
    expect(outcome).toMatchObject({ status: 'completed' });
    // The run it was goes with the result, for the health board: the recipe chosen, the app read, the time taken.
    expect(outcome.run).toMatchObject({ recipe: { id: 'instagram.post', version: 5 }, app: { package: 'com.instagram.android' } });
    expect(outcome.run?.durationMs).toBeGreaterThanOrEqual(0);
    // The pre-flight reports first, then the recipe's own first step.
    expect(steps.slice(0, 2)).toEqual(['Check the phone and the app before the run', 'Copy the media (our checked flow)']);
    expect(phone.published).toEqual([{ app: 'instagram', caption: 'Morning routine #glow', media: 'pier.jpg' }]);
  });

  it('hands each post of an engage_comments routine to the agent for a VA, and types no comment', { timeout: 60_000 }, async () => {
    const phone = new SimulatedPhoneUi({});
    const backend = await new DeviceBackend(phone, {
      agentVersion: 'test',
      preflight: 'no-account',
      recipeOptions: { clock: manualClock(Date.now()), pollMs: 1, busyPauseMs: 1, random: () => 0.1 },
    }).start();
    const handed: HandOver[] = [];
    const routine: RoutineRunWork = {
      kind: 'routine.run',
      routineType: 'engage_comments',
      routineName: 'Morning comments',
      platform: 'instagram',
      account: { id: 'a1', username: 'glow.daily', platform: 'instagram' },
      durationMinutes: 10,
      intensity: 5,
      actions: ['like', 'comment'],
      keywords: ['sunset beach'],
      referenceAccounts: [],
      // Comment texts a work may still carry are never used: a recipe types none.
      settings: { targetPosts: 2, engagementRate: 100, comments: ['Love this!'] },
      allowance: { likes: 10, follows: 0, comments: 2, posts: 0 },
      campaign: null,
      recipe: null,
    };
    const outcome = await backend.run(routine, {
      taskId: 't1',
      title: 'Morning comments',
      signal: new AbortController().signal,
      progress: () => undefined,
      handOver: async (item) => void handed.push(item),
    });
    await backend.close();
    expect(outcome).toMatchObject({ status: 'completed', engagement: { comments: 0 } });
    expect(handed.map((item) => item.index)).toEqual([0, 1]);
    expect(handed.every((item) => item.kind === 'comment' && /^[a-z0-9._]+$/.test(item.author) && item.frame !== undefined)).toBe(true);
    expect(phone.typed).not.toContain('Love this!');
    expect(phone.comments).toEqual([]);
  });

  it('keeps to the shipped recipe when the workspace’s is for other app versions', async () => {
    const own = shippedPost();
    own.version = 6;
    own.app = { ...own.app, minVersion: '500' };
    own.steps[0]!.label = 'Copy the media (for Instagram 500)';
    const { outcome, steps } = await run(work({ recipes: [own] }));
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(steps[1]).toBe(shippedPost().steps[0]!.label);
  });

  it('fails a carousel unsupported before its files are fetched, touching nothing on the phone, never to be retried', async () => {
    const fetched: string[] = [];
    const { outcome, phone } = await run(work({ mediaUrls: ['/api/objects/m1', '/api/objects/m2'] }), async (url) => {
      fetched.push(url);
      throw new Error('fetched');
    });
    expect(outcome).toEqual({
      status: 'failed',
      code: 'unsupported',
      message: "Carousel posts are not supported on phones: Android's am cannot send several files to the app.",
      retryable: false,
    });
    expect(fetched).toEqual([]);
    expect(phone.taps).toEqual([]);
    expect(phone.shares).toEqual([]);
  });

  it('fails the attempt, touching nothing on the phone, when the media cannot be brought', async () => {
    const gone = async () => {
      throw new MediaError('The post’s media is gone (/api/agent/media/m1 answered 404)', false);
    };
    const { outcome, phone } = await run(work(), gone);
    expect(outcome).toEqual({ status: 'failed', code: 'network', message: 'The post’s media is gone (/api/agent/media/m1 answered 404)', retryable: false });
    expect(phone.taps).toEqual([]);
  });

  it('fetches a dry run’s picked uploads from the console and copies those to the phone, never a path it was sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'farm-dry-media-'));
    const asked: string[] = [];
    const fetcher = new MediaFetcher({
      server: 'https://farm.example',
      credential: { hostToken: 'host-token', serial: 'SIM-1' },
      dir,
      fetch: async (input) => {
        asked.push(String(input));
        return new Response(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), { status: 200, headers: { 'content-type': 'image/jpeg' } });
      },
    });
    const phone = new SimulatedPhoneUi({ versions: { 'com.instagram.android': '447.0.0.55.81' } });
    const backend = await new DeviceBackend(phone, {
      agentVersion: 'test',
      preflight: 'no-account',
      media: fetcher,
      recipeOptions: { clock: manualClock(Date.now()), pollMs: 1, busyPauseMs: 1 },
    }).start();
    const recipe = parseRecipe(shippedPost());
    if (!recipe.ok) throw new Error(recipe.errors.join('; '));
    const id = '4f7d6c1e-2b1a-4c3d-9e8f-0a1b2c3d4e5f';
    const outcome = await backend.dryRun({
      recipe: recipe.recipe,
      // What a console not yet upgraded (or a forged message) may send: a host path. It is never copied.
      params: { caption: 'Dry run', hashtags: ['#dry'], media: ['/etc/passwd'] },
      media: [`/api/objects/${id}`],
      effects: true,
      preflight: { account: null, allowUntestedApp: true },
      signal: new AbortController().signal,
      beforeStep: async () => undefined,
      onTrace: async () => undefined,
    });
    await backend.close();
    expect(outcome, JSON.stringify(outcome.failure)).toMatchObject({ outcome: 'passed' });
    expect(asked).toEqual([`https://farm.example/api/agent/media/${id}`]);
    expect(phone.published).toHaveLength(1);
    expect(phone.published[0]!.media).toMatch(/^[0-9a-f]{32}\.jpg$/);
    expect(phone.events.some((event) => event.includes('passwd'))).toBe(false);
  }, 30_000);

  it('fails a dry run whose picked upload cannot be fetched, touching nothing on the phone', async () => {
    const phone = new SimulatedPhoneUi({});
    const backend = await new DeviceBackend(phone, {
      agentVersion: 'test',
      preflight: 'no-account',
      media: {
        dir: mkdtempSync(join(tmpdir(), 'farm-dry-gone-')),
        fetch: async () => {
          throw new MediaError('The post’s media is gone (/api/agent/media/m1 answered 404)', false);
        },
      },
    }).start();
    const recipe = parseRecipe(shippedPost());
    if (!recipe.ok) throw new Error(recipe.errors.join('; '));
    const outcome = await backend.dryRun({
      recipe: recipe.recipe,
      params: {},
      media: ['/api/objects/m1'],
      effects: false,
      preflight: { account: null },
      signal: new AbortController().signal,
      beforeStep: async () => undefined,
      onTrace: async () => undefined,
    });
    await backend.close();
    expect(outcome).toMatchObject({
      outcome: 'failed',
      failure: { code: 'network', message: 'The post’s media is gone (/api/agent/media/m1 answered 404)' },
      steps: 0,
    });
    expect(phone.taps).toEqual([]);
  });
});
