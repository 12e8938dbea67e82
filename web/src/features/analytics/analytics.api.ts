import type { Leaderboard, LeaderboardTable, Range, Timeseries, TimeseriesMetric, WindowedStats } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { listKey, withQuery } from '../../shared/query';

/** The window every figure is counted over: a preset range, or whole days from–to. */
export type AnalyticsWindow = { range: Range } | { from: string; to: string };

/** The stat cards, of every phone or of one group's (`groupId`). */
export function useWindowedStats(window: AnalyticsWindow, groupId: string | null = null) {
  const params = { ...window, ...(groupId ? { groupId } : {}) };
  return useQuery<WindowedStats>({
    queryKey: listKey('/api/analytics/stats', params),
    queryFn: ({ signal }) => apiRequest<WindowedStats>(withQuery('/api/analytics/stats', params), { signal }),
  });
}

/** A chart's points, of every phone or of one group's (`groupId`). */
export function useTimeseries(window: AnalyticsWindow, metric: TimeseriesMetric, groupId: string | null = null) {
  const params = { ...window, metric, ...(groupId ? { groupId } : {}) };
  return useQuery<Timeseries>({
    queryKey: listKey('/api/analytics/timeseries', params),
    queryFn: ({ signal }) => apiRequest<Timeseries>(withQuery('/api/analytics/timeseries', params), { signal }),
  });
}

export function useLeaderboard(
  window: AnalyticsWindow,
  table: LeaderboardTable,
  options: { sort: string; order: 'asc' | 'desc'; limit: number; groupId?: string | null },
) {
  const { groupId, ...rest } = options;
  // A group narrows the phones table only (the server refuses it on the others).
  const params = { ...window, ...rest, ...(groupId && table === 'devices' ? { groupId } : {}) };
  const path = `/api/analytics/tables/${table}`;
  return useQuery<Leaderboard>({
    queryKey: listKey(path, params),
    queryFn: ({ signal }) => apiRequest<Leaderboard>(withQuery(path, params), { signal }),
  });
}

/** Change against the previous period in percent, one decimal; none when the previous period had nothing. */
export function changeOf(current: number, previous: number | undefined): number | undefined {
  if (previous === undefined || previous === 0) return undefined;
  return Math.round(((current - previous) / previous) * 1000) / 10;
}
