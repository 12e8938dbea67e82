/** Every screen of the console, with the path to open and what shows it is ready to look at. */
import { expect, type Page } from '@playwright/test';
import type { SeededFarm } from './seed';

export interface Screen {
  /** File-name friendly. */
  name: string;
  path: (farm: SeededFarm) => string;
  /** Inside the signed-in shell (theme toggle in the header). */
  shell: boolean;
  ready: (page: Page, farm: SeededFarm) => Promise<void>;
}

const heading = (name: string | RegExp) => async (page: Page) => {
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
};

/** No 'Loading ...' status left on the page. */
async function settled(page: Page): Promise<void> {
  await expect(page.getByRole('status').filter({ hasText: /^Loading/ })).toHaveCount(0);
}

const shellScreen = (name: string, path: string, title: string, extra?: (page: Page, farm: SeededFarm) => Promise<void>): Screen => ({
  name,
  path: () => path,
  shell: true,
  ready: async (page, farm) => {
    await heading(title)(page);
    await settled(page);
    await extra?.(page, farm);
  },
});

const settingsParts = [
  ['two-factor', 'Two-factor sign-in'],
  ['sessions', 'Sessions'],
  ['workspace', 'Workspace'],
  ['members', 'Members'],
  ['invitations', 'Invitations'],
  ['hosts', 'Phone hosts'],
  ['wall-links', 'Wall screens'],
  ['storage', 'Storage'],
  ['notifications', 'Notifications'],
  ['alerts', 'Alerts'],
  ['audit-log', 'Audit log'],
] as const;

export const publicScreens: readonly Screen[] = [
  {
    name: 'landing',
    path: () => '/',
    shell: false,
    ready: async (page) => {
      await heading('Social media automation on a fleet of real phones')(page);
      await expect(page.getByText('250%', { exact: true })).toBeVisible();
      // The hero's animation (with its pause button) and the brand carousel arrive just after the first paint.
      await expect(page.getByRole('button', { name: 'Pause animation' })).toBeVisible();
      await expect(page.getByLabel('Customer brands')).toBeVisible();
    },
  },
  { name: 'login', path: () => '/login', shell: false, ready: heading('Welcome back') },
  { name: 'signup', path: () => '/signup', shell: false, ready: heading('Get Started') },
  { name: 'not-found', path: () => '/no-such-page', shell: false, ready: heading('Page Not Found') },
];

export const shellScreens: readonly Screen[] = [
  shellScreen('dashboard', '/dashboard', 'Dashboard', async (page, farm) => {
    await expect(page.getByText(farm.deviceNames[0] ?? '', { exact: true }).first()).toBeVisible();
  }),
  shellScreen('campaigns', '/campaigns', 'Campaign Engine', async (page) => {
    await expect(page.getByRole('link', { name: 'Summer Fitness Push' })).toBeVisible();
  }),
  {
    ...shellScreen('campaign-detail', '', 'Summer Fitness Push', async (page) => {
      await expect(page.getByRole('list', { name: 'Automation routines' })).toBeVisible();
      await expect(page.getByRole('list', { name: 'Linked accounts' })).toBeVisible();
    }),
    path: (farm) => `/campaigns/${farm.campaignId}`,
  },
  shellScreen('content', '/content', 'Content', async (page) => {
    await expect(page.getByRole('article').first()).toBeVisible();
  }),
  shellScreen('accounts', '/accounts', 'Social Media Accounts', async (page) => {
    await expect(page.getByText('@fit_with_grace')).toBeVisible();
  }),
  { ...shellScreen('account-detail', '', '@fit_with_grace'), path: (farm) => `/accounts/${farm.accountId}` },
  shellScreen('devices', '/devices', 'Devices', async (page, farm) => {
    await expect(page.getByRole('article', { name: farm.deviceNames[0] })).toBeVisible();
  }),
  shellScreen('tasks', '/tasks', 'Tasks', async (page) => {
    await expect(page.getByRole('article', { name: 'Post the morning reel' })).toBeVisible();
  }),
  shellScreen('vas', '/vas', 'Virtual Assistants', async (page, farm) => {
    await expect(page.getByRole('article', { name: farm.va.name })).toBeVisible();
  }),
  shellScreen('monitor', '/monitor', 'Live Monitor', async (page, farm) => {
    await expect(page.getByRole('listitem', { name: `Session on ${farm.deviceNames[0]}` })).toBeVisible();
  }),
  shellScreen('analytics', '/analytics', 'Analytics', async (page) => {
    await expect(page.locator('.recharts-surface').first()).toBeVisible();
  }),
  shellScreen('settings', '/settings', 'Settings', async (page) => {
    await expect(page.getByRole('region', { name: 'Profile', exact: true })).toBeVisible();
  }),
  // Settings' other parts, each at its own address, and the parts that moved out of it.
  ...settingsParts.map(([slug, region]) =>
    shellScreen(`settings-${slug}`, `/settings/${slug}`, 'Settings', async (page) => {
      await expect(page.getByRole('region', { name: region, exact: true })).toBeVisible();
    }),
  ),
  shellScreen('devices-apps', '/devices/apps', 'Apps', async (page) => {
    await expect(page.getByRole('region', { name: 'Apps', exact: true })).toBeVisible();
  }),
  shellScreen('campaigns-recipes', '/campaigns/recipes', 'Recipes', async (page) => {
    await expect(page.getByRole('region', { name: 'Recipe health', exact: true })).toBeVisible();
  }),
  {
    ...shellScreen('recipe-editor', '', 'Instagram publish a post', async (page) => {
      await expect(page.getByRole('textbox', { name: 'Recipe JSON' })).toBeVisible();
    }),
    path: (farm) => `/recipes/${farm.recipeId}`,
  },
  shellScreen('content-calendar', '/content/calendar', 'Content Calendar', async (page) => {
    await expect(page.locator('[data-post-id]').first()).toBeVisible();
  }),
];

export const allScreens: readonly Screen[] = [...publicScreens, ...shellScreens];
