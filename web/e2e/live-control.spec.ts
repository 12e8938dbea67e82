/**
 * The live screen in a real browser: a simulated phone's agent (the real agent, driving the simulated phone UI in this
 * process) streams to the device's Live tab; the person takes control and clicks the Instagram icon on the image; the
 * phone records the tap at that point of its own 1080 × 2400 screen, the app opens, and the live image shows it.
 */
import { expect, test } from '@playwright/test';
import { openLiveTab, operatorWithPhone, simulatedAgent } from './support/live';

test('watch a phone live, take control, and tap it from the browser', async ({ page, baseURL }) => {
  const { name, token } = await operatorWithPhone(page, 'Lior Live', 'Pixel live');
  const { ui, agent, stop } = await simulatedAgent(baseURL!, token, 'SIM-E2E-LIVE');
  try {
    const dialog = await openLiveTab(page, name);

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
    await expect(dialog.getByText(/Input relay \d+ ms/)).toBeVisible();

    await dialog.getByRole('button', { name: 'Hand back' }).click();
    await expect(dialog.getByRole('button', { name: 'Take control' })).toBeVisible();
  } finally {
    await stop();
  }
});
