/**
 * A UI read through each reader, and a routine's wall time, on the fake phone (the fake adb server on loopback) and
 * on the simulator. These are fake-phone figures: they measure what the host's own code and adb's wire cost (the
 * HTTP request over `tcp:6790`, the dump's shell command and file read), not what a phone spends walking its UI tree.
 * What real phones are reported to take is in the README (`uiautomator dump` about 2.5 s a read, the server about
 * 0.2 s). A read is what a recipe does to see the screen: the tree fetched and parsed (`parseUiXml`, the one UI-tree
 * reader). Prints milliseconds per read (median and 90th percentile), the parse alone of the largest real fixture, and
 * the post routine's wall time with its result.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAdbClient } from '../src/adb/adb.host.ts';
import { AdbPhone } from '../src/adb/adb.phone.ts';
import type { PhoneDevice } from '../src/phone/phone.device.ts';
import { manualClock, seededRandom } from '../src/recipes/recipe.pacing.ts';
import { resolveRecipe } from '../src/recipes/recipe.resolver.ts';
import { runRecipe } from '../src/recipes/recipe.runner.ts';
import { parseUiXml } from '../src/recipes/recipe.ui.ts';
import { SimulatedPhoneUi } from '../src/simphone/index.ts';
import { FakeAdbServer } from '../test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../test/fake-android.ts';
import { nodeAt } from '../test/fixture-phone.ts';

const READS = Number(process.env.READS ?? 100);

const dir = mkdtempSync(join(tmpdir(), 'farm-bench-'));
// Stand-ins for the two APKs: the fake phone installs whatever it is given, and the bench measures reads, not installs.
const apks = { serverApk: join(dir, 'server.apk'), testApk: join(dir, 'server-test.apk'), version: '10.6.6' };
writeFileSync(apks.serverApk, 'PK');
writeFileSync(apks.testApk, 'PK');

const server = new FakeAdbServer();
await server.listen();
const client = createAdbClient({ adbPort: server.port, adbBin: '/nonexistent/adb' });
client.on('error', () => undefined);

/** A fake phone showing a real Instagram home feed (test/fixtures/real/instagram/feed.xml). */
function feedPhone(serial: string): FakeAndroid {
  const phone = new FakeAndroid({ serial, screen: () => fixture('real/instagram/feed.xml'), packages: ['com.instagram.android'] });
  server.plug(phone);
  return phone;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function report(label: string, times: number[]): void {
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(34)} median ${percentile(times, 50).toFixed(2)} ms  p90 ${percentile(times, 90).toFixed(2)} ms  (${times.length} reads)`);
}

async function reads(label: string, phone: PhoneDevice): Promise<void> {
  for (let i = 0; i < 5; i++) parseUiXml(await phone.dumpUi()); // warm-up (the server's install and start are not counted)
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const start = performance.now();
    parseUiXml(await phone.dumpUi());
    times.push(performance.now() - start);
  }
  report(label, times);
}

/** The parse alone, of the largest real tree in the fixtures (a TikTok feed with a sheet, 55 KB). */
function parses(): void {
  const xml = fixture('real/tiktok-musically/feed-add-phone.xml');
  for (let i = 0; i < 20; i++) parseUiXml(xml);
  const times: number[] = [];
  for (let i = 0; i < READS * 5; i++) {
    const start = performance.now();
    parseUiXml(xml);
    times.push(performance.now() - start);
  }
  report('parse only, largest real tree', times);
}

/**
 * A fake phone serving UI trees of a real Instagram (test/fixtures/real/instagram) for the post routine: the share
 * handler opens a photo post's caption screen, Share (share_footer_button) shows the pending row over the feed, which
 * reads "Posted!" two reads later.
 */
function posterPhone(serial: string): FakeAndroid {
  const real = (name: string) => fixture(`real/instagram/${name}.xml`);
  const state = { at: 'feed', pendingReads: 2 };
  const phone = new FakeAndroid({
    serial,
    screen: () => {
      if (state.at === 'pending' && state.pendingReads-- <= 0) state.at = 'posted';
      return real(
        state.at === 'caption' ? 'caption-photo' : state.at === 'pending' ? 'feed-upload-pending' : state.at === 'posted' ? 'feed-upload-posted' : 'feed',
      );
    },
    packages: ['com.instagram.android'],
  });
  phone.onIntent = (intent) => {
    if (intent.component?.endsWith('/com.instagram.share.handleractivity.ShareHandlerActivity')) state.at = 'caption';
  };
  phone.onInput = (input) => {
    const tap = /^tap (\d+) (\d+)$/.exec(input);
    if (tap && state.at === 'caption' && nodeAt(real('caption-photo'), Number(tap[1]), Number(tap[2]))?.resourceId.endsWith(':id/share_footer_button'))
      state.at = 'pending';
  };
  server.plug(phone);
  return phone;
}

const media = join(dir, 'pier.jpg');
writeFileSync(media, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));

async function routine(label: string, phone: PhoneDevice): Promise<void> {
  const resolved = resolveRecipe({ routine: 'create_post', platform: 'instagram', appVersion: '360.0.0.52.192' });
  if (!resolved) {
    console.log(`${label.padEnd(40)} no shipped Instagram post recipe`);
    return;
  }
  // The recipe's own pauses are skipped (a manual clock): what is left is reading, deciding, typing and sending input.
  const start = performance.now();
  const result = await runRecipe(
    phone,
    resolved.recipe,
    { media: [media], caption: 'Golden hour at the pier', hashtags: ['#sunset', '#travel'] },
    { clock: manualClock(), random: seededRandom(7), busyPauseMs: 0, media: { files: [media], dir } },
  ).catch((error: unknown) => ({ status: `threw: ${error instanceof Error ? error.message : String(error)}`, failure: undefined }));
  const wall = performance.now() - start;
  const outcome = result.failure ? `${result.status} (${result.failure.code}: ${result.failure.message ?? ''})` : result.status;
  console.log(`${label.padEnd(40)} ${wall.toFixed(1)} ms wall, ${outcome}`);
}

const viaServer = new AdbPhone('BENCH-UIA2', client.getDevice(feedPhone('BENCH-UIA2').serial), { uiServer: apks });
const viaDump = new AdbPhone('BENCH-DUMP', client.getDevice(feedPhone('BENCH-DUMP').serial), { uiServer: false });
parses();
await reads('fake phone, UiAutomator2 server', viaServer);
await reads('fake phone, uiautomator dump', viaDump);
await reads('simulator', new SimulatedPhoneUi({ serial: 'BENCH-SIM' }));

await routine('Instagram post, fake phone, server', new AdbPhone('BENCH-R1', client.getDevice(posterPhone('BENCH-R1').serial), { uiServer: apks }));
await routine('Instagram post, fake phone, dump', new AdbPhone('BENCH-R2', client.getDevice(posterPhone('BENCH-R2').serial), { uiServer: false }));
await routine('Instagram post, simulator', new SimulatedPhoneUi({ serial: 'BENCH-SIM2' }));

for (const phone of [viaServer, viaDump]) await phone.close();
await server.close();
process.exit(0);
