/** Members' pushed changes: the members list, and the signed-in person's own name and role as they change. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';
import { ME_KEY } from './auth.api';

export function bindUserEvents(live: LiveCache): Pick<LiveHandlers, 'user.created' | 'user.updated'> {
  const users = live.entity('/api/users');
  const patchMe = (user: { id: string }) =>
    live.queryClient.setQueryData<{ user: { id: string } }>(ME_KEY, (old) => (old && old.user.id === user.id ? { user: { ...old.user, ...user } } : old));
  return {
    'user.created': (user) => {
      users.created(user);
      patchMe(user);
    },
    'user.updated': (user) => {
      users.updated(user);
      patchMe(user);
    },
  };
}
