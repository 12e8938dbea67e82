import { Badge, Tooltip } from '@mantine/core';
import type { DeviceStatus } from '@farm/contracts';
import { deviceStatusColors, deviceStatusLabels, formatRelative } from '../format';

/**
 * A phone's status; "Reconnecting" in its place while its farm host waits for the phone's transport to come back
 * (`reconnectingSince`, from its health row). An offline phone is offline whatever its host last said.
 */
export function DeviceStatusBadge({ status, reconnectingSince }: { status: DeviceStatus; reconnectingSince?: string | null | undefined }) {
  if (reconnectingSince && status !== 'offline') {
    return (
      <Tooltip label={`Its farm host lost the phone's connection ${formatRelative(reconnectingSince)} and waits for it to come back`} withinPortal>
        <Badge variant="light" color="orange" leftSection={<span aria-hidden>●</span>}>
          Reconnecting
        </Badge>
      </Tooltip>
    );
  }
  return (
    <Badge variant="light" color={deviceStatusColors[status]} leftSection={<span aria-hidden>●</span>}>
      {deviceStatusLabels[status]}
    </Badge>
  );
}
