/**
 * Fleet health pushed as hosts report it (issue #41), instead of polled: a phone's new health row is written into the
 * Devices grid's read of every phone, its details' read and the Phone hosts panel that lists it; a host's changed bus
 * or warnings has its panel read again (the bus itself is not pushed: only those who manage devices read it).
 */
import type { HostFleet, PhoneHealth } from '@farm/contracts';
import type { LiveCache, LiveHandlers } from '../../../shared/realtime/live-cache';

/** The Devices grid's read of every phone's health. */
export const WORKSPACE_HEALTH_KEY = ['/api/devices/health'] as const;
export const deviceHealthKey = (deviceId: string) => [`/api/devices/${deviceId}/health`] as const;
export const hostFleetKey = (hostId: string) => [`/api/hosts/${hostId}/fleet`] as const;

const isHostFleet = (key: unknown) => typeof key === 'string' && /^\/api\/hosts\/[^/]+\/fleet$/.test(key);

export function bindHealthEvents(live: LiveCache): Pick<LiveHandlers, 'device.health' | 'host.fleet'> {
  const { queryClient } = live;
  return {
    'device.health': (row) => {
      queryClient.setQueryData<PhoneHealth[]>(WORKSPACE_HEALTH_KEY, (old) => {
        if (!old) return old;
        const at = old.findIndex((item) => item.deviceId === row.deviceId);
        return at === -1 ? [...old, row] : old.map((item, index) => (index === at ? row : item));
      });
      // Only a read someone made is written (a phone whose details were never opened gets no entry).
      queryClient.setQueryData<PhoneHealth | null>(deviceHealthKey(row.deviceId), (old) => (old === undefined ? old : row));
      queryClient.setQueriesData<HostFleet>({ predicate: (query) => isHostFleet(query.queryKey[0]) }, (old) => {
        if (!old?.phones.some((phone) => phone.deviceId === row.deviceId)) return old;
        return { ...old, phones: old.phones.map((phone) => (phone.deviceId === row.deviceId ? { ...phone, ...row } : phone)) };
      });
    },
    'host.fleet': ({ hostId }) => live.refresh(hostFleetKey(hostId)[0]),
  };
}
