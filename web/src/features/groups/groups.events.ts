/** Groups' pushed changes: the groups list and every devices list filtered by a group are read again. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

export function bindGroupEvents(live: LiveCache): Pick<LiveHandlers, 'group.created' | 'group.updated' | 'group.deleted'> {
  const refresh = () => {
    live.refresh('/api/groups');
    live.refresh('/api/devices');
  };
  return { 'group.created': refresh, 'group.updated': refresh, 'group.deleted': refresh };
}
