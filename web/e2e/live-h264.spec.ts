/**
 * The live screen on its H.264 path in Debian's headless Chromium: the real agent drives a phone over the real ADB
 * code (adbkit against the fake ADB server), which runs a fake scrcpy-server speaking v3.3.1's protocol and playing
 * ffmpeg-made clips (red, then blue after a touch). The device's Live tab decodes it with WebCodecs onto a canvas and
 * says the path, its frame rate and, after a tap, the input's relay time (input to the first picture the phone sent
 * after applying it); the tap reaches the phone through scrcpy's control socket, not a shell command, and the picture
 * turns blue.
 */
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PhoneAgent } from '@farm/agent-protocol';
import { AdbPhone, createAdbClient } from '@farm/agent-protocol/adb';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { FakeAdbServer } from '../../agent-protocol/test/fake-adb.server';
import { FakeAndroid, fixture } from '../../agent-protocol/test/fake-android';
import { colourClips } from '../../agent-protocol/test/video-phone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { openLiveTab, operatorWithPhone } from './support/live';

/** The colour at the middle of the live canvas, as the page drew it. */
async function centreColour(page: Page, surface: Locator): Promise<{ r: number; g: number; b: number } | null> {
  const handle = await surface.elementHandle();
  return page.evaluate((element) => {
    const canvas = element?.querySelector('canvas');
    if (!canvas || canvas.width === 0 || canvas.style.display === 'none') return null;
    const [r, g, b] = canvas.getContext('2d')!.getImageData(Math.floor(canvas.width / 2), Math.floor(canvas.height / 2), 1, 1).data;
    return { r: r!, g: g!, b: b! };
  }, handle);
}

const isRed = (colour: { r: number; g: number; b: number } | null) => colour !== null && colour.r > 180 && colour.g < 80 && colour.b < 80;
const isBlue = (colour: { r: number; g: number; b: number } | null) => colour !== null && colour.b > 180 && colour.r < 80 && colour.g < 80;

test('watch a phone as H.264, take control, tap, and see the picture answer', async ({ page, baseURL }) => {
  const { name, token } = await operatorWithPhone(page, 'Hana H264', 'Pixel h264');

  // An Android 14 phone on the fake ADB server, with scrcpy-server streaming the clips.
  const adb = new FakeAdbServer();
  await adb.listen();
  const serial = 'R5CW12H264E2E';
  const fake = new FakeAndroid({ serial, getprop: fixture('getprop.txt'), scrcpy: { ...colourClips(), frameMs: 33 } });
  adb.plug(fake);
  const client = createAdbClient({ adbHost: '127.0.0.1', adbPort: adb.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  // The fake phone runs whatever was pushed as the server; the pinned file's hash is checked by the host's own tests.
  const serverFile = join(mkdtempSync(join(tmpdir(), 'e2e-scrcpy-')), 'scrcpy-server-v3.3.1');
  writeFileSync(serverFile, 'stands in for scrcpy-server v3.3.1');
  const phone = new AdbPhone(serial, client.getDevice(serial), { scrcpyServer: async () => serverFile, uiServer: false });
  const running = () => fake.scrcpyServers.filter((server) => server.running).length;
  const touches = () => fake.scrcpyServers.flatMap((server) => server.control).filter((message) => message.type === 'touch').length;
  const backend = await new DeviceBackend(phone, { agentVersion: 'e2e/2', preflight: 'no-account' }).start();
  const agent = new PhoneAgent({ url: baseURL!, token, backend, reconnectionDelayMs: 200 });
  try {
    await expect.poll(() => agent.connected, { timeout: 10_000 }).toBe(true);
    const dialog = await openLiveTab(page, name);

    const screen = dialog.getByRole('img', { name: `Live screen of ${name}` });
    // Decoded here, from the watch stream: the path is named, the picture is the red clip, frames keep coming.
    await expect(dialog.getByText('H.264', { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect.poll(async () => isRed(await centreColour(page, screen)), { timeout: 10_000 }).toBe(true);
    await expect(dialog.getByText(/^[1-9]\d* fps$/)).toBeVisible();
    expect(running()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'live-h264.png') });

    await dialog.getByRole('button', { name: 'Take control' }).click();
    await expect(dialog.getByText('You are in control')).toBeVisible();
    // The controller is moved to the control stream (a second scrcpy-server, the watch one stopped), still H.264.
    await expect.poll(() => fake.scrcpyServers.length, { timeout: 10_000 }).toBe(2);
    await expect.poll(running, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => isRed(await centreColour(page, screen)), { timeout: 10_000 }).toBe(true);

    const box = (await screen.boundingBox())!;
    await screen.click({ position: { x: box.width / 2, y: box.height / 2 } });
    // The tap went through scrcpy's control socket (no shell command), and the picture answers.
    await expect.poll(touches, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(fake.inputs).toEqual([]);
    await expect.poll(async () => isBlue(await centreColour(page, screen)), { timeout: 10_000 }).toBe(true);
    await expect(dialog.getByText(/^Input relay \d+ ms$/)).toBeVisible();
    await expect(dialog.getByText('H.264', { exact: true })).toBeVisible();

    await dialog.getByRole('button', { name: 'Hand back' }).click();
    await expect(dialog.getByRole('button', { name: 'Take control' })).toBeVisible();
    await expect.poll(() => fake.scrcpyServers.length, { timeout: 10_000 }).toBe(3);
    await expect.poll(running, { timeout: 10_000 }).toBe(1);
  } finally {
    agent.close();
    await backend.close();
    await adb.close();
  }
});
