import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes, Route, stubApi } from '../../test/render';
import { AnalyticsPage } from './AnalyticsPage';

const vaRow = { id: 'u2', name: 'Maria Santos', totalTasks: 4, completedTasks: 3, failedTasks: 1, successRate: 75, hours: 6, handsOnHours: 3.46 };

describe('AnalyticsPage', () => {
  it("shows each VA's hands-on hours, sorts by them, and exports device usage for the chosen range", async () => {
    const calls = stubApi({
      'GET /api/analytics/tables/vas?range=7d&sort=totalTasks&order=desc&limit=5': { table: 'vas', total: 1, rows: [vaRow] },
      'GET /api/analytics/tables/vas?range=7d&sort=handsOnHours&order=desc&limit=5': { table: 'vas', total: 1, rows: [vaRow] },
    });
    renderRoutes(<Route path="/analytics" element={<AnalyticsPage />} />, '/analytics');

    const card = screen.getByRole('region', { name: 'VA Performance' });
    const table = await within(card).findByRole('table');
    expect(within(table).getByRole('columnheader', { name: 'Hands-on hours' })).toBeTruthy();
    expect(within(table).getByRole('cell', { name: '3.5' })).toBeTruthy();
    expect(within(card).getByRole('link', { name: 'Export device usage' }).getAttribute('href')).toBe('/api/export/device-usage.csv?range=7d');

    fireEvent.click(within(table).getByRole('button', { name: 'Hands-on hours' }));
    await waitFor(() => expect(calls.some((call) => call.url.includes('sort=handsOnHours'))).toBe(true));
  });
});
