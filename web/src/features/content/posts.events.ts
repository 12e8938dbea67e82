/** Posts' pushed changes: rows patched where they are cached, lists that may change refetched. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

export function bindPostEvents(live: LiveCache): Pick<LiveHandlers, 'post.created' | 'post.updated' | 'post.deleted'> {
  const posts = live.entity('/api/posts');
  return { 'post.created': posts.created, 'post.updated': posts.updated, 'post.deleted': posts.deleted };
}
