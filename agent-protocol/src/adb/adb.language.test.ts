/**
 * The UI-language check on a phone over adb: the pre-flight reads the app's language (the app's own on Android 13+,
 * else `persist.sys.locale`, else `ro.product.locale`) and a phone in a language the recipe is not written for ends
 * `language_untested` before it acts. The fake phone answers `getprop` and `cmd locale get-app-locales` as a real one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../test/fake-android.ts';
import { manualClock } from '../recipes/recipe.pacing.ts';
import { runRecipe } from '../recipes/recipe.runner.ts';
import { recipe as recipeSchema, type RecipeInput } from '../recipes/recipe.schema.ts';
import { parseAppLocales } from './adb.parse.ts';
import { AdbHost } from './adb.host.ts';
import type { AdbPhone } from './adb.phone.ts';

const INSTAGRAM = 'com.instagram.android';
let server: FakeAdbServer;
let host: AdbHost;
let started = false;

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  started = false;
  host = new AdbHost({
    adbHost: '127.0.0.1',
    adbPort: server.port,
    adbBin: '/nonexistent/adb',
    probeMs: 0,
    reconnectMs: 20,
    phone: { uiServer: false, dumpAttempts: 1 },
  });
});

afterEach(async () => {
  await host.stop();
  await server.close();
});

/** The fixture's properties with the phone's language (and SDK level) changed; `null` leaves the property out. */
function properties(locale: { system: string | null; product?: string; sdk?: number }): string {
  let all = fixture('getprop.txt').replace(/^\[persist\.sys\.locale\]: \[.*\]\n/m, locale.system ? `[persist.sys.locale]: [${locale.system}]\n` : '');
  if (locale.product) all += `[ro.product.locale]: [${locale.product}]\n`;
  if (locale.sdk) all = all.replace(/^\[ro\.build\.version\.sdk\]: \[\d+\]$/m, `[ro.build.version.sdk]: [${locale.sdk}]`);
  return all;
}

/** A phone on the fake adb server in that language, showing Instagram's feed. */
async function phoneIn(serial: string, locale: Parameters<typeof properties>[0], appLocales?: Record<string, string>) {
  const fake = new FakeAndroid({
    serial,
    getprop: properties(locale),
    screen: () => fixture('real/instagram/feed.xml'),
    packages: [INSTAGRAM],
    ...(appLocales ? { appLocales } : {}),
  });
  server.plug(fake);
  const ready = new Promise<AdbPhone>((resolve) => {
    const off = host.on((event) => {
      if (event.type !== 'ready' || event.serial !== serial) return;
      off();
      resolve(event.phone);
    });
  });
  if (!started) await host.start();
  started = true;
  return { fake, phone: await ready };
}

/** A recipe for Instagram with a word guard; `locale` as it declares it (absent: none declared). */
function recipeWith(app: Partial<RecipeInput['app']> = { locale: 'en' }, guardWords = true) {
  return recipeSchema.parse({
    id: 'test.language',
    version: 1,
    name: 'Language test',
    platform: 'instagram',
    routines: ['warmup'],
    app: { package: INSTAGRAM, writtenFor: '360.0.0.52.192', ...app },
    guards: [
      {
        when: guardWords ? { textContains: 'Try Again Later' } : { id: 'action_sheet_block_dialog' },
        reason: 'rate_limited',
        message: 'Instagram limits this account.',
      },
    ],
    steps: [{ do: 'pause', for: 0 }],
  });
}

const run = (phone: AdbPhone, recipe = recipeWith()) => runRecipe(phone, recipe, {}, { clock: manualClock(), random: () => 0.5, preflight: {} });

describe("the pre-flight's language check on a phone over adb", () => {
  it('ends a de-DE phone with language_untested before it acts, naming both languages and what to do', async () => {
    const { fake, phone } = await phoneIn('DE-1', { system: 'de-DE' });
    expect(await phone.locale()).toBe('de-DE');
    const result = await run(phone);
    expect(result.failure).toMatchObject({ code: 'language_untested', step: 'start' });
    expect(result.failure?.message).toContain('de-DE');
    expect(result.failure?.message).toContain('written for en');
    expect(result.failure?.message).toContain('dry run');
    expect(fake.launched).toEqual([]);
    expect(fake.inputs).toEqual([]);
  });

  it('lets an en-GB phone through, and reads ro.product.locale where persist.sys.locale is not set', async () => {
    const british = await phoneIn('GB-1', { system: 'en-GB' });
    const passed = await run(british.phone);
    expect(passed.failure).toBeUndefined();
    expect(british.fake.launched).toEqual([INSTAGRAM]);

    const built = await phoneIn('FR-1', { system: null, product: 'fr-FR' });
    expect(await built.phone.locale()).toBe('fr-FR');
    expect((await run(built.phone)).failure).toMatchObject({ code: 'language_untested' });
  });

  it("reads the app's own language on Android 13+, which overrides the phone's", async () => {
    const germanApp = await phoneIn('APP-DE', { system: 'en-US', sdk: 34 }, { [INSTAGRAM]: 'de-DE,en-US' });
    expect(await germanApp.phone.appLocale(INSTAGRAM)).toBe('de-DE');
    expect(germanApp.fake.commands).toContain(`cmd locale get-app-locales ${INSTAGRAM} 2>&1`);
    expect((await run(germanApp.phone)).failure).toMatchObject({ code: 'language_untested' });

    const englishApp = await phoneIn('APP-EN', { system: 'de-DE', sdk: 33 }, { [INSTAGRAM]: 'en-GB' });
    expect((await run(englishApp.phone)).failure).toBeUndefined();

    // None picked: `[]`, the phone's own language shows.
    const nonePicked = await phoneIn('APP-NONE', { system: 'en-US', sdk: 34 }, { [INSTAGRAM]: '' });
    expect(await nonePicked.phone.appLocale(INSTAGRAM)).toBeNull();
    expect((await run(nonePicked.phone)).failure).toBeUndefined();

    // Android 12 has no per-app languages: not asked.
    const older = await phoneIn('OLD-1', { system: 'en-US', sdk: 32 }, { [INSTAGRAM]: 'de-DE' });
    expect(await older.phone.appLocale(INSTAGRAM)).toBeNull();
    expect(older.fake.commands.some((command) => command.startsWith('cmd locale'))).toBe(false);
    expect((await run(older.phone)).failure).toBeUndefined();
  });

  it('takes a recipe that names no language as English when its guards carry words, and checks none when they are ids', async () => {
    const { phone } = await phoneIn('DE-2', { system: 'de-DE' });
    expect((await run(phone, recipeWith({}))).failure).toMatchObject({ code: 'language_untested' });
    expect((await run(phone, recipeWith({}, false))).failure).toBeUndefined();
  });

  it('lets a language through where the workspace verified the recipe on it', async () => {
    const { phone } = await phoneIn('DE-3', { system: 'de-DE' });
    const recipe = recipeWith();
    const verified = await runRecipe(
      phone,
      recipe,
      {},
      {
        clock: manualClock(),
        random: () => 0.5,
        preflight: { verifiedApps: [{ recipeId: recipe.id, package: INSTAGRAM, version: '360.0.0.52.192', locale: 'de' }] },
      },
    );
    expect(verified.failure?.code).not.toBe('language_untested');
  });

  it('lets a dry run try the language (a passing one verifies it), and says which language the app showed', async () => {
    const { fake, phone } = await phoneIn('DE-4', { system: 'de-DE' });
    const tried = await runRecipe(phone, recipeWith(), {}, { clock: manualClock(), random: () => 0.5, preflight: { tryUntestedLanguage: true } });
    expect(tried.failure).toBeUndefined();
    expect(tried.appLocale).toBe('de-DE');
    expect(fake.launched).toEqual([INSTAGRAM]);
  });
});

describe('a template held back by a claim no public source shows', () => {
  it('ends a run app_version_untested on a version of its range, and a dry run tries it there (not outside it)', async () => {
    const { fake, phone } = await phoneIn('EN-9', { system: 'en-US' });
    const unverified = 'The source of this range could not be read.';
    const held = recipeWith({ locale: 'en', tested: [{ package: INSTAGRAM, min: '300.0.0.0.0', max: '400.0.0.0.0', unverified }] });
    const refused = await run(phone, held);
    expect(refused.failure).toMatchObject({ code: 'app_version_untested', message: expect.stringContaining('relies on what no public source shows') });
    const dry = { clock: manualClock(), random: () => 0.5, preflight: { tryUnverifiedClaims: true } };
    const tried = await runRecipe(phone, held, {}, dry);
    expect(tried.failure).toBeUndefined();
    expect(fake.launched).toEqual([INSTAGRAM]);
    const outside = recipeWith({ locale: 'en', tested: [{ package: INSTAGRAM, min: '400.0.0.0.0', max: '401.0.0.0.0', unverified }] });
    expect((await runRecipe(phone, outside, {}, dry)).failure?.code).toBe('app_version_untested');
  });
});

describe('`cmd locale get-app-locales` answers', () => {
  it('reads the first tag, and nothing from an empty list or another answer', () => {
    // Worded as LocaleManagerShellCommand.runGetAppLocales prints them (EVIDENCE.md).
    expect(parseAppLocales(`Locales for ${INSTAGRAM} for user 0 are [fr-CA,en-US]\n`, INSTAGRAM)).toBe('fr-CA');
    expect(parseAppLocales(`Locales for ${INSTAGRAM} for user 0 are []\n`, INSTAGRAM)).toBeNull();
    expect(parseAppLocales(`Unknown package ${INSTAGRAM} for userId 0\n`, INSTAGRAM)).toBeNull();
    expect(parseAppLocales('Locales for com.other.app for user 0 are [de]\n', INSTAGRAM)).toBeNull();
  });
});
