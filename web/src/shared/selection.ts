/**
 * Choosing many rows of a list: checkboxes, shift-click for a run of rows, the whole loaded page, or every row
 * matching the filter (then a bulk action is sent with the filter rather than ids).
 */
import { useCallback, useRef, useState } from 'react';

export interface Selection {
  ids: ReadonlySet<string>;
  /** Every row matching the list's filter, loaded or not. */
  allMatching: boolean;
  has(id: string): boolean;
  toggle(id: string, range: boolean): void;
  setPage(ids: readonly string[], on: boolean): void;
  selectAllMatching(): void;
  clear(): void;
}

export function useSelection(order: readonly string[]): Selection {
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const anchor = useRef<string | null>(null);

  const toggle = useCallback(
    (id: string, range: boolean) => {
      setAllMatching(false);
      // Read the anchor now: the updater may run after it has moved to this row.
      const from = anchor.current === null ? -1 : order.indexOf(anchor.current);
      const to = order.indexOf(id);
      setIds((current) => {
        const next = new Set(current);
        const on = !current.has(id);
        if (range && from >= 0 && to >= 0) {
          for (const rowId of order.slice(Math.min(from, to), Math.max(from, to) + 1)) {
            if (on) next.add(rowId);
            else next.delete(rowId);
          }
        } else if (on) next.add(id);
        else next.delete(id);
        return next;
      });
      anchor.current = id;
    },
    [order],
  );

  return {
    ids,
    allMatching,
    has: (id) => allMatching || ids.has(id),
    toggle,
    setPage: (pageIds, on) => {
      setAllMatching(false);
      setIds(on ? new Set(pageIds) : new Set());
    },
    selectAllMatching: () => setAllMatching(true),
    clear: () => {
      setAllMatching(false);
      setIds(new Set());
      anchor.current = null;
    },
  };
}
