/**
 * Texts as Android writes them, through the farm host's AdbPhone → the fake adb server → a phone serving a tree
 * shaped by Android's serializer (real/instagram/comments-quoting.xml; EVIDENCE.md, "How Android writes a tree"):
 * read through the UI server and through the dump fallback, and a typed text holding `"` read back from the dump.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdbClient } from '../../src/adb/adb.host.ts';
import { AdbPhone } from '../../src/adb/adb.phone.ts';
import { parseUiXml } from '../../src/recipes/recipe.ui.ts';
import { FakeAdbServer } from '../fake-adb.server.ts';
import { FakeAndroid, fixture } from '../fake-android.ts';

const dir = mkdtempSync(join(tmpdir(), 'case-quoting-'));
// Stand-ins for the two APKs: the fake phone installs whatever it is given.
const apks = { serverApk: join(dir, 'server.apk'), testApk: join(dir, 'server-test.apk'), version: '10.6.6' };
writeFileSync(apks.serverApk, 'PK');
writeFileSync(apks.testApk, 'PK');

const WORDS = [
  'maya_k She said "hi"',
  "alex.rivera It's where we met",
  'sam.o "Don\'t" was all I said',
  'jo.b Fish & chips <3 > pizza',
  'lee.m First line\nsecond line',
  'nina.p Sunset 🌅',
  'kai.r So good 😍',
];

let server: FakeAdbServer | null = null;
const phones: AdbPhone[] = [];
afterEach(async () => {
  for (const phone of phones.splice(0)) await phone.close();
  await server?.close();
  server = null;
});

async function hostPhone(screen: () => string, uiServer: typeof apks | false): Promise<{ fake: FakeAndroid; phone: AdbPhone }> {
  server = new FakeAdbServer();
  await server.listen();
  const fake = new FakeAndroid({ serial: 'QUOTE-1', screen, packages: ['com.instagram.android'] });
  server.plug(fake);
  const client = createAdbClient({ adbPort: server.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  const phone = new AdbPhone(fake.serial, client.getDevice(fake.serial), { uiServer, dumpRetryPauseMs: 10 });
  phones.push(phone);
  return { fake, phone };
}

describe('texts with quotes and entities, through the farm host', { timeout: 30_000 }, () => {
  it.each([
    ['the UI server', apks],
    ['the dump fallback', false],
  ] as const)('reads every comment right through %s', async (_reader, uiServer) => {
    const { phone } = await hostPhone(() => fixture('real/instagram/comments-quoting.xml'), uiServer);
    const screen = parseUiXml(await phone.dumpUi());
    const rows = screen.nodes.filter((node) => node.resourceId.endsWith(':id/row_comment_textview_comment')).map((node) => node.text);
    expect(rows).toEqual(WORDS);
    expect(screen.nodes.find((node) => node.focused)?.text).toBe('Love this "golden hour" & the pier');
  });

  it('refuses a tree carrying a DOCTYPE with entities, with a sentence, before expanding any', async () => {
    const { phone } = await hostPhone(() => fixture('ui-doctype-entity.xml'), false);
    const xml = await phone.dumpUi();
    expect(() => parseUiXml(xml)).toThrow('The screen was refused: its tree declares a DOCTYPE, which Android never writes (entities are not expanded).');
  });

  it('reads back a typed caption holding a double quote from the dump (where Android writes it in single quotes)', async () => {
    const { fake, phone } = await hostPhone(() => fixture('ui-instagram-caption.xml'), false);
    // The caption field's middle (bounds [42,990][1038,1116]).
    const landed = await phone.setText('She said "hi" & left', { x: 540, y: 1053 });
    expect(fake.uiXml()).toContain(`text='She said "hi" &amp; left'`);
    expect(landed).toBe('She said "hi" & left');
  });
});
