/**
 * The live screen on its H.264 path in Debian's headless Chromium: a phone whose agent streams H.264 through the real
 * scrcpy session code (a fake scrcpy-server playing ffmpeg-made clips: red, then blue after a touch) is shown on the
 * device's Live tab, decoded by the browser's WebCodecs and drawn on a canvas; the tab says the path, its frame rate
 * and, after a tap, the input latency (input to the first picture showing it); the tap reaches the phone through
 * scrcpy's control socket and the picture turns blue.
 */
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { PhoneAgent } from '@farm/agent-protocol';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { VideoSimPhone } from '../../agent-protocol/test/video-phone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { PASSWORD, unique, uniqueEmail } from './support/ui';

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
  const json = { 'Content-Type': 'application/json' };
  expect(
    (
      await page.request.post('/api/auth/signup', {
        data: { name: 'Hana H264', email: uniqueEmail('hana'), password: PASSWORD, role: 'operator' },
        headers: json,
      })
    ).status(),
  ).toBe(201);
  const name = unique('Pixel h264');
  const device = (await (await page.request.post('/api/devices', { data: { name }, headers: json })).json()) as { id: string };
  const credential = (await (await page.request.post(`/api/devices/${device.id}/credentials`, { data: {}, headers: json })).json()) as { token: string };

  const phone = new VideoSimPhone({ serial: 'SIM-E2E-H264', width: 1080, height: 2400 });
  const backend = await new DeviceBackend(phone, { agentVersion: 'e2e/2', preflight: 'no-account' }).start();
  const agent = new PhoneAgent({ url: baseURL!, token: credential.token, backend, reconnectionDelayMs: 200 });
  try {
    await expect.poll(() => agent.connected, { timeout: 10_000 }).toBe(true);
    await page.goto('/devices');
    const card = page.getByRole('article', { name });
    await card.getByRole('button', { name: `Actions for ${name}` }).click();
    await page.getByRole('menuitem', { name: 'View Details' }).click();
    const dialog = page.getByRole('dialog', { name: `Device: ${name}` });
    await dialog.getByRole('tab', { name: 'Live' }).click();

    const screen = dialog.getByRole('img', { name: `Live screen of ${name}` });
    // Decoded here, from the watch stream: the path is named, the picture is the red clip, frames keep coming.
    await expect(dialog.getByText('H.264', { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect.poll(async () => isRed(await centreColour(page, screen)), { timeout: 10_000 }).toBe(true);
    await expect(dialog.getByText(/^[1-9]\d* fps$/)).toBeVisible();
    expect(phone.running()).toEqual(['watch']);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'live-h264.png') });

    await dialog.getByRole('button', { name: 'Take control' }).click();
    await expect(dialog.getByText('You are in control')).toBeVisible();
    // The controller is moved to the control stream, still H.264.
    await expect.poll(() => phone.running(), { timeout: 10_000 }).toEqual(['control']);
    await expect.poll(async () => isRed(await centreColour(page, screen)), { timeout: 10_000 }).toBe(true);

    const box = (await screen.boundingBox())!;
    await screen.click({ position: { x: box.width / 2, y: box.height / 2 } });
    // The tap went through scrcpy's control socket (no shell command), and the picture answers.
    await expect.poll(() => phone.scrcpy.control.filter((message) => message.type === 'touch').length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(phone.taps).toHaveLength(0);
    await expect.poll(async () => isBlue(await centreColour(page, screen)), { timeout: 10_000 }).toBe(true);
    await expect(dialog.getByText(/^Input \d+ ms$/)).toBeVisible();
    await expect(dialog.getByText('H.264', { exact: true })).toBeVisible();

    await dialog.getByRole('button', { name: 'Hand back' }).click();
    await expect(dialog.getByRole('button', { name: 'Take control' })).toBeVisible();
    await expect.poll(() => phone.running(), { timeout: 10_000 }).toEqual(['watch']);
  } finally {
    agent.close();
    await backend.close();
  }
});
