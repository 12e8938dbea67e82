/** A list's filters kept in the URL's query string, so a filtered view can be shared and survives a reload. */
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';

export function useUrlFilters<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const values = useMemo(() => Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ''])) as Record<K, string>, [keys, params]);
  const set = useCallback(
    (changes: Partial<Record<K, string | null | undefined>>) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes) as [K, string | null | undefined][]) {
            if (value) next.set(key, value);
            else next.delete(key);
          }
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [values, set] as const;
}

/**
 * A list's search box over the URL's `search` filter: the box follows every key, the URL (and so the query) only once
 * typing has paused for a quarter second.
 */
export function useUrlSearch(current: string, write: (changes: { search: string }) => void) {
  const [search, setSearch] = useState(current);
  const [debounced] = useDebouncedValue(search.trim(), 250);
  useEffect(() => {
    if (debounced !== current) write({ search: debounced });
  }, [debounced, current, write]);
  return [search, setSearch] as const;
}
