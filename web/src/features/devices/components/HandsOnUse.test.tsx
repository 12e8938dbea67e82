import type { DeviceUsageReport } from '@farm/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes, Route, stubApi } from '../../../test/render';
import { HandsOnUse } from './HandsOnUse';

const report: DeviceUsageReport = {
  from: '2026-02-01T00:00:00.000Z',
  to: '2026-03-02T23:59:59.999Z',
  timeZone: 'UTC',
  totals: { watchedSeconds: 7500, controlledSeconds: 2700, sessions: 3 },
  days: [],
  sessions: [
    {
      id: 's2',
      deviceId: 'd1',
      deviceName: 'Pixel 7 #04',
      userId: 'u2',
      userName: 'Maria Santos',
      mode: 'control',
      startedAt: '2026-03-01T10:00:00.000Z',
      endedAt: null,
      seconds: 45,
      endReason: null,
    },
    {
      id: 's1',
      deviceId: 'd1',
      deviceName: 'Pixel 7 #04',
      userId: 'u1',
      userName: 'Ada Lovelace',
      mode: 'watch',
      startedAt: '2026-02-28T09:00:00.000Z',
      endedAt: '2026-02-28T10:05:00.000Z',
      seconds: 3900,
      endReason: 'stopped',
    },
  ],
};

describe('HandsOnUse', () => {
  it("shows a phone's last 30 days: totals, then who watched or controlled it and for how long", async () => {
    const calls = stubApi({ 'GET /api/device-usage?range=30d&deviceId=d1': report });
    renderRoutes(<Route path="/" element={<HandsOnUse deviceId="d1" />} />);

    const block = screen.getByRole('region', { name: 'Hands-on use' });
    expect(await within(block).findByText('2h 5m')).toBeTruthy();
    expect(within(block).getByText('Watched', { selector: 'p' })).toBeTruthy();
    expect(within(block).getByText('45m')).toBeTruthy();
    expect(within(block).getByText('3')).toBeTruthy();
    expect(within(block).getByText('Last 30 days')).toBeTruthy();
    expect(calls.map((call) => call.url)).toEqual(['/api/device-usage?range=30d&deviceId=d1']);

    const rows = within(within(block).getByRole('list', { name: 'Latest hands-on sessions' })).getAllByRole('listitem');
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringMatching(/^Maria SantosControlled.*45s, now$/),
      expect.stringMatching(/^Ada LovelaceWatched.*1h 5m$/),
    ]);
  });

  it("names the phones in a person's use", async () => {
    stubApi({ 'GET /api/device-usage?range=30d&userId=u2': { ...report, sessions: report.sessions.slice(0, 1) } });
    renderRoutes(<Route path="/" element={<HandsOnUse userId="u2" />} />);
    const row = await screen.findByRole('listitem');
    expect(row.textContent).toMatch(/^Pixel 7 #04Controlled/);
  });
});
