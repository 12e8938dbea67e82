import { Badge, Group, Stack, Text } from '@mantine/core';
import { taskTypeLabels, type User } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { useTasks } from '../../../shared/resources';
import { FormModal } from '../../../shared/ui/FormModal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { taskStatusColors, taskStatusLabels } from '../../tasks/task.labels';

/** Every task given to one VA, newest first as the server lists them. */
export function VaHistoryModal({ va, onClose }: { va: User | null; onClose: () => void }) {
  const tasks = useTasks({ assignedToId: va?.id }, { enabled: va !== null });
  const list = tasks.data ?? [];
  return (
    <FormModal opened={va !== null} onClose={onClose} title={va ? `History: ${va.name}` : 'History'} size="lg">
      {tasks.isPending ? (
        <LoadingState label="Loading tasks..." />
      ) : list.length === 0 ? (
        <EmptyText>No tasks assigned yet</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((task) => (
            <Group key={task.id} component="li" justify="space-between" wrap="wrap" gap="xs">
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {task.title}
                </Text>
                <Text size="xs" c="dimmed">
                  {taskTypeLabels[task.type]} ·{' '}
                  {task.completedAt ? `completed ${formatDateTime(task.completedAt)}` : `created ${formatDateTime(task.createdAt)}`}
                </Text>
              </div>
              <Badge variant="light" color={taskStatusColors[task.status]}>
                {taskStatusLabels[task.status]}
              </Badge>
            </Group>
          ))}
        </Stack>
      )}
    </FormModal>
  );
}
