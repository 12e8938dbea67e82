/**
 * Live events applied to the server-state cache: the cache holds REST snapshots, and each pushed change
 * patches the rows it names. Lists are keyed [path] or [path, filters]; single items [path, id] (the console's
 * query-key convention). For tasks, devices and sessions the browser knows the server's order and filters, so a
 * changed row is also inserted into, moved within or dropped from every cached list without a refetch; a list
 * it cannot decide for (a filter it does not know, a full page that lost a row) is refetched, coalesced.
 */
import { serverEvents, type Device, type ServerEventName, type ServerEventPayload } from '@farm/contracts';
import type { Query, QueryClient } from '@tanstack/react-query';
import { ME_KEY } from '../../features/auth/auth.api';
import { screenshotsKey, SCREENSHOTS_SHOWN, type Screenshot } from '../../shared/resources';

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
/** Heartbeat pulses are written to the cache at most this often (the latest state of each phone wins). */
export const PULSE_INTERVAL_MS = 250;
/** The API's page size when a list asks for none. */
const DEFAULT_LIMIT = 200;

interface WithId {
  id: string;
}

type Row = WithId & Record<string, unknown>;
type PulseEntry = ServerEventPayload<'devices.pulse'>['devices'][number];

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

/** Keys of a list's query that are about paging, not about which rows it selects. */
const PAGING_KEYS = new Set(['limit', 'paged']);

/** A list read page by page from the server's cursor (usePagedList): rows in pages, the last one's cursor onward. */
interface PagedData {
  pages: { rows: unknown[]; next?: string }[];
  pageParams: unknown[];
}

function isPaged(data: unknown): data is PagedData {
  return typeof data === 'object' && data !== null && Array.isArray((data as PagedData).pages) && Array.isArray((data as PagedData).pageParams);
}

/** The rows a cached list holds, whether one array or pages. */
function rowsOf(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (isPaged(data)) return data.pages.flatMap((page) => page.rows);
  return undefined;
}

/** The same list with these rows: pages keep their sizes, the first one taking what was added or removed. */
function withRows(data: unknown, rows: unknown[]): unknown {
  if (!isPaged(data)) return rows;
  const total = data.pages.reduce((sum, page) => sum + page.rows.length, 0);
  let at = 0;
  const pages = data.pages.map((page, index) => {
    const size = index === 0 ? Math.max(0, page.rows.length + rows.length - total) : page.rows.length;
    const slice = rows.slice(at, at + size);
    at += size;
    return { ...page, rows: slice };
  });
  return { ...data, pages };
}

function isList(query: Query, path: string): boolean {
  const key = query.queryKey;
  return key[0] === path && (key.length === 1 || (key.length === 2 && filtersOf(query) !== undefined));
}

/** A list whose filters (beyond a page size) may no longer select the changed row. */
function isFilteredList(query: Query, path: string): boolean {
  if (!isList(query, path)) return false;
  const filters = filtersOf(query);
  return filters !== undefined && Object.keys(filters).some((key) => !PAGING_KEYS.has(key));
}

const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
const text = (row: Row, field: string) => (typeof row[field] === 'string' ? row[field] : '');

/** How the server orders and filters one entity's list. A filter answers undefined when it cannot tell. */
export interface ListSpec {
  path: string;
  compare(a: Row, b: Row): number;
  filters: Readonly<Record<string, (row: Row, value: string, me: string | undefined) => boolean | undefined>>;
}

const equals = (field: string) => (row: Row, value: string) => row[field] === value;
const contains = (field: string) => (row: Row, value: string) => text(row, field).toLowerCase().includes(value.toLowerCase());
const newestFirst = (field: string) => (a: Row, b: Row) => order(text(b, field), text(a, field)) || order(b.id, a.id);

export const listSpecs: Readonly<Record<string, ListSpec>> = {
  task: {
    path: '/api/tasks',
    compare: newestFirst('createdAt'),
    filters: {
      status: equals('status'),
      type: equals('type'),
      priority: equals('priority'),
      deviceId: equals('deviceId'),
      search: contains('title'),
      assignedToId: (row, value, me) => {
        if (value !== 'me') return row.assignedToId === value;
        return me === undefined ? undefined : row.assignedToId === me;
      },
    },
  },
  device: {
    path: '/api/devices',
    // Oldest first, so a phone keeps its place as others are added.
    compare: (a, b) => order(text(a, 'createdAt'), text(b, 'createdAt')) || order(a.id, b.id),
    filters: { status: equals('status'), assignedToId: equals('assignedToId'), search: contains('name') },
  },
  session: {
    path: '/api/sessions',
    compare: newestFirst('startedAt'),
    filters: {
      active: (row, value) => (value === 'true' ? row.endedAt === null : value === 'false' ? row.endedAt !== null : undefined),
      deviceId: equals('deviceId'),
      vaId: equals('vaId'),
    },
  },
};

export interface MergeResult<T> {
  rows: readonly T[];
  /** The list may now miss rows the server would send (a full page lost one, or a filter could not be decided). */
  stale: boolean;
}

/**
 * Puts changed rows into one cached list page as the server would list them: replaced in place, inserted at
 * their place in the order (not past the page's end), or dropped when they no longer match. Unchanged lists
 * keep their identity.
 */
export function mergeRows<T extends WithId>(
  old: readonly T[],
  items: readonly T[],
  matches: (row: T) => boolean | undefined,
  compare: (a: T, b: T) => number,
  limit: number,
  removedIds: readonly string[] = [],
): MergeResult<T> {
  const index = new Map(old.map((row, i) => [row.id, i]));
  let rows = old.slice();
  let changed = false;
  let stale = false;
  const drop = new Set(removedIds);
  const inserts: T[] = [];

  for (const item of items) {
    const at = index.get(item.id);
    const verdict = matches(item);
    if (verdict === undefined) stale = true;
    if (verdict === false) {
      if (at !== undefined) drop.add(item.id);
    } else if (at !== undefined) {
      if (rows[at] !== item) {
        rows[at] = item;
        changed = true;
      }
    } else if (verdict) {
      inserts.push(item);
    }
  }

  if (drop.size > 0) {
    const kept = rows.filter((row) => !drop.has(row.id));
    if (kept.length !== rows.length) {
      changed = true;
      // A full page that lost a row would show the next one from the server.
      if (old.length >= limit) stale = true;
      rows = kept;
    }
  }

  for (const item of inserts) {
    let at = rows.findIndex((row) => compare(item, row) < 0);
    if (at === -1) at = rows.length;
    if (at >= limit) continue;
    rows.splice(at, 0, item);
    if (rows.length > limit) rows.length = limit;
    changed = true;
  }

  return { rows: changed ? rows : old, stale };
}

export interface CacheSync {
  /** Applies one pushed event; unknown names and payloads that fail their schema are ignored. */
  apply: (name: string, payload: unknown) => void;
  /** After a reconnect that could not recover missed events: every read is taken afresh. */
  resync: () => void;
  dispose: () => void;
}

export function createCacheSync(queryClient: QueryClient, delay = REFRESH_DELAY_MS, pulseInterval = PULSE_INTERVAL_MS): CacheSync {
  const cache = queryClient.getQueryCache();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const staleLists = new Set<string>();

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
  /** Refetches exactly the lists marked stale, once, later. */
  const refreshStale = (query: Query) => {
    staleLists.add(query.queryHash);
    later('#stale-lists', () => {
      const hashes = new Set(staleLists);
      staleLists.clear();
      void queryClient.invalidateQueries({ predicate: (candidate) => hashes.has(candidate.queryHash) });
    });
  };

  const me = () => queryClient.getQueryData<{ user?: { id?: string } }>(ME_KEY)?.user?.id;

  /** Applies changed (or removed) rows of a known entity to each of its cached lists and items. */
  const mergeIntoLists = (spec: ListSpec, items: readonly Row[], removedIds: readonly string[] = []) => {
    const myId = me();
    for (const query of cache.findAll({ predicate: (q) => isList(q, spec.path) })) {
      const data: unknown = query.state.data;
      const old = rowsOf(data);
      if (!old) continue;
      const filters = filtersOf(query) ?? {};
      const keys = Object.keys(filters).filter((key) => !PAGING_KEYS.has(key));
      const matches = (row: Row): boolean | undefined => {
        for (const key of keys) {
          const verdict = spec.filters[key]?.(row, filters[key] ?? '', myId);
          if (verdict !== true) return verdict;
        }
        return true;
      };
      const paged = isPaged(data);
      // Pages grow as rows arrive; with more pages to come, a row placed after the last loaded one belongs to them.
      const more = paged && Boolean(data.pages.at(-1)?.next);
      const limit = paged ? Number.MAX_SAFE_INTEGER : Number(filters.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT;
      const result = mergeRows(old as Row[], items, matches, (a, b) => spec.compare(a, b), limit, removedIds);
      let rows = result.rows;
      if (more && rows !== old) {
        const known = new Set((old as Row[]).map((row) => row.id));
        let end = rows.length;
        while (end > 0 && !known.has(rows[end - 1]!.id)) end -= 1;
        rows = rows.slice(0, end);
      }
      if (rows !== old) queryClient.setQueryData(query.queryKey, withRows(data, rows as unknown[]));
      if (result.stale) refreshStale(query);
    }
    for (const item of items) queryClient.setQueryData<unknown>([spec.path, item.id], (old: unknown) => (old === undefined ? old : item));
    for (const id of removedIds) void queryClient.invalidateQueries({ queryKey: [spec.path, id], exact: true });
  };

  // Heartbeats: the latest status, battery and last-seen time of each phone, written at most every `pulseInterval`.
  const pendingPulse = new Map<string, PulseEntry>();
  let pulseTimer: ReturnType<typeof setTimeout> | undefined;
  let lastPulseFlush = Number.NEGATIVE_INFINITY;

  const flushPulse = () => {
    clearTimeout(pulseTimer);
    pulseTimer = undefined;
    if (pendingPulse.size === 0) return;
    lastPulseFlush = Date.now();
    const pulses = new Map(pendingPulse);
    pendingPulse.clear();
    applyPulse(pulses);
  };

  const queuePulse = (devices: readonly PulseEntry[]) => {
    for (const entry of devices) pendingPulse.set(entry.id, entry);
    if (pulseTimer !== undefined) return;
    const wait = lastPulseFlush + pulseInterval - Date.now();
    if (wait <= 0) flushPulse();
    else pulseTimer = setTimeout(flushPulse, wait);
  };

  const applyPulse = (pulses: ReadonlyMap<string, PulseEntry>) => {
    const spec = listSpecs.device;
    if (!spec) return;
    // The full rows these phones have in the cache, from whichever list or item holds them.
    const known = new Map<string, Device>();
    for (const query of cache.findAll({ queryKey: [spec.path] })) {
      const data: unknown = query.state.data;
      const rows: unknown[] = rowsOf(data) ?? [data];
      for (const row of rows) if (hasId(row) && pulses.has(row.id) && !known.has(row.id)) known.set(row.id, row as Device);
    }
    const changed: Row[] = [];
    for (const [id, pulse] of pulses) {
      const row = known.get(id);
      if (!row) continue;
      if (row.status === pulse.status && row.battery === pulse.battery && row.lastActive === pulse.lastActive) continue;
      // A heartbeat older than what the row already shows (a fresher read raced it) changes nothing.
      if (Date.parse(pulse.lastActive) < Date.parse(row.lastActive)) continue;
      changed.push({ ...row, status: pulse.status, battery: pulse.battery, lastActive: pulse.lastActive });
    }
    if (changed.length > 0) mergeIntoLists(spec, changed);
    // A phone no list holds may now match a list filtered by status: those lists are asked again.
    if (known.size < pulses.size) {
      for (const query of cache.findAll({ predicate: (q) => isList(q, spec.path) && filtersOf(q)?.status !== undefined })) refreshStale(query);
    }
  };

  /** Entities without a ListSpec: rows are replaced where they are; lists that may change are refetched. */
  const replace = (path: string, item: WithId) => {
    queryClient.setQueriesData<unknown>({ predicate: (query) => isList(query, path) }, (old: unknown) => {
      const rows = rowsOf(old);
      return rows
        ? withRows(
            old,
            rows.map((row: unknown) => (hasId(row) && row.id === item.id ? item : row)),
          )
        : old;
    });
    queryClient.setQueryData<unknown>([path, item.id], (old: unknown) => (old === undefined ? old : item));
  };

  const remove = (path: string, id: string) => {
    queryClient.setQueriesData<unknown>({ predicate: (query) => isList(query, path) }, (old: unknown) => {
      const rows = rowsOf(old);
      return rows
        ? withRows(
            old,
            rows.filter((row: unknown) => !(hasId(row) && row.id === id)),
          )
        : old;
    });
    void queryClient.invalidateQueries({ queryKey: [path, id], exact: true });
  };

  /** New activity goes on top of every cached feed it belongs to, keeping each feed's page size. */
  const prependActivity = (activity: WithId & { deviceId: string | null; type: string }) => {
    for (const query of cache.findAll({ predicate: (q) => isList(q, '/api/activities') })) {
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

  /** A phone's new screenshot goes on top of its cached gallery (the session's count arrives as session.updated). */
  const prependScreenshot = (shot: ServerEventPayload<'screenshot.added'>) => {
    queryClient.setQueryData<Screenshot[]>(screenshotsKey(shot.deviceId), (old) => {
      if (!old || old.some((row) => row.url === shot.url)) return old;
      return [{ id: shot.url, ...shot }, ...old].slice(0, Math.max(old.length, SCREENSHOTS_SHOWN));
    });
  };

  const apply = (name: string, payload: unknown) => {
    if (!isServerEvent(name)) return;
    const parsed = serverEvents[name].safeParse(payload);
    if (!parsed.success) return;

    if (name === 'devices.pulse') {
      queuePulse((parsed.data as ServerEventPayload<'devices.pulse'>).devices);
      return;
    }
    if (name === 'stats.changed') {
      queryClient.setQueryData(['/api/analytics/stats'], parsed.data);
      // The pushed figures are all-time; ranged ones are refetched.
      later(
        'stats#ranged',
        () => void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === '/api/analytics/stats' && query.queryKey.length > 1 }),
      );
      return;
    }
    if (name === 'screenshot.added') {
      prependScreenshot(parsed.data as ServerEventPayload<'screenshot.added'>);
      return;
    }

    const data: unknown = parsed.data;
    const [entity = '', verb = ''] = name.split('.');
    const path = entityPaths[entity];
    if (!path || !hasId(data)) return;
    // Keep the order of events: heartbeats that came before this change are written first.
    if (entity === 'device') flushPulse();

    const spec = listSpecs[entity];
    if (entity === 'activity') {
      prependActivity(data as WithId & { deviceId: string | null; type: string });
    } else if (spec) {
      if (verb === 'deleted') mergeIntoLists(spec, [], [data.id]);
      else mergeIntoLists(spec, [data as Row]);
    } else if (verb === 'deleted') {
      remove(path, data.id);
    } else if (verb === 'created') {
      refreshPath(path);
    } else {
      replace(path, data);
      refreshFilteredLists(path);
    }

    if (entity === 'user') {
      queryClient.setQueryData<{ user: WithId }>(ME_KEY, (old) => (old && old.user.id === data.id ? { user: { ...old.user, ...data } } : old));
    }
    // A task's move on its phone shows in that phone's history; a task's run in its campaign's sessions.
    if (entity === 'task' && verb !== 'deleted') {
      const task = data as WithId & { deviceId?: string | null; campaignSessionId?: string | null };
      if (task.deviceId)
        later(
          `device-history:${task.deviceId}`,
          () => void queryClient.invalidateQueries({ queryKey: ['/api/devices', task.deviceId, 'history'], exact: true }),
        );
      if (task.campaignSessionId) later('campaign-sessions', () => void queryClient.invalidateQueries({ queryKey: ['/api/campaign-sessions'] }));
    }
    // Linking or unlinking an account announces the campaign; its detail screen lists the accounts separately.
    if (entity === 'campaign' && verb === 'updated') {
      later(`campaign-accounts:${data.id}`, () => void queryClient.invalidateQueries({ queryKey: ['/api/campaigns', data.id, 'accounts'], exact: true }));
    }
    for (const derived of derivedReads[entity] ?? []) refreshPath(derived);
  };

  const resync = () => {
    void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
  };

  const dispose = () => {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
    clearTimeout(pulseTimer);
    pulseTimer = undefined;
    pendingPulse.clear();
  };

  return { apply, resync, dispose };
}
