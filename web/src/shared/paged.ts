/**
 * Lists that scale: pages of the server's keyset cursor (`x-next-cursor`), loaded one after another as the
 * person asks for more. The query key starts with the API path, so the usual invalidation refreshes them.
 */
import { NEXT_CURSOR_HEADER } from '@farm/contracts';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { ApiError } from './api';
import { cleanParams, withQuery, type QueryParams } from './query';

export const PAGE_SIZE = 50;

export interface Page<T> {
  rows: T[];
  next?: string;
}

export async function apiPage<T>(path: string, signal?: AbortSignal): Promise<Page<T>> {
  const response = await fetch(path, { credentials: 'include', signal });
  if (!response.ok) throw new ApiError(response.status, (await response.text()) || response.statusText);
  const next = response.headers.get(NEXT_CURSOR_HEADER) ?? undefined;
  return { rows: (await response.json()) as T[], ...(next ? { next } : {}) };
}

export function usePagedList<T>(path: string, params: QueryParams = {}, options: { enabled?: boolean; pageSize?: number } = {}) {
  const limit = options.pageSize ?? PAGE_SIZE;
  const query = useInfiniteQuery({
    queryKey: [path, { ...cleanParams(params), paged: String(limit) }],
    queryFn: ({ pageParam, signal }) => apiPage<T>(withQuery(path, { ...params, limit, cursor: pageParam }), signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next,
    enabled: options.enabled,
    // The rows shown stay while another filter's first page loads, so the filters stay on screen and in focus.
    placeholderData: keepPreviousData,
  });
  const rows = query.data?.pages.flatMap((page) => page.rows) ?? [];
  return { ...query, rows };
}
