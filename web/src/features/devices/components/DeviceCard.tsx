import { ActionIcon, Button, Card, Checkbox, Group, Menu, Stack, Text, VisuallyHidden } from '@mantine/core';
import { IconBattery2, IconDots, IconEye, IconPlugConnected, IconRefresh, IconUserPlus } from '@tabler/icons-react';
import type { Device } from '@farm/contracts';
import { Link } from 'react-router';
import { batteryColor, formatDuration, formatRelative } from '../../../shared/format';
import { InUseBadge } from '../../../shared/ui/InUseBadge';
import { DeviceHealthBadge } from '../../fleet/health/PhoneHealth';
import { DeviceStatus } from './DeviceStatus';

export interface DeviceCardProps {
  device: Device;
  vaName?: string;
  canManage: boolean;
  canRestart: boolean;
  onViewDetails: () => void;
  onAssignVa: () => void;
  onRestartSession: () => void;
  /** Operators: issue the phone agent's credential. */
  onConnectPhone?: () => void;
  /** When given, the card has a checkbox for bulk actions; `range` is a shift-click. */
  selected?: boolean;
  onSelect?: (range: boolean) => void;
}

export function DeviceCard({
  device,
  vaName,
  canManage,
  canRestart,
  onViewDetails,
  onAssignVa,
  onRestartSession,
  onConnectPhone,
  selected,
  onSelect,
}: DeviceCardProps) {
  return (
    <Card withBorder padding="lg" radius="md" component="article" aria-label={device.name}>
      <Group justify="space-between" wrap="nowrap" align="flex-start" mb="sm">
        {onSelect ? (
          <Checkbox
            mt={2}
            aria-label={`Select ${device.name}`}
            checked={selected ?? false}
            onChange={() => undefined}
            onClick={(event) => onSelect(event.shiftKey)}
          />
        ) : null}
        <Stack gap={6} style={{ minWidth: 0, flex: 1 }}>
          <Text fw={700} truncate="end">
            {device.name}
          </Text>
          <Group gap={6}>
            <DeviceStatus device={device} />
            <InUseBadge name={device.controlledByName} />
            {device.hostId ? <DeviceHealthBadge deviceId={device.id} /> : null}
          </Group>
        </Stack>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${device.name}`}>
              <IconDots size={18} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconEye size={16} />} onClick={onViewDetails}>
              View Details
            </Menu.Item>
            {canManage ? (
              <Menu.Item leftSection={<IconUserPlus size={16} />} onClick={onAssignVa}>
                Assign VA
              </Menu.Item>
            ) : null}
            {canRestart ? (
              <Menu.Item leftSection={<IconRefresh size={16} />} onClick={onRestartSession}>
                Restart Session
              </Menu.Item>
            ) : null}
            {canManage && onConnectPhone ? (
              <Menu.Item leftSection={<IconPlugConnected size={16} />} onClick={onConnectPhone}>
                Connect Phone
              </Menu.Item>
            ) : null}
          </Menu.Dropdown>
        </Menu>
      </Group>

      <Stack gap={6}>
        <Group gap={6} wrap="nowrap">
          <IconBattery2 size={16} color={`var(--mantine-color-${batteryColor(device.battery)}-6)`} aria-hidden />
          <Text size="sm" c={batteryColor(device.battery)} fw={600}>
            <VisuallyHidden>Battery </VisuallyHidden>
            {device.battery}%
          </Text>
        </Group>
        <Text size="sm" c="dimmed">
          {device.lastSeenAt === null ? 'Never connected' : `Last active ${formatRelative(device.lastActive)}`}
        </Text>
        {vaName ? (
          <Text size="sm">
            <Text span c="dimmed">
              Assigned to{' '}
            </Text>
            {vaName}
          </Text>
        ) : null}
        {device.sessionTime > 0 ? (
          <Text size="sm">
            <Text span c="dimmed">
              Session time{' '}
            </Text>
            {formatDuration(device.sessionTime)}
          </Text>
        ) : null}
      </Stack>

      {device.lastSeenAt === null && canManage && onConnectPhone ? (
        <Button variant="filled" fullWidth mt="md" leftSection={<IconPlugConnected size={16} />} onClick={onConnectPhone}>
          Connect
        </Button>
      ) : (
        <Button component={Link} to={`/monitor?device=${device.id}`} variant="light" fullWidth mt="md">
          Monitor Session
        </Button>
      )}
    </Card>
  );
}
