/**
 * A phone for the case tests, reached the way a farm host reaches a real one: the host's `AdbHost` and `AdbPhone`
 * talk adb's wire protocol to the fake adb server, whose `FakeAndroid` answers shell commands. Its screen is the
 * simulated phone's (`src/simphone/`), which serves the UI trees of real phones (`test/fixtures/real/`): every
 * `input tap`, `input text`, key, swipe, launch, link, force-stop and share the host sends moves it, and every
 * `uiautomator dump` reads it. So a recipe run here selects, taps and types on what real phones show.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterEach } from 'vitest';
import { AdbHost, type AdbHostEvent } from '../../src/adb/adb.host.ts';
import type { AdbPhone } from '../../src/adb/adb.phone.ts';
import { manualClock, seededRandom } from '../../src/recipes/recipe.pacing.ts';
import { resolveRecipe } from '../../src/recipes/recipe.resolver.ts';
import { runRecipe, type RecipeRunResult, type RecipeRunOptions, type StepProgress } from '../../src/recipes/recipe.runner.ts';
import type { RecipeParams, RecipePlatform, RoutineType } from '../../src/recipes/recipe.schema.ts';
import { SimulatedPhoneUi, type SimulatedPhoneUiOptions } from '../../src/simphone/simphone.device.ts';
import type { SimulatedFixture } from '../../src/simphone/simphone.fixtures.list.ts';
import { FakeAdbServer } from '../fake-adb.server.ts';
import { FakeAndroid, fixture } from '../fake-android.ts';
import type { FakeUiServerBehaviour } from '../fake-uiautomator2.ts';

/** Android's key codes as `input keyevent` sends them, to the simulator's keys. */
const KEYS: Record<string, 'back' | 'home' | 'enter' | 'delete' | 'power' | 'wakeup'> = {
  '3': 'home',
  '4': 'back',
  '26': 'power',
  '66': 'enter',
  '67': 'delete',
  '224': 'wakeup',
};

export interface CasePhone {
  /** What the phone shows and did: taps with what they hit, typed text, likes, follows, comments, posts. */
  sim: SimulatedPhoneUi;
  /** The phone as adb sees it: every input command and shell line, launches, shares, force-stops. */
  android: FakeAndroid;
  /** The farm host's phone. */
  phone: AdbPhone;
  stop(): Promise<void>;
}

/** A replaced screen: the fixture the simulator would serve, swapped for another real tree (a case's variant). */
export const variant = (name: SimulatedFixture, file: string): Partial<Record<SimulatedFixture, string>> => ({ [name]: fixture(`real/${file}`) });

export interface CasePhoneOptions extends SimulatedPhoneUiOptions {
  /**
   * The phone has the UiAutomator2 server (its version) and its screen animates as a playing video does: dumps fail
   * ("could not get idle state") while the server reads it with its idle wait off. Without: the server's install is
   * refused, and the host reads with `uiautomator dump`.
   */
  uiServer?: string;
  /** How that UI server answers (`crashes`: its instrumentation ends at the first page source, as on phones): `works` by default. */
  uiServerBehaviour?: FakeUiServerBehaviour;
}

export async function casePhone(caseOptions: CasePhoneOptions = {}): Promise<CasePhone> {
  const { uiServer, uiServerBehaviour, ...options } = caseOptions;
  const sim = new SimulatedPhoneUi({ width: 1080, height: 2400, ...options });
  const packages = ['com.instagram.android', options.tiktokPackage ?? 'com.zhiliaoapp.musically'];
  const png = await sharp({ create: { width: 1080, height: 2400, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  const seen = { launched: 0, opened: 0, stopped: 0, intents: 0 };
  // Launches, links, force-stops and shares happen in the fake phone's shell; the simulated apps follow them before
  // the next read or input.
  const sync = () => {
    for (; seen.stopped < android.forceStopped.length; seen.stopped++) void sim.forceStop(android.forceStopped[seen.stopped] as string);
    for (; seen.launched < android.launched.length; seen.launched++) void sim.launchApp(android.launched[seen.launched] as string);
    for (; seen.opened < android.opened.length; seen.opened++) void sim.openUrl(android.opened[seen.opened] as string);
    for (; seen.intents < android.intents.length; seen.intents++) {
      const intent = android.intents[seen.intents];
      if (!intent?.component) continue;
      const [pkg = '', activity = ''] = intent.component.split('/');
      const files = Object.values(intent.extras)
        .filter((value) => value.startsWith('content://') || value.startsWith('/'))
        .map((value) => {
          const id = Number(/\/(\d+)$/.exec(value)?.[1]);
          return android.media.find((row) => row.id === id)?.path ?? value;
        });
      void sim.share({ package: pkg, activity, mime: intent.type ?? '*/*', files });
    }
  };
  const android = new FakeAndroid({
    serial: options.serial ?? 'CASE-0001',
    packages,
    ...(uiServer ? { uiServerInstalled: uiServer, ...(uiServerBehaviour ? { uiServer: uiServerBehaviour } : {}) } : { installRefused: true }),
    screen: () => {
      sync();
      return sim.uiXml();
    },
    screencap: () => png,
  });
  android.onInput = (input) => {
    sync();
    const words = input.split(' ');
    if (words[0] === 'tap') void sim.tap(Number(words[1]), Number(words[2]));
    if (words[0] === 'swipe')
      void sim.swipe({ x: Number(words[1]), y: Number(words[2]) }, { x: Number(words[3]), y: Number(words[4]) }, Number(words[5] ?? 300));
    // `input text` reads "%s" as a space (AOSP Input.java).
    if (words[0] === 'text') void sim.text(input.slice(5).replace(/%s/g, ' '));
    if (words[0] === 'keyevent') for (const code of words.slice(1)) if (KEYS[code]) void sim.key(KEYS[code]);
  };
  // Text the UI server sets lands in the simulated field as typed text does.
  android.onValue = (text, replace) => void (replace ? sim.setText(text) : sim.text(text));
  if (uiServer) android.animated = true;
  const server = new FakeAdbServer();
  await server.listen();
  // No adb program: a lost fake server must not make adbkit start a real one on its port.
  const host = new AdbHost({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 20 });
  const ready = new Promise<AdbPhone>((resolve) => {
    const off = host.on((event: AdbHostEvent) => {
      if (event.type !== 'ready') return;
      off();
      resolve(event.phone);
    });
  });
  await host.start();
  server.plug(android);
  const phone = await ready;
  return {
    sim,
    android,
    phone,
    stop: async () => {
      await host.stop();
      await server.close();
    },
  };
}

export const caseParams: RecipeParams = {
  caption: 'Golden hour at the pier',
  hashtags: ['#sunset', '#travel'],
  media: ['/srv/farm/media/pier.jpg'],
  keywords: ['sunset beach'],
  accounts: ['maya_k'],
  count: 3,
  minutes: 2,
  engagement: 100,
};

export interface CaseRun {
  result: RecipeRunResult;
  progress: StepProgress[];
  /** Where the host's taps landed, as the simulated phone saw them (resource id, text or description; null: nothing). */
  hits: (string | null)[];
  /** Text the host typed, as `input text` words or as the UI server set it. */
  typed: string[];
}

/** Runs the shipped recipe for a routine on the case phone through the host's AdbPhone. */
export async function runCase(
  casePhone: CasePhone,
  platform: RecipePlatform,
  routine: RoutineType,
  params: Partial<RecipeParams> = {},
  options: RecipeRunOptions = {},
): Promise<CaseRun> {
  const resolved = resolveRecipe({ platform, routine });
  if (!resolved) throw new Error(`no shipped recipe for ${platform} ${routine}`);
  const progress: StepProgress[] = [];
  const result = await runRecipe(
    casePhone.phone,
    resolved.recipe,
    { ...caseParams, ...params },
    {
      random: seededRandom(7),
      clock: manualClock(),
      // The clock is simulated: a poll costs no real time, only a read of the phone (real looks are half a second apart).
      pollMs: 500,
      busyPauseMs: 500,
      onProgress: (event) => progress.push(event),
      // From a known start (the app force-stopped and launched); the fake phone's package fixture reports an older
      // Instagram than the recipes were tested on, which these cases are not about.
      preflight: { allowUntestedApp: true },
      // Files a case hands the run stand where the agent's fetcher would have left them: the run's media.
      ...(params.media?.[0] ? { media: { files: params.media, dir: dirname(params.media[0]) } } : {}),
      ...options,
    },
  );
  return {
    result,
    progress,
    hits: casePhone.sim.taps.map((tap) => tap.hit),
    // Typed by `input text`, or set through the UI server.
    typed: [
      ...casePhone.android.inputs.filter((input) => input.startsWith('text ')).map((input) => input.slice(5).replace(/%s/g, ' ')),
      ...casePhone.android.values.map((value) => value.text),
    ],
  };
}

/** Media the phone has as files, by name (what a share handed the app). */
export const sharedNames = (casePhone: CasePhone) => casePhone.sim.shares.flatMap((share) => share.files.map((file) => basename(file)));

/**
 * One case phone at a time for a test file: the function stops the last phone before it starts the next, and every
 * test's phone is stopped after it. Call once at the top of the file.
 */
export function phonePerTest(): (options?: CasePhoneOptions) => Promise<CasePhone> {
  let open: CasePhone | null = null;
  afterEach(async () => {
    await open?.stop();
    open = null;
  });
  return async (options = {}) => {
    await open?.stop();
    open = await casePhone(options);
    return open;
  };
}

/** A photo on the farm host, as the media fetcher leaves it. */
export async function mediaFile(name: string): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'case-media-')), name);
  await sharp({ create: { width: 1080, height: 1350, channels: 3, background: '#d9825b' } })
    .jpeg()
    .toFile(path);
  return path;
}
