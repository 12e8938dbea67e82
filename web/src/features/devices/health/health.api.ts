/** Fleet health (issue #41): each phone's health as its host reports it, and a host's USB bus and fleet settings. */
import type { HostFleet, HostFleetSettings, PhoneHealth } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';

/** Every phone's health, for the Devices grid (refreshed each minute: hosts read vitals every few minutes). */
export function useDevicesHealth() {
  return useQuery<PhoneHealth[]>({ queryKey: ['/api/devices/health'], refetchInterval: 60_000 });
}

export function useDeviceHealth(deviceId: string, enabled: boolean) {
  return useQuery<PhoneHealth | null>({ queryKey: [`/api/devices/${deviceId}/health`], enabled, refetchInterval: 30_000 });
}

export function useHostFleet(hostId: string, enabled: boolean) {
  return useQuery<HostFleet>({ queryKey: [`/api/hosts/${hostId}/fleet`], enabled, refetchInterval: 30_000 });
}

export function useSaveFleetSettings(hostId: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: HostFleetSettings) => apiRequest<HostFleetSettings>(`/api/hosts/${hostId}/fleet-settings`, { method: 'PUT', body }),
    onSuccess: () => invalidate(`/api/hosts/${hostId}/fleet`),
  });
}
