/** Phone hosts (farm PCs with phones on USB): the list, adding one with its one-time code, a new code, revoking. */
import type { createdHost, EnrollmentCode, Host } from '@farm/contracts';
import type { z } from 'zod';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';

export type CreatedHost = z.infer<typeof createdHost>;
/** A phone host's create body: an optional name. */
type NamedBody = { name?: string | undefined };

export function useHosts(enabled: boolean) {
  return useQuery<Host[]>({ queryKey: ['/api/hosts'], enabled });
}

/** Adds a phone host; its one-time code is shown once. */
export function useCreateHost() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ name }: NamedBody) => apiRequest<CreatedHost>('/api/hosts', { method: 'POST', body: name ? { name } : {} }),
    onSuccess: () => invalidate('/api/hosts'),
  });
}

/** A new code for a host whose last one expired (or whose PC was reinstalled). */
export function useHostCode() {
  return useMutation({ mutationFn: (id: string) => apiRequest<EnrollmentCode>(`/api/hosts/${id}/enrollment`, { method: 'POST' }) });
}

export function useRevokeHost() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/hosts/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate('/api/hosts', '/api/devices'),
  });
}
