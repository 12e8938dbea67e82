/**
 * Groups' pushed changes: the groups list, every devices list filtered by a group, the campaigns' reads (a campaign's
 * group accounts follow its group) and the analytics a group narrows are read again.
 */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

export function bindGroupEvents(live: LiveCache): Pick<LiveHandlers, 'group.created' | 'group.updated' | 'group.deleted'> {
  const refresh = () => {
    live.refresh('/api/groups');
    live.refresh('/api/devices');
    live.refresh('/api/campaigns');
    live.refresh('/api/analytics/stats');
    live.refresh('/api/analytics/tables/devices');
  };
  return { 'group.created': refresh, 'group.updated': refresh, 'group.deleted': refresh };
}
