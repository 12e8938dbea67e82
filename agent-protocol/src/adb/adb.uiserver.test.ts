/**
 * The real AdbPhone (through adbkit) against the fake adb server: the UiAutomator2 server installed, started and read
 * over `tcp:6790`, the dump fallback, typing, and the phone-side abilities safe runs need.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { compressedTree, FakeAndroid, type FakeAndroidOptions, fixture, keyguardPolicy } from '../../test/fake-android.ts';
import { PhoneError } from '../phone/phone.device.ts';
import { isWithin, parseUiXml } from '../recipes/recipe.ui.ts';
import { createAdbClient } from './adb.host.ts';
import { AdbPhone, type AdbPhoneOptions, bundledUiServer } from './adb.phone.ts';

let server: FakeAdbServer;
let phones: AdbPhone[];
const dir = mkdtempSync(join(tmpdir(), 'farm-uia2-'));
// Small stand-ins for the two APKs: the fake phone installs whatever it is given.
const apks = { serverApk: join(dir, 'server.apk'), testApk: join(dir, 'server-test.apk'), version: '10.6.6' };
writeFileSync(apks.serverApk, Buffer.from('PK\u0003\u0004server'));
writeFileSync(apks.testApk, Buffer.from('PK\u0003\u0004test'));

const caption = () => fixture('ui-instagram-caption.xml');
/** The caption field's middle in that fixture (bounds [42,990][1038,1116]). */
const captionField = { x: 540, y: 1053 };

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  phones = [];
});

afterEach(async () => {
  for (const phone of phones) await phone.close();
  await server.close();
});

function setup(fakeOptions: Partial<FakeAndroidOptions> = {}, options: AdbPhoneOptions = {}) {
  const fake = new FakeAndroid({ serial: 'R5CT1234', screen: caption, packages: ['com.instagram.android'], ...fakeOptions });
  server.plug(fake);
  const client = createAdbClient({ adbPort: server.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  const phone = new AdbPhone(fake.serial, client.getDevice(fake.serial), {
    uiServer: apks,
    dumpRetryPauseMs: 10,
    uiServerTimeouts: { startTimeoutMs: 2000, requestTimeoutMs: 1000, sourceTimeoutMs: 1000 },
    ...options,
  });
  phones.push(phone);
  return { fake, phone };
}

describe('the UiAutomator2 server on a phone', () => {
  it('installs both APKs on a phone without them, starts the instrumentation and reads over tcp:6790 with the idle wait off', async () => {
    const { fake, phone } = setup();
    fake.animated = true;
    const started = Date.now();
    const xml = await phone.dumpUi();
    // The default idle wait (10 s) would hold an animated screen's source; with waitForIdleTimeout 0 it answers at once.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(xml).toContain('<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">');
    expect(xml).toContain('<android.widget.AutoCompleteTextView index="1" text="Add a caption..."');
    expect(fake.installs).toEqual(['install -r -g /data/local/tmp/farm-uia2-server.apk', 'install -r -g /data/local/tmp/farm-uia2-server-test.apk']);
    expect(fake.pushed.map((file) => file.path)).toEqual(['/data/local/tmp/farm-uia2-server.apk', '/data/local/tmp/farm-uia2-server-test.apk']);
    expect(fake.commands).toContain('am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner');
    expect(fake.uiServerProcess?.settings).toEqual({ waitForIdleTimeout: 0 });
    expect(fake.uiServerProcess?.requests).toEqual(['GET /status', 'POST /session', 'POST /session/:id/appium/settings', 'GET /session/:id/source']);
    // No host port: every request went through the transport's tcp: service.
    expect(server.requests.filter((request) => request.startsWith('tcp:'))).toEqual(['tcp:6790', 'tcp:6790', 'tcp:6790', 'tcp:6790']);
    expect(server.requests.some((request) => request.includes('forward'))).toBe(false);
    expect(fake.dumps).toBe(0);
    expect(await phone.uiReader()).toEqual({ kind: 'ui-server', version: '10.6.6', seesToasts: true });
  });

  it('keeps a server of the same version, replaces another version, and ships the package APKs', async () => {
    const same = setup({ uiServerInstalled: '10.6.6' });
    await same.phone.dumpUi();
    expect(same.fake.installs).toEqual([]);
    expect(same.fake.commands).toContain('pm list packages io.appium.uiautomator2.server');
    server.unplug(same.fake.serial);

    const older = setup({ serial: 'OLDER1', uiServerInstalled: '9.9.1' });
    await older.phone.dumpUi();
    expect(older.fake.installs).toHaveLength(2);
    expect(older.fake.uiServerVersion).toBe('10.6.6');

    expect(bundledUiServer.version).toMatch(/^10\.6\.\d+$/);
    expect(bundledUiServer.serverApk).toMatch(new RegExp(`apks/appium-uiautomator2-server-v${bundledUiServer.version}\\.apk$`));
    expect(bundledUiServer.testApk).toMatch(/apks\/appium-uiautomator2-server-debug-androidTest\.apk$/);
  });

  it('types any Unicode with setText, replacing what the field held, and answers what landed', async () => {
    const { fake, phone } = setup();
    await phone.dumpUi();
    const text = 'Café at the pier ☀️🌊\nsecond line «ñ»';
    expect(await phone.setText('old words', captionField)).toBe('old words');
    expect(await phone.setText(text)).toBe(text);
    expect(fake.fieldText).toBe(text);
    expect(fake.inputs).toEqual(['tap 540 1053']);
    expect(fake.uiServerProcess?.requests.filter((request) => request.includes('/element'))).toEqual([
      'POST /session/:id/element',
      expect.stringMatching(/^POST \/session\/:id\/element\/[\w-]+\/value$/),
      expect.stringMatching(/^GET \/session\/:id\/element\/[\w-]+\/text$/),
      'POST /session/:id/element',
      expect.stringMatching(/^POST \/session\/:id\/element\/[\w-]+\/value$/),
      expect.stringMatching(/^GET \/session\/:id\/element\/[\w-]+\/text$/),
    ]);
    expect((await phone.dumpUi()).includes('text="Café at the pier ☀️🌊&#10;second line «ñ»"')).toBe(true);
  });

  it('appends any Unicode to the focused field with text(), through the server', async () => {
    const { fake, phone } = setup();
    await phone.tap(captionField.x, captionField.y);
    await phone.text('Golden hour ');
    await phone.text('à la plage 🌅');
    expect(fake.fieldText).toBe('Golden hour à la plage 🌅');
    expect(fake.inputs).toEqual(['tap 540 1053']);
  });

  it('sees toasts in the page source; the dump does not', async () => {
    const { fake, phone } = setup();
    fake.toast = { text: 'Your post has been shared.', at: Date.now() };
    expect(await phone.dumpUi()).toContain(
      '<android.widget.Toast index="1" package="com.android.settings" class="android.widget.Toast" text="Your post has been shared." displayed="true" />',
    );
    const fallback = setup({ serial: 'NOSERVER' }, { uiServer: false });
    fallback.fake.toast = { text: 'Your post has been shared.', at: Date.now() };
    expect(await fallback.phone.dumpUi()).not.toContain('Toast');
    expect(await fallback.phone.uiReader()).toEqual({ kind: 'dump', version: null, seesToasts: false });
  });

  it('starts the server again when it died, and reads', async () => {
    const { fake, phone } = setup();
    await phone.dumpUi();
    fake.crash();
    expect(await phone.dumpUi()).toContain('class="hierarchy"');
    expect(fake.uiServerStarts).toBe(2);
  });

  it('ends a read with a reason when the server answers garbage, hangs or sends a cut-off tree, and starts afresh after', async () => {
    const { fake, phone } = setup();
    await phone.dumpUi();
    const process = fake.uiServerProcess;
    if (!process) throw new Error('no server');
    process.behaviour = 'garbage';
    await expect(phone.dumpUi()).rejects.toThrow('The UI server answered GET /session/…/source with something that is not HTTP.');
    // The broken instrumentation was stopped; the next read starts a new one.
    expect(fake.forceStopped).toContain('io.appium.uiautomator2.server');
    await phone.dumpUi();
    const hanging = fake.uiServerProcess;
    if (!hanging) throw new Error('no server');
    hanging.behaviour = 'hangs';
    const started = Date.now();
    await expect(phone.dumpUi()).rejects.toMatchObject({
      code: 'timeout',
      message: 'The UI server did not answer GET /session/…/source within 1000 ms.',
    });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(fake.uiServerStarts).toBe(2);

    let cut = false;
    const broken = setup({ serial: 'CUTOFF1', screen: () => (cut ? caption().slice(0, 4000) : caption()) });
    await broken.phone.dumpUi();
    cut = true;
    await expect(broken.phone.dumpUi()).rejects.toThrow('The UI server answered a page source that is not a whole UI tree.');
  });

  it('reads with the dump, saying why, when a started server never answers its status sensibly', async () => {
    for (const [serial, behaviour] of [
      ['GARBLED1', 'garbage'],
      ['SILENT1', 'hangs'],
    ] as const) {
      const { fake, phone } = setup(
        { serial, uiServer: behaviour },
        { uiServerTimeouts: { startTimeoutMs: 400, requestTimeoutMs: 200, sourceTimeoutMs: 200 } },
      );
      const started = Date.now();
      expect(await phone.dumpUi()).toContain('resource-id="com.instagram.android:id/caption_input_text_view"');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(phone.uiServerProblem).toMatch(
        /^The UI server did not start within 400 ms \(The UI server (answered GET \/status with something that is not HTTP|did not answer GET \/status within \d+ ms)\.\)\.$/,
      );
      // The half-started instrumentation was stopped before the dump, so the dump could connect.
      expect(fake.uiServerProcess).toBeNull();
      expect(await phone.uiReader()).toEqual({ kind: 'dump', version: null, seesToasts: false });
    }
  });

  it('ends a read with a reason when the phone is unplugged mid-read, and never hangs', async () => {
    const { fake, phone } = setup();
    await phone.dumpUi();
    const process = fake.uiServerProcess;
    if (!process) throw new Error('no server');
    process.behaviour = 'hangs';
    const read = phone.dumpUi();
    setTimeout(() => server.unplug(fake.serial), 100);
    const started = Date.now();
    const error = await read.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PhoneError);
    expect((error as PhoneError).message).toMatch(/device 'R5CT1234' not found|did not answer|connection ended|cut off/);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('the dump when the server cannot run', () => {
  it('reads with uiautomator dump (whole tree) when the phone refuses installs, and says so', async () => {
    const { fake, phone } = setup({ installRefused: true });
    expect(await phone.dumpUi()).toContain('resource-id="com.instagram.android:id/caption_input_text_view"');
    expect(phone.uiServerProblem).toBe('The phone refused to install the UI server: Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user].');
    expect(await phone.uiReader()).toEqual({ kind: 'dump', version: null, seesToasts: false });
    expect(fake.commands).toContain(
      'am force-stop io.appium.uiautomator2.server; rm -f /data/local/tmp/farm-ui.xml; uiautomator dump /data/local/tmp/farm-ui.xml 2>&1; cat /data/local/tmp/farm-ui.xml 2>/dev/null',
    );
    // Refused installs are not tried again on every read.
    expect(fake.installs).toHaveLength(1);
  });

  it("keeps Instagram's sheet containers, which --compressed would leave out (they are not important for accessibility)", async () => {
    // The promotion sheet as published (YallaPapi/geelark-automation@8922f15
    // error_logs/micdropchannel_20251222_134426/error_006_page_source.xml lines 149-155): the dimmer, the sheet's
    // layout_container_bottom_sheet, its inner bottom_sheet_container and bottom_sheet_container_view all carry
    // a11y-important="false" there, as in every one of the 40 public page sources with those containers.
    let sheet = fixture('real/instagram/reels-promo-sheet.xml');
    for (const id of ['background_dimmer', 'layout_container_bottom_sheet', 'bottom_sheet_container_view'])
      sheet = sheet.replace(`resource-id="com.instagram.android:id/${id}"`, `resource-id="com.instagram.android:id/${id}" a11y-important="false"`);
    sheet = sheet.replace(
      'resource-id="com.instagram.android:id/bottom_sheet_container" class="android.view.ViewGroup"',
      'resource-id="com.instagram.android:id/bottom_sheet_container" class="android.view.ViewGroup" a11y-important="false"',
    );
    // What the compressed dump would have read: the sheet's words without the containers that say they are a sheet.
    const compressed = parseUiXml(compressedTree(sheet));
    expect(compressed.nodes.some((node) => node.resourceId.endsWith(':id/layout_container_bottom_sheet'))).toBe(false);
    expect(compressed.nodes.some((node) => node.text === 'Get more from your next reel')).toBe(true);

    const { fake, phone } = setup({ screen: () => sheet }, { uiServer: false });
    const screen = parseUiXml(await phone.dumpUi());
    expect(fake.commands.some((command) => command.includes('uiautomator dump /data/local/tmp/farm-ui.xml'))).toBe(true);
    expect(fake.commands.some((command) => command.includes('--compressed'))).toBe(false);
    for (const id of ['layout_container_bottom_sheet', 'bottom_sheet_container_view', 'background_dimmer'])
      expect(screen.nodes.some((node) => node.resourceId === `com.instagram.android:id/${id}`)).toBe(true);
    // A word inside the sheet still has the sheet among its ancestors, where guards and dismissals look.
    const inside = screen.nodes.find(
      (node) => node.text === 'Get more from your next reel' && isWithin(screen, node, (at) => at.resourceId.endsWith(':id/layout_container_bottom_sheet')),
    );
    expect(inside).toBeDefined();
  });

  it('asks again on "null root node" and "could not get idle state", and says why when it never reads', async () => {
    const { fake, phone } = setup({}, { uiServer: false });
    fake.nullRootDumps = 1;
    fake.busyDumps = 1;
    expect(await phone.dumpUi()).toContain('</hierarchy>');
    expect(fake.dumps).toBe(3);
    fake.animated = true;
    fake.dumpIdleTimeoutMs = 100;
    const started = Date.now();
    await expect(phone.dumpUi()).rejects.toMatchObject({ code: 'ui_busy' });
    // Each of the three tries waited out the phone's idle timeout before it failed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(fake.dumps).toBe(6);
    fake.animated = false;
    fake.nullRootDumps = 3;
    await expect(phone.dumpUi()).rejects.toThrow('The phone gave no screen to read ("null root node": mid-transition, or the screen is off).');
  });

  it('stops the server before dumping, since only one UI automation client runs at a time', async () => {
    const holder = setup({ uiServerInstalled: '10.6.6' }, { uiServer: false });
    // An instrumentation left running (by an earlier host): a dump that does not stop it is refused.
    void holder.fake.sh('am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner');
    await expect(holder.phone.dumpUi()).rejects.toThrow(
      'Another UI automation client holds this phone ("UiAutomationService already registered"); only one can read the screen at a time.',
    );
    const fallback = setup({ serial: 'HOLDER2', uiServerInstalled: '10.6.6', installRefused: true, uiServerApkVersion: '10.6.6' });
    void fallback.fake.sh('am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner');
    // The phone runs another version of the server and refuses the update: the dump stops that one first.
    fallback.fake.uiServerVersion = '9.0.0';
    expect(await fallback.phone.dumpUi()).toContain('</hierarchy>');
    expect(fallback.fake.forceStopped).toContain('io.appium.uiautomator2.server');
  });

  it('reads a malformed tree as a failure with the phone words, not a crash', async () => {
    const { phone } = setup({ screen: () => caption().slice(0, 3000) }, { uiServer: false });
    await expect(phone.dumpUi()).rejects.toThrow('The phone could not read its screen (UI hierchary dumped to: /data/local/tmp/farm-ui.xml).');
  });

  it('types ASCII with input text (spaces as %s), clearing the field first, and refuses other text without ADB Keyboard', async () => {
    const { fake, phone } = setup({}, { uiServer: false });
    expect(await phone.setText('Golden hour 50%sale', captionField)).toBe('Golden hour 50%sale');
    expect(await phone.setText('Pier at dusk')).toBe('Pier at dusk');
    expect(fake.inputs).toEqual([
      'tap 540 1053',
      'keyevent 123',
      // The empty field shows its hint, "Add a caption..." (16 characters).
      `keyevent ${Array(16).fill(67).join(' ')}`,
      'text Golden%shour%s50%',
      'text sale',
      'keyevent 123',
      `keyevent ${Array(19).fill(67).join(' ')}`,
      'text Pier%sat%sdusk',
    ]);
    const before = fake.inputs.length;
    await expect(phone.setText('Café ☀️')).rejects.toMatchObject({
      code: 'unsupported',
      message: "This text has characters that need the ADB Keyboard app as the phone's keyboard (input text types ASCII only).",
    });
    expect(fake.inputs).toHaveLength(before);
    expect(fake.fieldText).toBe('Pier at dusk');
  });

  it('types any text through ADB Keyboard when it is the phone keyboard', async () => {
    const { fake, phone } = setup({ keyboard: 'com.android.adbkeyboard/.AdbIME' }, { uiServer: false });
    expect(await phone.setText('Café ☀️', captionField)).toBe('Café ☀️');
    expect(fake.commands.some((command) => command.startsWith(`am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from('Café ☀️').toString('base64')} `))).toBe(
      true,
    );
    expect(fake.inputs).toContain('adbkeyboard Café ☀️');
  });
});

describe('what a safe run asks of the phone', () => {
  it('wakes the screen and reads the keyguard: unlocked, locked, locked with a PIN', async () => {
    const { fake, phone } = setup({}, { uiServer: false });
    await phone.wake();
    expect(fake.inputs).toEqual(['keyevent 224']);
    expect(await phone.lockState()).toBe('unlocked');
    fake.windowPolicy = keyguardPolicy({ showing: true, secure: false });
    expect(await phone.lockState()).toBe('locked');
    fake.windowPolicy = keyguardPolicy({ showing: true, secure: true });
    expect(await phone.lockState()).toBe('locked_secure');
    expect(fake.commands.filter((command) => command === 'dumpsys window policy')).toHaveLength(3);
  });

  it('force-stops an app', async () => {
    const { fake, phone } = setup({}, { uiServer: false });
    await phone.forceStop('com.instagram.android');
    expect(fake.forceStopped).toEqual(['com.instagram.android']);
    await expect(phone.forceStop('com.x; reboot')).rejects.toThrow('"com.x; reboot" is not a package name.');
  });

  it('indexes pushed media and shares one file by its media store URI; several files are refused with the reason', async () => {
    const { fake, phone } = setup({ packages: ['com.instagram.android'] }, { uiServer: false });
    const local = join(dir, 'pier.jpg');
    writeFileSync(local, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    const remote = await phone.pushMedia(local);
    expect(fake.commands).toContain('content call --method scan_volume --uri content://media --arg external_primary');
    expect(fake.media).toEqual([{ id: 1000, path: '/storage/emulated/0/DCIM/Farm/pier.jpg', mime: 'image/jpeg' }]);
    await phone.share({
      package: 'com.instagram.android',
      activity: 'com.instagram.share.handleractivity.ShareHandlerActivity',
      mime: 'image/jpeg',
      files: [remote],
    });
    expect(fake.intents).toEqual([
      {
        action: 'android.intent.action.SEND',
        type: 'image/jpeg',
        component: 'com.instagram.android/com.instagram.share.handleractivity.ShareHandlerActivity',
        extras: { 'android.intent.extra.STREAM': 'content://media/external/images/media/1000' },
      },
    ]);
    await expect(
      phone.share({
        package: 'com.instagram.android',
        activity: 'com.instagram.share.handleractivity.ShareHandlerActivity',
        mime: 'image/jpeg',
        files: ['/sdcard/DCIM/Farm/other.jpg'],
      }),
    ).rejects.toThrow("/sdcard/DCIM/Farm/other.jpg is not in the phone's media store (push and scan it first).");
    await expect(
      phone.share({
        package: 'com.instagram.android',
        activity: 'com.instagram.share.handleractivity.ShareHandlerActivity',
        mime: 'image/*',
        files: [remote, remote],
      }),
    ).rejects.toMatchObject({ code: 'unsupported' });
    // `$` would expand on the phone's shell: refused before any command, whatever the recipe said.
    const commands = fake.commands.length;
    await expect(phone.share({ package: 'com.instagram.android', activity: 'com.instagram.Share$PATH', mime: 'image/jpeg', files: [remote] })).rejects.toThrow(
      '"com.instagram.android/com.instagram.Share$PATH" is not an activity.',
    );
    expect(fake.commands).toHaveLength(commands);
  });

  it('uses the media scanner broadcast before Android 10', async () => {
    const getprop = fixture('getprop.txt').replace('[ro.build.version.sdk]: [34]', '[ro.build.version.sdk]: [28]');
    const { fake, phone } = setup({ getprop }, { uiServer: false });
    const local = join(dir, 'dusk.mp4');
    writeFileSync(local, Buffer.from('video'));
    await phone.pushMedia(local);
    expect(fake.commands).toContain("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d 'file:///sdcard/DCIM/Farm/dusk.mp4'");
    expect(fake.media).toEqual([{ id: 1000, path: '/storage/emulated/0/DCIM/Farm/dusk.mp4', mime: 'video/mp4' }]);
  });
});
