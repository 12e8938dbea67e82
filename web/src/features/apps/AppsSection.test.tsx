/** Devices → Apps: the library with recipe coverage, the phones no recipe covers, and a refused rollout's sentence. */
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AppLibrary } from '@farm/contracts';
import { answer, renderScreen, stubApi } from '../../test/render';
import { AppsPage } from './AppsPage';
import { AppsSection } from './AppsSection';
import { RolloutResults } from './RolloutDialog';

const library: AppLibrary = {
  versions: [
    {
      id: 'v1',
      package: 'com.instagram.android',
      versionCode: 372019234,
      versionName: '312.0.0.32.119',
      minSdk: 28,
      abis: ['arm64-v8a'],
      kind: 'split_set',
      fileName: 'instagram.apkm',
      size: 3 * 1024 * 1024,
      files: [
        { name: 'base', size: 2 * 1024 * 1024 },
        { name: 'config.arm64_v8a', size: 1024 * 1024 },
      ],
      coverage: { covered: false, reason: 'com.instagram.android 312.0.0.32.119 is outside the versions Instagram post was tested on.' },
      uploadedAt: '2026-11-27T00:00:00.000Z',
    },
  ],
  pins: [{ groupId: 'g1', package: 'com.instagram.android', versionCode: 372019234, versionName: '312.0.0.32.119', pinnedAt: '2026-11-27T00:00:00.000Z' }],
  maxUploadBytes: 500 * 1024 * 1024,
};

describe('Devices → Apps', () => {
  it('shows the library, what no recipe covers, pins, and a refused rollout in words', async () => {
    const refusal = 'Pixel 1 is in the group "Held", which pins com.instagram.android at 311.0: this rollout would update it past that.';
    const calls = stubApi({
      'GET /api/apps': library,
      'GET /api/apps/coverage': [
        { deviceId: 'd1', deviceName: 'Pixel 1', package: 'com.instagram.android', version: '300.0.0.1.1', reason: 'It is outside the tested range.' },
      ],
      'GET /api/apps/rollouts': [],
      'GET /api/groups': [
        { id: 'g1', name: 'Held', kind: 'group', deviceIds: ['d1'], createdAt: '2026-11-27T00:00:00.000Z', updatedAt: '2026-11-27T00:00:00.000Z' },
      ],
      'GET /api/devices?limit=1000': [],
      'POST /api/apps/rollouts': () => answer(409, { error: refusal }),
    });
    renderScreen(<AppsSection />);
    const table = within(await screen.findByRole('table', { name: 'App library' }));
    expect(table.getByText('312.0.0.32.119 (372019234)')).toBeTruthy();
    expect(table.getByText('instagram.apkm · 2 APKs')).toBeTruthy();
    expect(table.getByText('Not covered')).toBeTruthy();
    expect(await screen.findByText(/has com\.instagram\.android 300\.0\.0\.1\.1: It is outside the tested range\./)).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Unpin com.instagram.android for Held' })).toBeTruthy();

    fireEvent.click(table.getByRole('button', { name: 'Roll out com.instagram.android 312.0.0.32.119 (372019234)' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Roll out an app' }));
    fireEvent.click(dialog.getByRole('button', { name: 'Start Rollout' }));
    expect(await dialog.findByText(refusal)).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST' && call.url === '/api/apps/rollouts')?.body).toMatchObject({
      action: 'update',
      versionId: 'v1',
      firstStageSize: 2,
    });
  });
});

describe('a rollout’s phones', () => {
  it('shows where a long install stands on each phone, with the time so far', () => {
    const phone = (deviceId: string, deviceName: string, status: 'sent' | 'succeeded', code: string | null, reason: string | null) => ({
      deviceId,
      deviceName,
      stage: 1,
      status,
      code,
      reason,
      updatedAt: '2026-11-29T08:00:00.000Z',
    });
    renderScreen(
      <RolloutResults
        rollout={{
          id: 'r1',
          action: 'update',
          package: 'com.instagram.android',
          versionId: 'v1',
          versionCode: 372019234,
          versionName: '312.0.0.32.119',
          firstStageSize: 2,
          allowDowngrade: false,
          status: 'first_stage',
          createdAt: '2026-11-29T08:00:00.000Z',
          finishedAt: null,
          phones: [
            phone('d1', 'Pixel 1', 'sent', 'installing', 'Installing on the phone… 40 s'),
            phone('d2', 'Pixel 2', 'sent', 'waiting_for_task', 'Waiting for the phone’s task to end… 12 s'),
            phone('d3', 'Pixel 3', 'sent', null, null),
            phone('d4', 'Pixel 4', 'succeeded', null, null),
          ],
        }}
      />,
    );
    const row = (name: string) => within(screen.getByRole('row', { name }));
    expect(row('Pixel 1: Installing').getByText('Installing on the phone… 40 s')).toBeTruthy();
    expect(row('Pixel 2: Waiting for its task').getByText('Waiting for the phone’s task to end… 12 s')).toBeTruthy();
    expect(screen.getByRole('row', { name: 'Pixel 3: Installing' })).toBeTruthy();
    expect(screen.getByRole('row', { name: 'Pixel 4: Succeeded' })).toBeTruthy();
  });
});

describe('Devices → Apps, the tab', () => {
  it('is a tab of Devices for an operator', async () => {
    stubApi({ 'GET /api/apps': library, 'GET /api/apps/coverage': [], 'GET /api/apps/rollouts': [], 'GET /api/groups': [] });
    renderScreen(<AppsPage />, { path: '/devices/apps', route: '/devices/apps' });
    const tabs = within(await screen.findByRole('navigation', { name: 'Devices' }));
    expect(tabs.getByRole('link', { name: 'Apps' }).getAttribute('aria-current')).toBe('page');
    expect(tabs.getByRole('link', { name: 'Devices' }).getAttribute('href')).toBe('/devices');
    expect(await screen.findByRole('region', { name: 'Apps' })).toBeTruthy();
  });

  it("reads 'Page Not Found' for a VA", async () => {
    stubApi({});
    renderScreen(<AppsPage />, { path: '/devices/apps', route: '/devices/apps', role: 'va' });
    expect(await screen.findByRole('heading', { name: 'Page Not Found' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Apps' })).toBeNull();
  });
});
