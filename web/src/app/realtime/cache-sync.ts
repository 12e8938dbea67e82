/**
 * Live events applied to the server-state cache: the cache holds REST snapshots, and each pushed change
 * either patches the rows it names or marks the affected reads stale. Lists are keyed [path] or
 * [path, filters]; single items [path, id] (the console's query-key convention).
 */
import { serverEvents, type ServerEventName } from '@farm/api/contracts';
import type { Query, QueryClient } from '@tanstack/react-query';
import { ME_KEY } from '../../features/auth/auth.api';

/** Which REST path lists each entity. */
const entityPaths: Readonly<Record<string, string>> = {
  device: '/api/devices',
  session: '/api/sessions',
  task: '/api/tasks',
  activity: '/api/activities',
  campaign: '/api/campaigns',
  routine: '/api/routines',
  account: '/api/accounts',
  post: '/api/posts',
  user: '/api/users',
};

/** Reads computed from an entity, refreshed (coalesced) after it changes. */
const derivedReads: Readonly<Record<string, readonly string[]>> = {
  device: ['/api/analytics/performance'],
  session: ['/api/analytics/performance'],
  task: ['/api/tasks/counts', '/api/analytics/performance'],
  routine: ['/api/campaign-sessions'],
};

/** Filtered lists and derived figures are refetched at most this often while changes keep coming. */
export const REFRESH_DELAY_MS = 2000;

interface WithId {
  id: string;
}

function hasId(value: unknown): value is WithId {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string';
}

function isServerEvent(name: string): name is ServerEventName {
  return Object.hasOwn(serverEvents, name);
}

function filtersOf(query: Query): Record<string, string> | undefined {
  const filters = query.queryKey[1];
  return typeof filters === 'object' && filters !== null ? (filters as Record<string, string>) : undefined;
}

function isList(query: Query, path: string): boolean {
  const key = query.queryKey;
  return key[0] === path && (key.length === 1 || (key.length === 2 && filtersOf(query) !== undefined));
}

/** A list whose filters (beyond a page size) may no longer select the changed row. */
function isFilteredList(query: Query, path: string): boolean {
  if (!isList(query, path)) return false;
  const filters = filtersOf(query);
  return filters !== undefined && Object.keys(filters).some((key) => key !== 'limit');
}

export interface CacheSync {
  /** Applies one pushed event; unknown names and payloads that fail their schema are ignored. */
  apply: (name: string, payload: unknown) => void;
  /** After a reconnect that could not recover missed events: every read is taken afresh. */
  resync: () => void;
  dispose: () => void;
}

export function createCacheSync(queryClient: QueryClient, delay = REFRESH_DELAY_MS): CacheSync {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  /** Runs `refresh` once per `delay` for the same key, however many events ask for it. */
  const later = (key: string, refresh: () => void) => {
    if (timers.has(key)) return;
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        refresh();
      }, delay),
    );
  };
  const refreshPath = (path: string) => later(path, () => void queryClient.invalidateQueries({ queryKey: [path] }));
  const refreshFilteredLists = (path: string) =>
    later(`${path}#filtered`, () => void queryClient.invalidateQueries({ predicate: (query) => isFilteredList(query, path) }));

  const replace = (path: string, item: WithId) => {
    queryClient.setQueriesData<unknown>({ predicate: (query) => isList(query, path) }, (old: unknown) =>
      Array.isArray(old) ? old.map((row: unknown) => (hasId(row) && row.id === item.id ? item : row)) : old,
    );
    queryClient.setQueryData<unknown>([path, item.id], (old: unknown) => (old === undefined ? old : item));
  };

  const remove = (path: string, id: string) => {
    queryClient.setQueriesData<unknown>({ predicate: (query) => isList(query, path) }, (old: unknown) =>
      Array.isArray(old) ? old.filter((row: unknown) => !(hasId(row) && row.id === id)) : old,
    );
    void queryClient.invalidateQueries({ queryKey: [path, id], exact: true });
  };

  /** New activity goes on top of every cached feed it belongs to, keeping each feed's page size. */
  const prependActivity = (activity: WithId & { deviceId: string | null; type: string }) => {
    for (const query of queryClient.getQueryCache().findAll({ predicate: (q) => isList(q, '/api/activities') })) {
      const filters = filtersOf(query) ?? {};
      if (filters.deviceId && filters.deviceId !== activity.deviceId) continue;
      if (filters.type && filters.type !== activity.type) continue;
      if (filters.from || filters.to) continue;
      const limit = Number(filters.limit ?? 100);
      queryClient.setQueryData<unknown>(query.queryKey, (old: unknown) =>
        Array.isArray(old) && !old.some((row: unknown) => hasId(row) && row.id === activity.id) ? [activity, ...old].slice(0, limit) : old,
      );
    }
  };

  const apply = (name: string, payload: unknown) => {
    if (!isServerEvent(name)) return;
    const parsed = serverEvents[name].safeParse(payload);
    if (!parsed.success) return;
    const data: unknown = parsed.data;

    if (name === 'stats.changed') {
      queryClient.setQueryData(['/api/analytics/stats'], data);
      // The pushed figures are all-time; ranged ones are refetched.
      later('stats#ranged', () =>
        void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === '/api/analytics/stats' && query.queryKey.length > 1 }),
      );
      return;
    }
    if (name === 'screenshot.added') return;

    const [entity = '', verb = ''] = name.split('.');
    const path = entityPaths[entity];
    if (!path) return;

    if (entity === 'activity' && hasId(data)) {
      prependActivity(data as WithId & { deviceId: string | null; type: string });
    } else if (verb === 'deleted' && hasId(data)) {
      remove(path, data.id);
    } else if (verb === 'created' || verb === 'started') {
      refreshPath(path);
    } else if (hasId(data)) {
      replace(path, data);
      refreshFilteredLists(path);
    }

    if (entity === 'user' && hasId(data)) {
      queryClient.setQueryData<{ user: WithId }>(ME_KEY, (old) => (old && old.user.id === data.id ? { user: { ...old.user, ...data } } : old));
    }
    for (const derived of derivedReads[entity] ?? []) refreshPath(derived);
  };

  const resync = () => {
    void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
  };

  const dispose = () => {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
  };

  return { apply, resync, dispose };
}
