/** The dashboard's figures pushed as they change. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

const STATS_PATH = '/api/analytics/stats';

export function bindAnalyticsEvents(live: LiveCache): Pick<LiveHandlers, 'stats.changed'> {
  return {
    'stats.changed': (stats) => {
      live.queryClient.setQueryData([STATS_PATH], stats);
      // The pushed figures are all-time; ranged ones are refetched.
      live.later(
        'stats#ranged',
        () => void live.queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === STATS_PATH && query.queryKey.length > 1 }),
      );
    },
  };
}
