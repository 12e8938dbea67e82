/**
 * The app library's pushed changes: a rollout's phones answer one by one, so `app.rollout` patches the rollouts list
 * at once (the dialog shows each phone's result as it comes); library and pin changes read the library again.
 */
import type { AppRollout } from '@farm/contracts';
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';
import { APPS_PATH, ROLLOUTS_PATH } from './apps.api';

/** The list with this rollout put in its place, or first when it is new. */
export function withRollout(list: readonly AppRollout[] | undefined, rollout: AppRollout): AppRollout[] {
  const rows = list ?? [];
  return rows.some((row) => row.id === rollout.id) ? rows.map((row) => (row.id === rollout.id ? rollout : row)) : [rollout, ...rows];
}

export function bindAppEvents(live: LiveCache): Pick<LiveHandlers, 'app.created' | 'app.deleted' | 'app.pins' | 'app.rollout'> {
  const library = () => live.refresh(APPS_PATH);
  return {
    'app.created': library,
    'app.deleted': library,
    'app.pins': library,
    'app.rollout': (rollout) => {
      live.queryClient.setQueryData<AppRollout[]>([ROLLOUTS_PATH], (list) => withRollout(list, rollout));
    },
  };
}
