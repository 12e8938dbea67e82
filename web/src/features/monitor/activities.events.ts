/** The activity feeds' pushed changes: new activity goes on top of every cached feed it belongs to. */
import { activity as activityRow, activityListQuery, type Activity } from '@farm/contracts';
import { cannotTell, listMatcher } from '../../shared/realtime/list-filters';
import { filtersOf, hasId, type LiveCache, type LiveHandlers } from '../../shared/realtime/live-cache';

const ACTIVITIES_PATH = '/api/activities';
/** The API's page size for the activity feed when a read asks for none. */
const DEFAULT_LIMIT = 100;

/** Whether a new activity belongs to a feed cached under these filters; a time window is not told (left as it is). */
export const activityMatches = listMatcher(activityListQuery, activityRow, { from: cannotTell, to: cannotTell });

export function bindActivityEvents(live: LiveCache): Pick<LiveHandlers, 'activity.created'> {
  return {
    // Feeds keep their page size; a feed the browser cannot decide for waits for its next read.
    'activity.created': (activity: Activity) => {
      for (const query of live.lists(ACTIVITIES_PATH)) {
        const filters = filtersOf(query) ?? {};
        if (activityMatches(activity, filters, live.me()) !== true) continue;
        const limit = Number(filters.limit ?? DEFAULT_LIMIT);
        live.queryClient.setQueryData<unknown>(query.queryKey, (old: unknown) =>
          Array.isArray(old) && !old.some((row: unknown) => hasId(row) && row.id === activity.id) ? [activity, ...old].slice(0, limit) : old,
        );
      }
    },
  };
}
