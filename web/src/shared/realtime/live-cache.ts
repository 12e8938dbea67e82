/**
 * The server-state cache patched by pushed changes: the cache holds REST snapshots, and each change patches the rows
 * it names. Lists are keyed [path] or [path, filters]; single items [path, id] (the console's query-key convention).
 * Each feature binds its own events (`features/<f>/<f>.events.ts`) over the tools here; for a list whose order and
 * filters the browser knows, a changed row is inserted into, moved within or dropped from every cached copy without a
 * refetch, and a list it cannot decide for (a filter it cannot tell, a full page that lost a row) is refetched,
 * coalesced.
 */
import type { ServerEventName, ServerEventPayload } from '@farm/contracts';
import type { Query, QueryClient } from '@tanstack/react-query';
import { PAGING_KEYS, type RowMatcher } from './list-filters';

/** Filtered lists and derived figures are refetched at most this often while changes keep coming. */
export const REFRESH_DELAY_MS = 2000;
/** The API's page size when a list asks for none. */
const DEFAULT_LIMIT = 200;

export interface WithId {
  id: string;
}

/** What a feature does with each pushed event it owns, given the payload its schema parsed. */
export type LiveHandlers = { [E in ServerEventName]: (payload: ServerEventPayload<E>) => void };

export function hasId(value: unknown): value is WithId {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string';
}

/** The filters a list is cached under, when it has any. */
export function filtersOf(query: Query): Record<string, string> | undefined {
  const filters = query.queryKey[1];
  return typeof filters === 'object' && filters !== null ? (filters as Record<string, string>) : undefined;
}

/** A list read page by page from the server's cursor (usePagedList): rows in pages, the last one's cursor onward. */
interface PagedData {
  pages: { rows: unknown[]; next?: string }[];
  pageParams: unknown[];
}

function isPaged(data: unknown): data is PagedData {
  return typeof data === 'object' && data !== null && Array.isArray((data as PagedData).pages) && Array.isArray((data as PagedData).pageParams);
}

/** The rows a cached list holds, whether one array or pages. */
export function rowsOf(data: unknown): unknown[] | undefined {
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

export function isList(query: Query, path: string): boolean {
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

/** Newest first by a time field, ties by id (the server's order for tasks and sessions). */
export const newestFirst =
  <T extends WithId>(field: keyof T & string) =>
  (a: T, b: T): number =>
    order(String(b[field] ?? ''), String(a[field] ?? '')) || order(b.id, a.id);

/** Oldest first by a time field, ties by id. */
export const oldestFirst =
  <T extends WithId>(field: keyof T & string) =>
  (a: T, b: T): number =>
    order(String(a[field] ?? ''), String(b[field] ?? '')) || order(a.id, b.id);

/** How the server orders and filters one entity's list. */
export interface LiveList<T extends WithId> {
  path: string;
  compare(a: T, b: T): number;
  matches: RowMatcher<T>;
}

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

/** The cache tools a feature's event binding works with. */
export interface LiveCache {
  readonly queryClient: QueryClient;
  /** The signed-in person's id, for filters such as `assignedToId=me`. */
  me(): string | undefined;
  /** Runs `refresh` once per refresh delay for the same key, however many events ask for it. */
  later(key: string, refresh: () => void): void;
  /** Refetches every read under a path, coalesced. */
  refresh(path: string): void;
  /** Refetches exactly this list, coalesced with the other lists marked stale. */
  refreshStale(query: Query): void;
  /** The cached lists under a path. */
  lists(path: string, predicate?: (query: Query) => boolean): Query[];
  /** Applies changed (or removed) rows of a known list to each of its cached copies and items. */
  merge<T extends WithId>(list: LiveList<T>, items: readonly T[], removedIds?: readonly string[]): void;
  /**
   * An entity whose lists the browser does not order: a new one refetches its lists, a change is patched where it
   * is (lists under filters refetched), a removed one dropped.
   */
  entity(path: string): { created(item: WithId): void; updated(item: WithId): void; deleted(item: WithId): void };
  /** Work to undo when the cache stops listening. */
  onDispose(stop: () => void): void;
  /** The reconnect that could not recover missed events: every read but these paths is taken afresh. */
  resync(keep: readonly string[]): void;
  dispose(): void;
}

export function createLiveCache(queryClient: QueryClient, options: { delay?: number; me: () => string | undefined }): LiveCache {
  const delay = options.delay ?? REFRESH_DELAY_MS;
  const cache = queryClient.getQueryCache();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const staleLists = new Set<string>();
  const stops: (() => void)[] = [];

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
  const refresh = (path: string) => later(path, () => void queryClient.invalidateQueries({ queryKey: [path] }));
  const refreshFilteredLists = (path: string) =>
    later(`${path}#filtered`, () => void queryClient.invalidateQueries({ predicate: (query) => isFilteredList(query, path) }));
  const refreshStale = (query: Query) => {
    staleLists.add(query.queryHash);
    later('#stale-lists', () => {
      const hashes = new Set(staleLists);
      staleLists.clear();
      void queryClient.invalidateQueries({ predicate: (candidate) => hashes.has(candidate.queryHash) });
    });
  };
  const lists = (path: string, predicate: (query: Query) => boolean = () => true) =>
    cache.findAll({ predicate: (query) => isList(query, path) && predicate(query) });

  const merge = <T extends WithId>(list: LiveList<T>, items: readonly T[], removedIds: readonly string[] = []) => {
    const myId = options.me();
    for (const query of lists(list.path)) {
      const data: unknown = query.state.data;
      const old = rowsOf(data) as T[] | undefined;
      if (!old) continue;
      const filters = filtersOf(query) ?? {};
      const paged = isPaged(data);
      // Pages grow as rows arrive; with more pages to come, a row placed after the last loaded one belongs to them.
      const more = paged && Boolean(data.pages.at(-1)?.next);
      const limit = paged ? Number.MAX_SAFE_INTEGER : Number(filters.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT;
      const result = mergeRows(
        old,
        items,
        (row) => list.matches(row, filters, myId),
        (a, b) => list.compare(a, b),
        limit,
        removedIds,
      );
      let rows = result.rows;
      if (more && rows !== old) {
        const known = new Set(old.map((row) => row.id));
        let end = rows.length;
        while (end > 0 && !known.has(rows[end - 1]!.id)) end -= 1;
        rows = rows.slice(0, end);
      }
      if (rows !== old) queryClient.setQueryData(query.queryKey, withRows(data, rows as unknown[]));
      if (result.stale) refreshStale(query);
    }
    for (const item of items) queryClient.setQueryData<unknown>([list.path, item.id], (old: unknown) => (old === undefined ? old : item));
    for (const id of removedIds) void queryClient.invalidateQueries({ queryKey: [list.path, id], exact: true });
  };

  const entity = (path: string) => ({
    created: () => refresh(path),
    updated: (item: WithId) => {
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
      refreshFilteredLists(path);
    },
    deleted: ({ id }: WithId) => {
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
    },
  });

  return {
    queryClient,
    me: options.me,
    later,
    refresh,
    refreshStale,
    lists,
    merge,
    entity,
    onDispose: (stop) => stops.push(stop),
    resync: (keep) => void queryClient.invalidateQueries({ predicate: (query) => !keep.includes(String(query.queryKey[0])) }),
    dispose: () => {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const stop of stops.splice(0)) stop();
    },
  };
}
