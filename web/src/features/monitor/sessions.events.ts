/** Sessions' pushed changes: started, paused and ended sessions kept in every cached list by the server's order and filters. */
import { session as sessionRow, sessionListQuery, type Session } from '@farm/contracts';
import { listMatcher } from '../../shared/realtime/list-filters';
import { newestFirst, type LiveCache, type LiveHandlers, type LiveList } from '../../shared/realtime/live-cache';

/** The server's session list: newest first; `active` is whether the session has not ended. */
export const sessionList: LiveList<Session> = {
  path: '/api/sessions',
  compare: newestFirst<Session>('startedAt'),
  matches: listMatcher(sessionListQuery, sessionRow, {
    active: (row, value) => (value === 'true' ? row.endedAt === null : value === 'false' ? row.endedAt !== null : undefined),
  }),
};

/** Reads computed from sessions, refreshed (coalesced) after one changes. */
const derived = ['/api/analytics/performance'];

export function bindSessionEvents(live: LiveCache): Pick<LiveHandlers, 'session.started' | 'session.updated' | 'session.ended'> {
  const changed = (session: Session) => {
    live.merge(sessionList, [session]);
    for (const path of derived) live.refresh(path);
  };
  return { 'session.started': changed, 'session.updated': changed, 'session.ended': changed };
}
