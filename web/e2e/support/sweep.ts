/**
 * One page for a sweep over every screen (screenshots, axe): opened once for the describe block, signed in as the
 * seeded operator, and moved from screen to screen inside the running console the way its own links move it (the
 * History API and the router's popstate), so a screen costs its own render and requests, not a new browser context
 * and a full load of the console. A public screen is opened signed out with a full load, as a visitor arrives.
 * After a failed test Playwright starts a new worker, whose `beforeAll` opens a fresh page.
 */
import type { Browser, Page, Response, TestInfo } from '@playwright/test';
import type { SeededFarm } from './seed';
import { openInConsole } from './ui';

export interface SweepPage {
  page: Page;
  /**
   * Shows `path`: signed out (cookies cleared) with a full load when `signedIn` is false, else inside the console.
   * Answers the document's response when it was a full load, null when the console moved without one.
   */
  open(path: string, options: { signedIn: boolean }): Promise<Response | null>;
  close(): Promise<void>;
}

export interface Size {
  viewport: { width: number; height: number };
  isMobile?: boolean;
  hasTouch?: boolean;
}

/** Opens the sweep's page with the project's browser settings at `size` (the describe block's own `test.use` is not seen here). */
export async function openSweepPage(browser: Browser, farm: SeededFarm, testInfo: TestInfo, size: Size): Promise<SweepPage> {
  const use = testInfo.project.use;
  const context = await browser.newContext({
    baseURL: use.baseURL,
    locale: use.locale,
    timezoneId: use.timezoneId,
    userAgent: use.userAgent,
    deviceScaleFactor: use.deviceScaleFactor,
    viewport: size.viewport,
    isMobile: size.isMobile ?? false,
    hasTouch: size.hasTouch ?? false,
    storageState: farm.storageState,
  });
  const page = await context.newPage();
  /** Whether the page holds the signed-in console, which can move to another screen without a load. */
  let inConsole = false;
  return {
    page,
    async open(path, { signedIn }) {
      if (!signedIn) {
        await context.clearCookies();
        inConsole = false;
        return page.goto(path);
      }
      if (!inConsole) {
        await context.addCookies(farm.storageState.cookies);
        const response = await page.goto(path);
        inConsole = true;
        return response;
      }
      await openInConsole(page, path);
      return null;
    },
    close: () => context.close(),
  };
}
