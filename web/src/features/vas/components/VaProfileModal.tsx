import { Avatar, Badge, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { roleLabels, type Device, type Task, type User } from '@farm/contracts';
import { deriveVaStatus, formatDateTime, initials, statusColors, vaStatusLabels } from '../../../shared/format';
import { Detail } from '../../../shared/ui/Detail';
import { FormModal } from '../../../shared/ui/FormModal';
import { HandsOnUse } from '../../devices/components/HandsOnUse';

export interface VaProfileModalProps {
  va: User | null;
  devices: readonly Device[];
  tasks: readonly Task[];
  primaryDevice: Device | undefined;
  onClose: () => void;
}

/** A VA's profile: status, devices, tasks, and the phones they watched or controlled from the console. */
export function VaProfileModal({ va, devices, tasks, primaryDevice, onClose }: VaProfileModalProps) {
  const status = deriveVaStatus(primaryDevice);
  const done = tasks.filter((task) => task.status === 'completed').length;
  const open = tasks.filter((task) => task.status === 'pending' || task.status === 'in-progress').length;
  return (
    <FormModal opened={va !== null} onClose={onClose} title="VA Profile">
      {va ? (
        <Stack gap="lg">
          <Group gap="md" wrap="nowrap">
            <Avatar color="blue" radius="xl" size={56}>
              {initials(va.name)}
            </Avatar>
            <div style={{ minWidth: 0 }}>
              <Text fw={700} fz="lg">
                {va.name}
              </Text>
              <Text c="dimmed" size="sm" style={{ overflowWrap: 'anywhere' }}>
                {va.email}
              </Text>
            </div>
          </Group>
          <SimpleGrid cols={2} spacing="md">
            <Detail label="Status">
              <Badge variant="light" color={statusColors[status]}>
                {vaStatusLabels[status]}
              </Badge>
            </Detail>
            <Detail label="Role">{roleLabels[va.role]}</Detail>
            <Detail label="Account">{va.isActive ? 'Active' : 'Deactivated'}</Detail>
            <Detail label="Joined">{formatDateTime(va.createdAt)}</Detail>
            <Detail label="Devices">{devices.length === 0 ? 'None' : devices.map((device) => device.name).join(', ')}</Detail>
            <Detail label="Tasks">{`${open} open · ${done} completed`}</Detail>
          </SimpleGrid>
          <HandsOnUse userId={va.id} />
        </Stack>
      ) : null}
    </FormModal>
  );
}
