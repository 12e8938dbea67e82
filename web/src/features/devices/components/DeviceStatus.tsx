/**
 * A device's status as the grid and its details show it: a farm host's phone reads "Reconnecting" while its host
 * waits for the phone's transport (its health row says since when); any other phone shows its status alone.
 */
import type { Device } from '@farm/contracts';
import { DeviceStatusBadge } from '../../../shared/ui/DeviceStatusBadge';
import { useDeviceHealth, useDevicesHealth } from '../../fleet/health/health.api';

type Shown = Pick<Device, 'id' | 'status' | 'hostId'>;

/** In the grid: from the health of every phone, which the grid reads once. */
export function DeviceStatus({ device }: { device: Shown }) {
  if (!device.hostId) return <DeviceStatusBadge status={device.status} />;
  return <GridPhoneStatus device={device} />;
}

function GridPhoneStatus({ device }: { device: Shown }) {
  const all = useDevicesHealth();
  return <DeviceStatusBadge status={device.status} reconnectingSince={all.data?.find((row) => row.deviceId === device.id)?.reconnectingSince} />;
}

/** In its details: from the phone's own health, read while they are open. */
export function DeviceDetailsStatus({ device, enabled }: { device: Shown; enabled: boolean }) {
  const health = useDeviceHealth(device.id, enabled && device.hostId !== null);
  return <DeviceStatusBadge status={device.status} reconnectingSince={health.data?.reconnectingSince} />;
}
