import { Badge } from '@mantine/core';
import type { DeviceStatus } from '@farm/contracts';
import { deviceStatusColors, deviceStatusLabels } from '../format';

export function DeviceStatusBadge({ status }: { status: DeviceStatus }) {
  return (
    <Badge variant="light" color={deviceStatusColors[status]} leftSection={<span aria-hidden>●</span>}>
      {deviceStatusLabels[status]}
    </Badge>
  );
}
