/**
 * The built console under its Content-Security-Policy, in Chromium: no screen causes a CSP violation (scripts,
 * styles, images such as the two-factor QR code, the socket connection), other sites cannot frame the console,
 * and the wall screen can be framed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page } from '@playwright/test';
import { allScreens } from './support/pages';
import { test } from './support/seed';
import { openSweepPage, type SweepPage } from './support/sweep';

/** Collects every CSP violation the page reports, from the DOM event and from the console: each call answers those since the last. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const fromConsole: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Refused to (load|execute|apply|connect|frame)/i.test(text)) fromConsole.push(text);
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return async () => [
    ...fromConsole.splice(0),
    ...(await page.evaluate(() => ((window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []).splice(0))),
  ];
}

test.describe('Content-Security-Policy', () => {
  // Every screen on one page, as a11y.spec.ts sweeps them: a full load for the public screens and the first console
  // screen (whose response carries the policy), then the console's own navigation, under the same document's policy.
  let sweep: SweepPage;
  let violations: () => Promise<string[]>;
  test.beforeAll(async ({ browser, farm }, testInfo) => {
    sweep = await openSweepPage(browser, farm, testInfo, { viewport: { width: 1280, height: 800 } });
    violations = await watchViolations(sweep.page);
  });
  test.afterAll(async () => {
    await sweep?.close();
  });

  for (const screen of allScreens) {
    test(`${screen.name} renders with no violation`, async ({ farm }) => {
      const response = await sweep.open(screen.path(farm), { signedIn: screen.shell });
      if (response) expect(response.headers()['content-security-policy']).toContain("script-src 'self'");
      await screen.ready(sweep.page, farm);
      expect(await violations()).toEqual([]);
    });
  }

  test('the two-factor QR code, the reset page and the wall screen render with no violation', async ({ page, farm }) => {
    const violations = await watchViolations(page);
    await page.goto('/settings/two-factor');
    await page.getByRole('button', { name: 'Turn On Two-Factor Sign-In' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await expect(qr).toBeVisible();
    expect(await qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
    await page.getByRole('button', { name: 'Close' }).click();

    await page.goto('/reset-password?token=not-a-real-one');
    await expect(page.getByRole('alert')).toContainText('This password reset link is invalid or has expired');

    const link = await page.request.post('/api/wall-links', { data: { name: 'CSP TV' } });
    expect(link.status()).toBe(201);
    const { url } = (await link.json()) as { url: string };
    await page.goto(url);
    await expect(page.getByText(farm.deviceNames[0]!)).toBeVisible();
    expect(await violations()).toEqual([]);
  });
});

test.describe('framing', () => {
  test('another site cannot frame the console; it can frame the wall screen', async ({ page, baseURL }) => {
    const link = await page.request.post('/api/wall-links', { data: { name: 'Framed TV' } });
    const { url } = (await link.json()) as { url: string };
    // Another site on this machine (another port, so another origin) whose page frames the login and the wall screen.
    const html = `<!doctype html><iframe id="console" src="${baseURL}/login" width="600" height="400"></iframe><iframe id="wall" src="${new URL(url, baseURL).toString()}" width="600" height="400"></iframe>`;
    const framer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/frame-ancestors/.test(message.text())) refused.push(message.text());
      });
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      await expect(page.frameLocator('#wall').getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.frameLocator('#console').getByRole('button', { name: 'Login' })).toHaveCount(0);
      await expect.poll(() => refused.length).toBeGreaterThan(0);
      expect(refused.join('\n')).toContain("frame-ancestors 'none'");
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });
});
