import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';

/** Gives several tasks to one VA, one PATCH each (the API has no bulk update). */
export function useAssignTasks() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async ({ vaId, taskIds }: { vaId: string; taskIds: readonly string[] }) => {
      for (const id of taskIds) {
        await apiRequest(`/api/tasks/${id}`, { method: 'PATCH', body: { assignedToId: vaId } });
      }
    },
    // Some may have gone through before a failure, so refresh either way.
    onSettled: () => invalidate('/api/tasks', '/api/tasks/counts', '/api/analytics/performance'),
  });
}
