import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture } from '../../test/fake-android.ts';
import { follow, instagramFlow, nodeAt, screens } from '../../test/fixture-phone.ts';
import { manualClock, seededRandom } from '../recipes/recipe.pacing.ts';
import { resolveRecipe } from '../recipes/recipe.resolver.ts';
import { runRecipe } from '../recipes/recipe.runner.ts';
import { recipe as recipeSchema } from '../recipes/recipe.schema.ts';
import { AdbHost, type AdbHostEvent } from './adb.host.ts';
import { AdbPhone, type AdbDevice } from './adb.phone.ts';
import { readPhoneStatus } from '../phone/phone.status.ts';

let png: Buffer;
/** What the phone's screen shows off the feed (another picture, so a screenshot of it is another PNG). */
let elsewhere: Buffer;
let server: FakeAdbServer;
let host: AdbHost;
let events: AdbHostEvent[];

beforeAll(async () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="2400"><rect width="1080" height="2400" fill="#fff"/><rect y="703" width="1080" height="1080" fill="#d9825b"/><text x="40" y="640" font-size="48" font-family="sans-serif">sunny.trails</text></svg>`;
  png = await sharp(Buffer.from(svg)).png().toBuffer();
  elsewhere = await sharp(Buffer.from(svg.replace('#d9825b', '#3b6ea5')))
    .png()
    .toBuffer();
});

/** A phone on the fake adb server showing the recorded Instagram screens; taps move between them. */
function instagramPhone(serial: string): FakeAndroid & { at: string } {
  const state = { at: 'feed' };
  const phone = new FakeAndroid({
    serial,
    screen: () => (screens[state.at] as () => string)(),
    screencap: () => (state.at === 'feed' ? png : elsewhere),
    packages: ['com.instagram.android'],
  }) as FakeAndroid & { at: string };
  Object.defineProperty(phone, 'at', { get: () => state.at, set: (value: string) => (state.at = value) });
  phone.onInput = (input) => {
    const tap = /^tap (\d+) (\d+)$/.exec(input);
    if (tap) state.at = follow(instagramFlow, state.at, nodeAt((screens[state.at] as () => string)(), Number(tap[1]), Number(tap[2])));
  };
  // Instagram's share handler opens the new post with the shared media, at its caption screen here.
  phone.onIntent = (intent) => {
    if (intent.component === 'com.instagram.android/com.instagram.share.handleractivity.ShareHandlerActivity') state.at = 'caption';
  };
  return phone;
}

function next(predicate: (event: AdbHostEvent) => boolean): Promise<AdbHostEvent> {
  return new Promise((resolve) => {
    const off = host.on((event) => {
      if (!predicate(event)) return;
      off();
      resolve(event);
    });
  });
}

async function readyPhone(serial: string): Promise<AdbPhone> {
  const existing = host.phone(serial);
  if (existing && host.list().find((device) => device.serial === serial)?.info) return existing;
  const event = await next((item) => item.type === 'ready' && item.serial === serial);
  if (event.type !== 'ready') throw new Error('unreachable');
  return event.phone;
}

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  events = [];
});

afterEach(async () => {
  await host?.stop();
  await server.close();
});

function startHost(options: ConstructorParameters<typeof AdbHost>[0] = {}) {
  // No adb program: a lost fake server must not make adbkit start a real one on its port.
  host = new AdbHost({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 20, ...options });
  host.on((event) => events.push(event));
  return host;
}

describe('the farm host over adb', () => {
  it('discovers phones: authorised ones become ready with what they are, unauthorised ones wait', async () => {
    server.plug(instagramPhone('2B161FDH200ZNK'));
    server.plug(new FakeAndroid({ serial: 'R58N91XYZ' }), 'unauthorized');
    startHost();
    const ready = next((event) => event.type === 'ready');
    await host.start();
    expect(await host.version()).toBe(41);
    const event = await ready;
    expect(event).toMatchObject({
      type: 'ready',
      serial: '2B161FDH200ZNK',
      info: {
        serial: '2B161FDH200ZNK',
        manufacturer: 'Google',
        model: 'Pixel 7',
        androidVersion: '14',
        sdk: 34,
        abi: 'arm64-v8a',
        screen: { width: 1080, height: 2400 },
      },
    });
    expect(events.slice(0, 3)).toEqual([
      { type: 'server', connected: true },
      { type: 'attached', serial: '2B161FDH200ZNK', state: 'device' },
      { type: 'attached', serial: 'R58N91XYZ', state: 'unauthorized' },
    ]);
    expect(host.list().map((device) => [device.serial, device.state, device.info?.model ?? null])).toEqual([
      ['2B161FDH200ZNK', 'device', 'Pixel 7'],
      ['R58N91XYZ', 'unauthorized', null],
    ]);
    expect(server.requests).toContain('host:track-devices');
    expect(server.requests).toContain('host:transport:2B161FDH200ZNK');
  });

  it('follows plugging, authorising, going offline and unplugging', async () => {
    startHost();
    await host.start();
    const first = instagramPhone('SERIAL-A');
    const ready = next((event) => event.type === 'ready' && event.serial === 'SERIAL-A');
    server.plug(first, 'unauthorized');
    await next((event) => event.type === 'attached');
    server.setState('SERIAL-A', 'device');
    await ready;
    const offline = next((event) => event.type === 'state' && event.state === 'offline');
    server.setState('SERIAL-A', 'offline');
    await offline;
    expect(host.phone('SERIAL-A')).toBeNull();
    const gone = next((event) => event.type === 'detached');
    server.unplug('SERIAL-A');
    await gone;
    expect(events.map((event) => `${event.type}${'serial' in event ? ` ${event.serial}` : ''}${'state' in event ? ` ${event.state}` : ''}`)).toEqual([
      'server',
      'attached SERIAL-A unauthorized',
      'state SERIAL-A device',
      'ready SERIAL-A',
      'state SERIAL-A offline',
      'detached SERIAL-A',
    ]);
    expect(host.list()).toEqual([]);
  });

  it('reports a phone that stops answering and the moment it answers again', async () => {
    const phone = instagramPhone('FROZEN-1');
    server.plug(phone);
    startHost({ probeMs: 0, phone: { commandTimeoutMs: 150, unresponsiveAfter: 2 } });
    await host.start();
    await readyPhone('FROZEN-1');
    phone.frozen = true;
    const silent = next((event) => event.type === 'unresponsive');
    await host.probe();
    await host.probe();
    expect(await silent).toMatchObject({ type: 'unresponsive', serial: 'FROZEN-1', reason: '"echo farm-ok" got no answer within 150 ms.' });
    phone.frozen = false;
    const back = next((event) => event.type === 'responsive');
    await host.probe();
    expect(await back).toEqual({ type: 'responsive', serial: 'FROZEN-1' });
  });

  it('pings only a phone that answered nothing within the probe interval', async () => {
    const fake = instagramPhone('QUIET-1');
    server.plug(fake);
    // The interval's own timer never fires in this test: each round is called here, on a clock moved by hand.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      startHost({ probeMs: 60_000 });
      await host.start();
      await readyPhone('QUIET-1');
      const pings = () => fake.commands.filter((command) => command === 'echo farm-ok').length;
      await host.probe();
      expect(pings()).toBe(0);
      vi.advanceTimersByTime(60_000);
      await host.probe();
      expect(pings()).toBe(1);
      await host.probe();
      expect(pings()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops its phones when the adb server goes away and finds them again when it is back', async () => {
    server.plug(instagramPhone('SERIAL-B'));
    startHost();
    await host.start();
    await readyPhone('SERIAL-B');
    const lost = next((event) => event.type === 'server' && !event.connected);
    const again = next((event) => event.type === 'ready' && event.serial === 'SERIAL-B');
    server.dropTrackers();
    await lost;
    expect(events.filter((event) => event.type === 'detached')).toEqual([{ type: 'detached', serial: 'SERIAL-B' }]);
    await again;
    expect(events.filter((event) => event.type === 'server').map((event) => event.type === 'server' && event.connected)).toEqual([true, false, true]);
  });
});

describe('a farm host whose adb server is gone', () => {
  it('reports it, drops the phones and keeps trying without ending the process', async () => {
    server.plug(instagramPhone('SERIAL-C'));
    startHost({ reconnectMs: 10 });
    await host.start();
    await readyPhone('SERIAL-C');
    const down = next((event) => event.type === 'server' && !event.connected);
    await server.close();
    await down;
    const retried = next((event) => event.type === 'server' && !event.connected);
    await retried;
    expect(host.list()).toEqual([]);
    expect(host.serverConnected).toBe(false);
    expect(events.filter((event) => event.type === 'detached')).toEqual([{ type: 'detached', serial: 'SERIAL-C' }]);
  });
});

describe('a phone over adb', () => {
  let fake: FakeAndroid & { at: string };
  let phone: AdbPhone;

  beforeEach(async () => {
    fake = instagramPhone('2B161FDH200ZNK');
    server.plug(fake);
    // These cases read with `uiautomator dump`, one dump a read, so the runner's own retry of a busy screen shows;
    // the UI server and the dump's retries are covered in adb.uiserver.test.ts.
    startHost({ phone: { uiServer: false, dumpAttempts: 1 } });
    await host.start();
    phone = await readyPhone('2B161FDH200ZNK');
  });

  it('reads battery, screen, foreground app and network', async () => {
    expect(await phone.battery()).toEqual({ level: 76, charging: true, plugged: 'usb', temperatureC: 28.7 });
    expect(await phone.screen()).toEqual({ on: true });
    fake.power = fixture('dumpsys-power-off.txt');
    expect(await phone.screen()).toEqual({ on: false });
    expect(await phone.foregroundApp()).toEqual({ package: 'com.instagram.android', activity: 'com.instagram.mainactivity.InstagramMainActivity' });
    expect(await phone.network()).toEqual({ connected: true, transport: 'wifi' });
    expect(fake.commands).toContain(`dumpsys power | grep -E 'mWakefulness=|Display Power: state='`);
    expect(await readPhoneStatus(phone)).toEqual({
      battery: { level: 76, charging: true, plugged: 'usb', temperatureC: 28.7 },
      screen: { on: false },
      foreground: { package: 'com.instagram.android', activity: 'com.instagram.mainactivity.InstagramMainActivity' },
      network: { connected: true, transport: 'wifi' },
      answered: true,
    });
    // A heartbeat's reading is one shell on the phone; a part it cannot read is left out, the others stay.
    const before = server.requests.filter((request) => request.startsWith('shell:')).length;
    fake.battery = 'Current Battery Service state:\n';
    expect(await readPhoneStatus(phone)).toEqual({
      battery: null,
      screen: { on: false },
      foreground: { package: 'com.instagram.android', activity: 'com.instagram.mainactivity.InstagramMainActivity' },
      network: { connected: true, transport: 'wifi' },
      answered: true,
    });
    expect(server.requests.filter((request) => request.startsWith('shell:')).length - before).toBe(1);
  });

  it('takes screenshots with screencap, scaled and JPEG-encoded', async () => {
    const shot = await phone.screenshot();
    expect([shot.mime, shot.width, shot.height]).toEqual(['image/jpeg', 324, 720]);
    const meta = await sharp(shot.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 324, 720]);
    const large = await phone.screenshot({ maxSide: 1280, quality: 50 });
    expect([large.width, large.height]).toEqual([576, 1280]);
    expect(server.requests.filter((request) => request === 'shell:echo && screencap -p 2>/dev/null')).toHaveLength(2);
    // The screen held still: the phone is asked again, its picture is not encoded again.
    const again = await phone.screenshot();
    expect(again.data).toBe(shot.data);
    expect(again.capturedAt >= shot.capturedAt).toBe(true);
    expect(server.requests.filter((request) => request === 'shell:echo && screencap -p 2>/dev/null')).toHaveLength(3);
    fake.at = 'search';
    const moved = await phone.screenshot();
    expect(moved.data).not.toBe(shot.data);
  });

  it('sends input through one persistent shell, in order', async () => {
    await phone.tap(540, 1200);
    await phone.swipe({ x: 540, y: 1800 }, { x: 540, y: 600 }, 300);
    await phone.longPress(68, 1846, 800);
    await phone.key('back');
    await phone.text('Golden hour 50%sale');
    expect(fake.inputs).toEqual([
      'tap 540 1200',
      'swipe 540 1800 540 600 300',
      'swipe 68 1846 68 1846 800',
      'keyevent 4',
      'text Golden%shour%s50%',
      'text sale',
    ]);
    expect(fake.shellsOpened).toBe(1);
    expect(phone.inputShellsOpened).toBe(1);
    expect(server.requests.filter((request) => request === 'shell:sh')).toHaveLength(1);
    await expect(phone.text('café ☀️')).rejects.toThrow(
      "This text has characters that need the ADB Keyboard app as the phone's keyboard (input text types ASCII only).",
    );
  });

  it('pushes a media file and registers it with the media scanner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'farm-media-'));
    const file = join(dir, 'pier.jpg');
    const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(150_000, 7)]);
    writeFileSync(file, bytes);
    expect(await phone.pushMedia(file)).toBe('/sdcard/DCIM/Farm/pier.jpg');
    expect(fake.pushed).toHaveLength(1);
    expect(fake.pushed[0]?.path).toBe('/sdcard/DCIM/Farm/pier.jpg');
    expect(fake.pushed[0]?.mode).toBe(0o100644);
    expect(fake.pushed[0]?.data.equals(bytes)).toBe(true);
    expect(fake.scanned).toEqual(['/sdcard/DCIM/Farm/pier.jpg']);
    await expect(phone.pushMedia(join(dir, 'missing.jpg'))).rejects.toThrow(`The media file ${join(dir, 'missing.jpg')} is not on this farm host.`);
  });

  it('opens apps and links, and says when an app is not installed', async () => {
    await phone.launchApp('com.instagram.android');
    expect(fake.launched).toEqual(['com.instagram.android']);
    await expect(phone.launchApp('com.zhiliaoapp.musically')).rejects.toThrow(
      'The app com.zhiliaoapp.musically could not be opened on this phone (is it installed?).',
    );
    expect(await phone.appVersion('com.instagram.android')).toBe('360.0.0.52.192');
    expect(await phone.appVersion('com.zhiliaoapp.musically')).toBeNull();
    await phone.openUrl('https://www.instagram.com/sunny.trails/', 'com.instagram.android');
    expect(fake.opened).toEqual(['https://www.instagram.com/sunny.trails/']);
  });

  it('runs the shipped Instagram post recipe step by step, with the taps it sends', async () => {
    // A phone serving UI trees of a real Instagram (test/fixtures/real): the share handler opens a photo post's caption
    // screen, Share (share_footer_button) puts the pending row over the feed, and the row then reads "Posted!".
    const real = (name: string) => fixture(`real/instagram/${name}.xml`);
    const state = { at: 'feed', pendingReads: 2 };
    const poster = new FakeAndroid({
      serial: 'POSTER-1',
      screen: () => {
        if (state.at === 'pending' && state.pendingReads-- <= 0) state.at = 'posted';
        return real(
          state.at === 'caption' ? 'caption-photo' : state.at === 'pending' ? 'feed-upload-pending' : state.at === 'posted' ? 'feed-upload-posted' : 'feed',
        );
      },
      screencap: () => png,
      packages: ['com.instagram.android'],
    });
    poster.onIntent = (intent) => {
      if (intent.component === 'com.instagram.android/com.instagram.share.handleractivity.ShareHandlerActivity') state.at = 'caption';
    };
    poster.onInput = (input) => {
      const tap = /^tap (\d+) (\d+)$/.exec(input);
      if (tap && state.at === 'caption' && nodeAt(real('caption-photo'), Number(tap[1]), Number(tap[2]))?.resourceId.endsWith(':id/share_footer_button'))
        state.at = 'pending';
    };
    server.plug(poster);
    const posting = await readyPhone('POSTER-1');
    const dir = mkdtempSync(join(tmpdir(), 'farm-media-'));
    writeFileSync(join(dir, 'pier.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    const recipe = resolveRecipe({ routine: 'create_post', platform: 'instagram', appVersion: '360.0.0.52.192' })?.recipe;
    if (!recipe) throw new Error('no recipe');
    const labels: string[] = [];
    const result = await runRecipe(
      posting,
      recipe,
      { media: [join(dir, 'pier.jpg')], caption: 'Golden hour at the pier', hashtags: ['#sunset', '#travel'] },
      {
        clock: manualClock(),
        random: seededRandom(1),
        onProgress: (event) => event.status === 'done' && labels.push(event.label),
        media: { files: [join(dir, 'pier.jpg')], dir },
      },
    );
    expect(result.failure).toBeUndefined();
    expect(result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    expect(poster.pushed.map((item) => item.path)).toEqual(['/sdcard/DCIM/Farm/pier.jpg']);
    expect(poster.intents).toEqual([
      {
        action: 'android.intent.action.SEND',
        // The runner names the file's type (image/jpeg) or the family (image/*).
        type: expect.stringMatching(/^image\/(jpeg|\*)$/),
        component: 'com.instagram.android/com.instagram.share.handleractivity.ShareHandlerActivity',
        extras: { 'android.intent.extra.STREAM': 'content://media/external/images/media/1000' },
      },
    ]);
    expect(poster.inputs).toEqual([
      'tap 360 223',
      // `type` empties the field first: to its end, then one deletion per character it shows (here its hint,
      // "Write a caption or add a poll...": a dump cannot tell a hint from text).
      'keyevent 123',
      `keyevent ${Array(32).fill(67).join(' ')}`,
      'text Golden%shour%sat%sthe%spier%s#sunset%s#travel',
      'tap 671 91',
      'tap 360 1293',
    ]);
    expect(poster.fieldText).toBe('Golden hour at the pier #sunset #travel');
    expect(labels).toEqual([
      // No leftover failed-upload banner on this feed: nothing dismissed.
      "A failed upload's banner left from before",
      'Share every file to Instagram',
      'Pause',
      'If caption box shows',
      'Pause',
      'If caption box shows',
      'Pause',
      'If caption box shows',
      'Past the editor screens',
      'Wait for the caption screen',
      'Write the caption',
      'Close the caption editor',
      'If caption ok shows',
      'Share, then wait for Instagram to say Posted',
    ]);
  });

  it('fails a run on a missing element with its reason and a screenshot of the phone', async () => {
    const recipe = recipeSchema.parse({
      id: 'test.missing',
      version: 1,
      name: 'Missing',
      platform: 'instagram',
      routines: ['basic'],
      app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
      elements: { share_button: { id: 'share_footer_button' } },
      steps: [
        { do: 'tap', target: { id: 'row_feed_button_like' }, counts: 'like' },
        { do: 'tap', target: 'share_button', timeout: '2s' },
      ],
    });
    const result = await runRecipe(phone, recipe, {}, { clock: manualClock(), random: () => 0.5 });
    expect(result.failure).toMatchObject({ code: 'element_missing', message: 'Share button did not appear on screen.', step: '1', label: 'Tap share button' });
    expect(result.failure?.screenshot).toMatchObject({ mime: 'image/jpeg', width: 324, height: 720 });
    expect(result.actions.like).toBe(1);
    expect(fake.inputs).toEqual(['tap 68 1846']);
  });

  it('retries a busy-screen dump ("could not get idle state") and goes on', async () => {
    const recipe = recipeSchema.parse({
      id: 'test.busy',
      version: 1,
      name: 'Busy',
      platform: 'instagram',
      routines: ['basic'],
      app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
      steps: [{ do: 'tap', target: { id: 'row_feed_button_like', desc: 'Like' }, counts: 'like' }],
    });
    fake.busyDumps = 2;
    const clock = manualClock();
    const result = await runRecipe(phone, recipe, {}, { clock, random: () => 0.5, busyPauseMs: 1200 });
    expect(result.status).toBe('completed');
    expect(fake.dumps).toBe(3);
    expect(clock.slept).toEqual([1200, 1200]);
    expect(fake.inputs).toEqual(['tap 68 1846']);
    expect(fake.commands.filter((command) => command.includes('uiautomator dump'))).toEqual(
      Array(3).fill('rm -f /data/local/tmp/farm-ui.xml; uiautomator dump /data/local/tmp/farm-ui.xml 2>&1; cat /data/local/tmp/farm-ui.xml 2>/dev/null'),
    );
  });
});

describe("the adb phone's own wall around the media folder", () => {
  it('refuses to push a file outside the media folder, or a link in it leading out, before adb is asked', async () => {
    const media = mkdtempSync(join(tmpdir(), 'farm-media-root-'));
    const outside = mkdtempSync(join(tmpdir(), 'farm-host-'));
    writeFileSync(join(outside, 'adbkey'), 'PRIVATE KEY');
    symlinkSync(join(outside, 'adbkey'), join(media, 'key.jpg'));
    const pushes: string[] = [];
    const device = {
      push: async (_stream: unknown, remote: string) => {
        pushes.push(remote);
        throw new Error('adb was asked to push');
      },
    } as unknown as AdbDevice;
    const guarded = new AdbPhone('WALL-1', device, { uiServer: false, mediaRoot: media });
    for (const file of [join(outside, 'adbkey'), join(media, 'key.jpg'), '/etc/passwd'])
      await expect(guarded.pushMedia(file)).rejects.toMatchObject({
        code: 'unsupported',
        message: expect.stringContaining("Only files of the farm host's media folder"),
      });
    expect(pushes).toEqual([]);
    await guarded.close();
  });
});
