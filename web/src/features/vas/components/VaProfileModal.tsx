import { Avatar, Badge, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { roleLabels, type Device, type Task, type User } from '@farm/contracts';
import { deriveVaStatus, formatDateTime, initials, statusColors, vaStatusLabels } from '../../../shared/format';
import { FormModal } from '../../../shared/ui/FormModal';
import { HandsOnUse } from '../../devices/components/HandsOnUse';

export interface VaProfileModalProps {
  va: User | null;
  devices: readonly Device[];
  tasks: readonly Task[];
  primaryDevice: Device | undefined;
  onClose: () => void;
}

function Field({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" component="div">
        {value}
      </Text>
    </div>
  );
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
            <Field
              label="Status"
              value={
                <Badge variant="light" color={statusColors[status]}>
                  {vaStatusLabels[status]}
                </Badge>
              }
            />
            <Field label="Role" value={roleLabels[va.role]} />
            <Field label="Account" value={va.isActive ? 'Active' : 'Deactivated'} />
            <Field label="Joined" value={formatDateTime(va.createdAt)} />
            <Field label="Devices" value={devices.length === 0 ? 'None' : devices.map((device) => device.name).join(', ')} />
            <Field label="Tasks" value={`${open} open · ${done} completed`} />
          </SimpleGrid>
          <HandsOnUse userId={va.id} />
        </Stack>
      ) : null}
    </FormModal>
  );
}
