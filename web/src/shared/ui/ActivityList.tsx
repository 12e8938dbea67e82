import { Group, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconCircleX, IconInfoCircle } from '@tabler/icons-react';
import type { Activity, Device } from '@farm/contracts';
import { formatRelative } from '../format';

const typeIcon = {
  success: { icon: IconCircleCheck, color: 'green' },
  warning: { icon: IconAlertTriangle, color: 'yellow' },
  info: { icon: IconInfoCircle, color: 'blue' },
  error: { icon: IconCircleX, color: 'red' },
} as const;

/** Activity log rows: what happened, on which device, how long ago. */
export function ActivityList({ activities, devices }: { activities: readonly Activity[]; devices: ReadonlyMap<string, Device> }) {
  return (
    <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
      {activities.map((activity) => {
        const { icon: Icon, color } = typeIcon[activity.type];
        const device = activity.deviceId ? devices.get(activity.deviceId) : undefined;
        return (
          <Group key={activity.id} component="li" gap="sm" wrap="nowrap" align="flex-start">
            <ThemeIcon variant="light" color={color} size={28} radius="xl" role="img" aria-label={activity.type}>
              <Icon size={16} />
            </ThemeIcon>
            <div style={{ minWidth: 0, flex: 1 }}>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {activity.action}
              </Text>
              <Text size="xs" c="dimmed">
                {device ? `${device.name} · ` : ''}
                {formatRelative(activity.createdAt)}
              </Text>
            </div>
          </Group>
        );
      })}
    </Stack>
  );
}
