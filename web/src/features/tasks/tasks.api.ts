import type { CreateTaskBody, Task, TaskAnswerBody, TaskAnswerResult, TaskCounts, UpdateTaskBody } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';
import { listKey, withQuery } from '../../shared/query';
import type { TaskFilters } from '../../shared/resources';

export { useTasks } from '../../shared/resources';

const taskReads = ['/api/tasks', '/api/tasks/counts', '/api/analytics/stats', '/api/analytics/performance', '/api/activities'];

/** Tab counts under the same filters as the list, whatever the status tab. */
export function useTaskCounts(filters: Omit<TaskFilters, 'status'>) {
  return useQuery<TaskCounts>({
    queryKey: listKey('/api/tasks/counts', filters),
    queryFn: ({ signal }) => apiRequest<TaskCounts>(withQuery('/api/tasks/counts', filters), { signal }),
  });
}

export function useCreateTask() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateTaskBody) => apiRequest<Task>('/api/tasks', { method: 'POST', body }),
    onSuccess: () => invalidate(...taskReads),
  });
}

export function useUpdateTask() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateTaskBody }) => apiRequest<Task>(`/api/tasks/${id}`, { method: 'PATCH', body }),
    onSuccess: () => invalidate(...taskReads, '/api/devices', '/api/sessions'),
  });
}

export function useDeleteTask() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/tasks/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate(...taskReads),
  });
}

/** The answer to a post its phone could not confirm: it is up (published), or it is not (published again). */
export function useAnswerTask() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: TaskAnswerBody }) => apiRequest<TaskAnswerResult>(`/api/tasks/${id}/answer`, { method: 'POST', body }),
    onSuccess: () => invalidate(...taskReads, '/api/posts'),
  });
}
