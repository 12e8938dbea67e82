import type {
  CreateDeviceBody,
  Device,
  DeviceHistoryEntry,
  DeviceSoftware,
  DeviceUsageQuery,
  DeviceUsageReport,
  Session,
  UpdateDeviceBody,
} from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';
import { listKey, withQuery } from '../../shared/query';

export { useDevices } from '../../shared/resources';

/** Everything a device change can show up in. */
export const deviceReads = ['/api/devices', '/api/analytics/stats', '/api/analytics/performance', '/api/activities'];

export function useDevice(id: string | null) {
  return useQuery<Device>({ queryKey: ['/api/devices', id ?? ''], enabled: Boolean(id) });
}

/** The phone's UI reader and app versions, as its agent last said (read again each time the details open). */
export function useDeviceSoftware(id: string, enabled: boolean) {
  return useQuery<DeviceSoftware>({ queryKey: ['/api/devices', id, 'software'], enabled: enabled && id !== '', staleTime: 0 });
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
    mutationFn: ({ id, body }: { id: string; body: UpdateDeviceBody }) => apiRequest<Device>(`/api/devices/${id}`, { method: 'PATCH', body }),
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

/** The phone's work history: every task attempt handed to it, newest first, with how it ended and why. */
export function useDeviceHistory(deviceId: string, enabled = true) {
  return useQuery<DeviceHistoryEntry[]>({ queryKey: ['/api/devices', deviceId, 'history'], enabled: enabled && Boolean(deviceId) });
}

/** Who watched or controlled phones from the console, and for how long: for one phone, one person, or the workspace. */
export function useDeviceUsage(query: DeviceUsageQuery, enabled = true) {
  return useQuery<DeviceUsageReport>({
    queryKey: listKey('/api/device-usage', query),
    queryFn: ({ signal }) => apiRequest<DeviceUsageReport>(withQuery('/api/device-usage', query), { signal }),
    enabled,
  });
}
