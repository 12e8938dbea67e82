/**
 * The live screen in a real browser: a simulated phone's agent (the real agent, driving the simulated phone UI in this
 * process) streams to the device's Live tab; the person takes control and clicks the Instagram icon on the image; the
 * phone records the tap at that point of its own 1080 × 2400 screen, the app opens, and the live image shows it.
 */
import { expect, test } from '@playwright/test';
import { PhoneAgent } from '@farm/agent-protocol';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import { PASSWORD, unique, uniqueEmail } from './support/ui';

test('watch a phone live, take control, and tap it from the browser', async ({ page, baseURL }) => {
  const json = { 'Content-Type': 'application/json' };
  expect(
    (
      await page.request.post('/api/auth/signup', {
        data: { name: 'Lior Live', email: uniqueEmail('lior'), password: PASSWORD, role: 'operator' },
        headers: json,
      })
    ).status(),
  ).toBe(201);
  const name = unique('Pixel live');
  const created = await page.request.post('/api/devices', { data: { name }, headers: json });
  expect(created.status()).toBe(201);
  const device = (await created.json()) as { id: string };
  const issued = await page.request.post(`/api/devices/${device.id}/credentials`, { data: {}, headers: json });
  expect(issued.status()).toBe(201);
  const credential = (await issued.json()) as { token: string };

  const ui = new SimulatedPhoneUi({ serial: 'SIM-E2E-LIVE', width: 1080, height: 2400 });
  const backend = await new DeviceBackend(ui, { agentVersion: 'e2e/2' }).start();
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
    await expect(screen).toBeVisible({ timeout: 10_000 });
    await expect.poll(() => agent.live.sent, { timeout: 10_000 }).toBeGreaterThan(5);
    const home = await screen.screenshot();

    await dialog.getByRole('button', { name: 'Take control' }).click();
    await expect(dialog.getByText('You are in control')).toBeVisible();

    // The Instagram icon sits at (250, 1850) on the phone: click the same point of the image.
    const box = (await screen.boundingBox())!;
    await screen.click({ position: { x: box.width * (250 / 1080), y: box.height * (1850 / 2400) } });
    await expect.poll(() => ui.taps.length, { timeout: 5000 }).toBeGreaterThan(0);
    const tap = ui.taps.at(-1)!;
    expect(Math.abs(tap.x - 250)).toBeLessThan(1080 / box.width + 4);
    expect(Math.abs(tap.y - 1850)).toBeLessThan(2400 / box.height + 4);
    expect(tap.hit).toBe('Instagram');
    expect(ui.where).toBe('instagram/feed');

    // The live image shows the app now, and the console says the input's latency.
    await expect.poll(async () => (await screen.screenshot()).equals(home), { timeout: 5000 }).toBe(false);
    await expect(dialog.getByText(/Input \d+ ms/)).toBeVisible();

    await dialog.getByRole('button', { name: 'Hand back' }).click();
    await expect(dialog.getByRole('button', { name: 'Take control' })).toBeVisible();
  } finally {
    agent.close();
    await backend.close();
  }
});
