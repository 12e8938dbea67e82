/**
 * One request per bulk action: the chosen ids, or the list's filter when every matching row was chosen. The list
 * screens run their bulk actions through `useBulkAction`, which owns the request, its toast and the selection.
 */
import type { BulkResult } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { apiRequest } from './api';
import { useInvalidate } from './invalidate';
import { cleanParams, type QueryParams } from './query';
import { refusalMessage } from './refusal';
import { useSelection, type Selection } from './selection';
import { errorToast, toast } from './toast';

export type BulkEntity = 'tasks' | 'devices' | 'posts';

const reads: Record<BulkEntity, string[]> = {
  tasks: ['/api/tasks', '/api/tasks/counts', '/api/analytics/stats', '/api/activities'],
  devices: ['/api/devices', '/api/sessions', '/api/activities', '/api/analytics/stats'],
  posts: ['/api/posts', '/api/activities'],
};

/** The words of a bulk action's toasts. */
const words: Record<BulkEntity, { title: string; one: string }> = {
  tasks: { title: 'Tasks Updated', one: 'task' },
  devices: { title: 'Devices Updated', one: 'device' },
  posts: { title: 'Posts Updated', one: 'post' },
};

/** The target of a bulk action as the API takes it. */
export function bulkTarget(selection: Selection, filter: QueryParams): { ids: string[] } | { filter: Record<string, string> } {
  return selection.allMatching ? { filter: cleanParams(filter) } : { ids: [...selection.ids] };
}

export function useBulk(entity: BulkEntity) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) => apiRequest<BulkResult>(`/api/${entity}/bulk`, { method: 'POST', body }),
    onSettled: () => invalidate(...reads[entity]),
  });
}

/**
 * A list's bulk actions: the selection over its loaded rows (`order` is their ids), and `run(body, done)`, which
 * sends one action to the chosen rows (or the filter) and toasts "N devices {done}."; the selection is cleared once
 * it is done and whenever the filter changes. `confirmDelete` is the props of the list's "Delete the selected …?"
 * confirmation.
 */
export function useBulkAction(entity: BulkEntity, rows: readonly { id: string }[], filter: QueryParams) {
  const order = useMemo(() => rows.map((row) => row.id), [rows]);
  const selection = useSelection(order);
  const bulk = useBulk(entity);
  const [deleting, setDeleting] = useState(false);
  const { title, one } = words[entity];

  const filterKey = JSON.stringify(filter);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the selection is cleared when the filter changes (filterKey), not when the selection object changes
  useEffect(() => selection.clear(), [filterKey]);

  const run = (body: Record<string, unknown>, done: string) => {
    bulk.mutate(
      { ...bulkTarget(selection, filter), ...body },
      {
        onSuccess: (answer) => {
          toast(title, `${answer.results.length} ${answer.results.length === 1 ? one : entity} ${done}.`);
          selection.clear();
          setDeleting(false);
        },
        onError: (error) => errorToast('Error', refusalMessage(error, `Failed to update ${entity}`)),
      },
    );
  };

  const confirmDelete = {
    opened: deleting,
    loading: bulk.isPending,
    onConfirm: () => run({ action: 'delete' }, 'deleted'),
    onClose: () => setDeleting(false),
  };
  return { order, selection, run, pending: bulk.isPending, askDelete: () => setDeleting(true), confirmDelete };
}
