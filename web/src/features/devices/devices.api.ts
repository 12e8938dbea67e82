import type { CreateDeviceBody, Device, deviceCredential, Session, UpdateDeviceBody } from '@farm/api/contracts';
import type { z } from 'zod';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';

export { useDevices } from '../../shared/resources';

/** Everything a device change can show up in. */
const deviceReads = ['/api/devices', '/api/analytics/stats', '/api/analytics/performance', '/api/activities'];

export function useDevice(id: string | null) {
  return useQuery<Device>({ queryKey: ['/api/devices', id ?? ''], enabled: Boolean(id) });
}

export function useCreateDevice() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateDeviceBody) => apiRequest<Device>('/api/devices', { method: 'POST', body }),
    onSuccess: () => invalidate(...deviceReads),
  });
}

export function useUpdateDevice() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateDeviceBody }) =>
      apiRequest<Device>(`/api/devices/${id}`, { method: 'PATCH', body }),
    onSuccess: () => invalidate(...deviceReads, '/api/users'),
  });
}

export function useDeleteDevice() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/devices/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate(...deviceReads, '/api/sessions', '/api/tasks'),
  });
}

export function useRestartSession() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<Session>(`/api/devices/${id}/restart-session`, { method: 'POST' }),
    onSuccess: () => invalidate(...deviceReads, '/api/sessions'),
  });
}

export type DeviceCredential = z.infer<typeof deviceCredential>;

/** Issues the phone agent's credential (shown once); any earlier credential of the phone stops working. */
export function useCreateCredential() {
  return useMutation({
    mutationFn: (deviceId: string) => apiRequest<DeviceCredential>(`/api/devices/${deviceId}/credentials`, { method: 'POST' }),
  });
}

/** The command that runs the simulated phone agent against this console. */
export function agentCommand(origin: string, token: string): string {
  return `pnpm --filter @farm/agent-protocol exec tsx src/agent/cli.ts --url ${origin} --token ${token}`;
}
