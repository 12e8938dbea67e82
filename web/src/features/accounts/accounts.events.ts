/** Accounts' pushed changes: rows patched where they are cached, lists that may change refetched. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

export function bindAccountEvents(live: LiveCache): Pick<LiveHandlers, 'account.created' | 'account.updated' | 'account.deleted'> {
  const accounts = live.entity('/api/accounts');
  return { 'account.created': accounts.created, 'account.updated': accounts.updated, 'account.deleted': accounts.deleted };
}
