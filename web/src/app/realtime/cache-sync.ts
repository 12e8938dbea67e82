/**
 * The console's pushed events applied to the server-state cache. Each feature owns its events
 * (`features/<feature>/<feature>.events.ts`) over the shared cache tools (`shared/realtime/live-cache.ts`); this
 * file only puts them together, so every event the server pushes has exactly one handler (the type says so), and
 * parses each payload with its schema before a handler sees it.
 */
import { serverEvents, type ServerEventName } from '@farm/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { bindAccountEvents } from '../../features/accounts/accounts.events';
import { bindAnalyticsEvents } from '../../features/analytics/analytics.events';
import { ME_KEY } from '../../features/auth/auth.api';
import { bindUserEvents } from '../../features/auth/users.events';
import { bindCampaignEvents } from '../../features/campaigns/campaigns.events';
import { bindPostEvents } from '../../features/content/posts.events';
import { bindDeviceEvents, PULSE_INTERVAL_MS } from '../../features/devices/devices.events';
import { bindHealthEvents } from '../../features/fleet/health/health.events';
import { bindActivityEvents } from '../../features/monitor/activities.events';
import { bindSessionEvents } from '../../features/monitor/sessions.events';
import { bindRecipeEvents } from '../../features/recipes/recipes.events';
import { bindGroupEvents } from '../../features/groups/groups.events';
import { bindAppEvents } from '../../features/apps/apps.events';
import { bindDryRunEvents } from '../../features/recipes/dryrun/dryrun.events';
import { bindTaskEvents } from '../../features/tasks/tasks.events';
import { createLiveCache, REFRESH_DELAY_MS, type LiveHandlers } from '../../shared/realtime/live-cache';

export { PULSE_INTERVAL_MS } from '../../features/devices/devices.events';
export { REFRESH_DELAY_MS } from '../../shared/realtime/live-cache';

export interface CacheSync {
  /** Applies one pushed event; unknown names and payloads that fail their schema are ignored. */
  apply: (name: string, payload: unknown) => void;
  /** After a reconnect that could not recover missed events: every read is taken afresh. */
  resync: () => void;
  dispose: () => void;
}

function isServerEvent(name: string): name is ServerEventName {
  return Object.hasOwn(serverEvents, name);
}

export function createCacheSync(queryClient: QueryClient, delay = REFRESH_DELAY_MS, pulseInterval = PULSE_INTERVAL_MS): CacheSync {
  const live = createLiveCache(queryClient, {
    delay,
    me: () => queryClient.getQueryData<{ user?: { id?: string } }>(ME_KEY)?.user?.id,
  });
  const handlers: LiveHandlers = {
    ...bindDeviceEvents(live, pulseInterval),
    ...bindSessionEvents(live),
    ...bindActivityEvents(live),
    ...bindTaskEvents(live),
    ...bindCampaignEvents(live),
    ...bindAccountEvents(live),
    ...bindPostEvents(live),
    ...bindUserEvents(live),
    ...bindAnalyticsEvents(live),
    ...bindRecipeEvents(live),
    ...bindGroupEvents(live),
    ...bindHealthEvents(live),
    ...bindAppEvents(live),
    ...bindDryRunEvents(live),
  };

  const apply = (name: string, payload: unknown) => {
    if (!isServerEvent(name)) return;
    const parsed = serverEvents[name].safeParse(payload);
    if (!parsed.success) return;
    // The schema of `name` parsed the payload, so it is the payload of `name`'s handler.
    (handlers[name] as (data: unknown) => void)(parsed.data);
  };

  return {
    apply,
    resync: () => live.resync([String(ME_KEY[0])]),
    dispose: () => live.dispose(),
  };
}
