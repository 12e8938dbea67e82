/** Fleet health (issue #41): each phone's health as its host reports it, and a host's USB bus and fleet settings. */
import type { HostFleet, HostFleetSettings, PhoneHealth } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';
import { deviceHealthKey, hostFleetKey, WORKSPACE_HEALTH_KEY } from './health.events';

/** Every phone's health, for the Devices grid; kept current by the pushed `device.health` (health.events.ts). */
export function useDevicesHealth() {
  return useQuery<PhoneHealth[]>({ queryKey: WORKSPACE_HEALTH_KEY });
}

/** One phone's health, for its details; kept current by the pushed `device.health`. */
export function useDeviceHealth(deviceId: string, enabled: boolean) {
  return useQuery<PhoneHealth | null>({ queryKey: deviceHealthKey(deviceId), enabled });
}

/** A host's bus and phones, for Settings → Phone hosts; read again on the pushed `host.fleet`. */
export function useHostFleet(hostId: string, enabled: boolean) {
  return useQuery<HostFleet>({ queryKey: hostFleetKey(hostId), enabled });
}

export function useSaveFleetSettings(hostId: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: HostFleetSettings) => apiRequest<HostFleetSettings>(`/api/hosts/${hostId}/fleet-settings`, { method: 'PUT', body }),
    onSuccess: () => invalidate(`/api/hosts/${hostId}/fleet`),
  });
}
