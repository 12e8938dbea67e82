/**
 * Groups' pushed changes: the groups list, every devices list filtered by a group, and the campaigns' reads (a
 * campaign's group accounts follow its group) are read again.
 */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

export function bindGroupEvents(live: LiveCache): Pick<LiveHandlers, 'group.created' | 'group.updated' | 'group.deleted'> {
  const refresh = () => {
    live.refresh('/api/groups');
    live.refresh('/api/devices');
    live.refresh('/api/campaigns');
  };
  return { 'group.created': refresh, 'group.updated': refresh, 'group.deleted': refresh };
}
