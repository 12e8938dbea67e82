/** One request per bulk action: the chosen ids, or the list's filter when every matching row was chosen. */
import type { BulkResult } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from './api';
import { useInvalidate } from './invalidate';
import { cleanParams, type QueryParams } from './query';
import type { Selection } from './selection';

export type BulkEntity = 'tasks' | 'devices' | 'posts';

const reads: Record<BulkEntity, string[]> = {
  tasks: ['/api/tasks', '/api/tasks/counts', '/api/analytics/stats', '/api/activities'],
  devices: ['/api/devices', '/api/sessions', '/api/activities', '/api/analytics/stats'],
  posts: ['/api/posts', '/api/activities'],
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
