import { ActionIcon, Avatar, Badge, Button, Card, Group, Menu, Stack, Text } from '@mantine/core';
import { IconDots, IconHistory, IconListCheck, IconUser } from '@tabler/icons-react';
import type { Device, User } from '@farm/contracts';
import { Link } from 'react-router';
import { deriveVaStatus, initials, statusColors, vaStatusLabels } from '../../../shared/format';

export interface VaCardProps {
  va: User;
  device: Device | undefined;
  canManage: boolean;
  onViewProfile: () => void;
  onAssignTasks: () => void;
  onViewHistory: () => void;
}

export function VaCard({ va, device, canManage, onViewProfile, onAssignTasks, onViewHistory }: VaCardProps) {
  const status = deriveVaStatus(device);
  return (
    <Card withBorder padding="lg" radius="md" component="article" aria-label={va.name}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          <Avatar color="blue" radius="xl" size={44}>
            {initials(va.name)}
          </Avatar>
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text fw={700} truncate="end">
              {va.name}
            </Text>
            <Text size="sm" c="dimmed" truncate="end">
              {va.email}
            </Text>
          </Stack>
        </Group>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${va.name}`}>
              <IconDots size={18} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconUser size={16} />} onClick={onViewProfile}>
              View Profile
            </Menu.Item>
            {canManage ? (
              <Menu.Item leftSection={<IconListCheck size={16} />} onClick={onAssignTasks}>
                Assign Tasks
              </Menu.Item>
            ) : null}
            <Menu.Item leftSection={<IconHistory size={16} />} onClick={onViewHistory}>
              View History
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>

      <Stack gap={6} mt="md">
        <Group gap="xs">
          <Badge variant="light" color={statusColors[status]} leftSection={<span aria-hidden>●</span>}>
            {vaStatusLabels[status]}
          </Badge>
          {!va.isActive ? (
            <Badge variant="outline" color="gray">
              Deactivated
            </Badge>
          ) : null}
        </Group>
        {device ? (
          <Text size="sm">
            <Text span c="dimmed">
              Active Device:{' '}
            </Text>
            {device.name}
          </Text>
        ) : null}
      </Stack>

      <Button component={Link} to={`/monitor?va=${va.id}`} variant="light" fullWidth mt="md">
        View Sessions
      </Button>
    </Card>
  );
}
