import type { Session } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';

export { useActivities, useSessions } from '../../shared/resources';

const sessionReads = ['/api/sessions', '/api/devices', '/api/analytics/stats', '/api/activities'];

/** Pause (isActive false) or resume (true) a running session. */
export function useSetSessionActive() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, isActive }: { id: string; isActive: boolean }) => apiRequest<Session>(`/api/sessions/${id}`, { method: 'PATCH', body: { isActive } }),
    onSuccess: () => invalidate(...sessionReads),
  });
}

export function useStopSession() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<Session>(`/api/sessions/${id}/stop`, { method: 'POST' }),
    onSuccess: () => invalidate(...sessionReads),
  });
}

export interface CommandAnswer {
  delivered: boolean;
}

/** Asks the phone's agent for a screenshot now; `delivered` is false when the phone is not connected. */
export function useTakeScreenshot() {
  return useMutation({
    mutationFn: (deviceId: string) => apiRequest<CommandAnswer>(`/api/devices/${deviceId}/commands`, { method: 'POST', body: { name: 'screenshot' } }),
  });
}
