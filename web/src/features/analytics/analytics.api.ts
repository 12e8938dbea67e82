import type { Performance, Range, Stats } from '@farm/api/contracts';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { listKey, withQuery } from '../../shared/query';

export function useStats(range: Range) {
  return useQuery<Stats>({
    queryKey: listKey('/api/analytics/stats', { range }),
    queryFn: ({ signal }) => apiRequest<Stats>(withQuery('/api/analytics/stats', { range }), { signal }),
  });
}

export function usePerformance(range: Range) {
  return useQuery<Performance>({
    queryKey: listKey('/api/analytics/performance', { range }),
    queryFn: ({ signal }) => apiRequest<Performance>(withQuery('/api/analytics/performance', { range }), { signal }),
  });
}
