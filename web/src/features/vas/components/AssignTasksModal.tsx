import { Badge, Button, Checkbox, Group, ScrollArea, Stack, Text } from '@mantine/core';
import { taskTypeLabels, type User } from '@farm/contracts';
import { useEffect, useState } from 'react';
import { byId, useTasks, useUsers } from '../../../shared/resources';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { priorityColors, priorityLabels } from '../../tasks/task.labels';
import { useAssignTasks } from '../vas.api';

/** Pick pending tasks and give them all to one VA. */
export function AssignTasksModal({ va, onClose }: { va: User | null; onClose: () => void }) {
  const pending = useTasks({ status: 'pending' }, { enabled: va !== null });
  const users = useUsers();
  const userMap = byId(users.data);
  const [selected, setSelected] = useState<string[]>([]);
  const assign = useAssignTasks();

  useEffect(() => {
    if (va) setSelected([]);
  }, [va]);

  const list = (pending.data ?? []).filter((task) => task.assignedToId !== va?.id);

  const save = () => {
    if (!va || selected.length === 0) return;
    assign.mutate(
      { vaId: va.id, taskIds: selected },
      {
        onSuccess: () => {
          toast('Tasks Assigned', `${selected.length} task${selected.length === 1 ? '' : 's'} assigned to ${va.name}.`);
          onClose();
        },
        onError: () => errorToast('Error', 'Some tasks could not be assigned. Please try again.'),
      },
    );
  };

  return (
    <FormModal opened={va !== null} onClose={onClose} title={va ? `Assign Tasks to ${va.name}` : 'Assign Tasks'} size="lg">
      {pending.isPending ? (
        <LoadingState label="Loading tasks..." />
      ) : list.length === 0 ? (
        <EmptyText>No pending tasks to assign</EmptyText>
      ) : (
        <Checkbox.Group value={selected} onChange={setSelected} label="Pending tasks">
          <ScrollArea.Autosize mah={360} mt="sm" type="auto" offsetScrollbars>
            <Stack gap="sm">
              {list.map((task) => (
                <Checkbox
                  key={task.id}
                  value={task.id}
                  label={
                    <Group gap={6} wrap="wrap">
                      <Text size="sm" fw={600}>
                        {task.title}
                      </Text>
                      <Badge size="xs" variant="outline">
                        {taskTypeLabels[task.type]}
                      </Badge>
                      <Badge size="xs" variant="light" color={priorityColors[task.priority]}>
                        {priorityLabels[task.priority]}
                      </Badge>
                      {task.assignedToId ? (
                        <Text size="xs" c="dimmed">
                          now with {userMap.get(task.assignedToId)?.name ?? 'another VA'}
                        </Text>
                      ) : null}
                    </Group>
                  }
                />
              ))}
            </Stack>
          </ScrollArea.Autosize>
        </Checkbox.Group>
      )}
      <Group justify="flex-end" gap="sm" mt="lg">
        <Button variant="default" onClick={onClose} disabled={assign.isPending}>
          Cancel
        </Button>
        <Button onClick={save} loading={assign.isPending} disabled={selected.length === 0}>
          Assign Tasks
        </Button>
      </Group>
    </FormModal>
  );
}
