import { Badge, Card, Group, Stack, Title } from '@mantine/core';
import { refusalMessage } from '../../shared/refusal';
import type { Task, TaskStatus } from '@farm/contracts';
import type { ReactNode } from 'react';
import { byId, useDevices } from '../../shared/resources';
import { errorToast, toast } from '../../shared/toast';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { TaskCard } from './components/TaskCard';
import { taskDeviceLabel, taskStatusLabels } from './task.labels';
import { useTasks, useUpdateTask } from './tasks.api';

/** The query My Tasks reads: the server resolves 'me' to the signed-in person. */
export const MY_TASKS_FILTERS = { assignedToId: 'me' } as const;

const openStatuses: ReadonlySet<TaskStatus> = new Set(['pending', 'in-progress']);

/** Work in hand first (started before waiting), each group newest first as the server listed it. */
export function splitMyTasks(tasks: readonly Task[]): { open: Task[]; finished: Task[] } {
  const open = tasks.filter((task) => openStatuses.has(task.status));
  const started = open.filter((task) => task.status === 'in-progress');
  const waiting = open.filter((task) => task.status === 'pending');
  return { open: [...started, ...waiting], finished: tasks.filter((task) => !openStatuses.has(task.status)) };
}

function Section({ id, title, count, children }: { id: string; title: string; count: number; children: ReactNode }) {
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={id}>
      <Group justify="space-between" mb="md">
        <Title order={2} fz="lg" id={id}>
          {title}
        </Title>
        <Badge variant="light">{count}</Badge>
      </Group>
      {children}
    </Card>
  );
}

/** The signed-in person's own tasks, kept live: new ones arrive pushed, and status changes reach operators at once. */
export function MyTasksPage() {
  const tasks = useTasks(MY_TASKS_FILTERS);
  const devices = useDevices();
  const deviceMap = byId(devices.data);
  const update = useUpdateTask();
  const { open, finished } = splitMyTasks(tasks.data ?? []);

  const changeStatus = (task: Task, status: TaskStatus) => {
    update.mutate(
      { id: task.id, body: { status } },
      {
        onSuccess: () => toast('Task Updated', `${task.title} is now ${taskStatusLabels[status].toLowerCase()}.`),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update task')),
      },
    );
  };

  const renderList = (list: readonly Task[], empty: string) =>
    list.length === 0 ? (
      <EmptyText>{empty}</EmptyText>
    ) : (
      <Stack gap="sm">
        {list.map((task) => (
          <TaskCard
            key={task.id}
            task={task}
            deviceLabel={taskDeviceLabel(task.deviceId, deviceMap)}
            canChangeStatus
            canManage={false}
            busy={update.isPending && update.variables.id === task.id}
            onStatus={(status) => changeStatus(task, status)}
            onEdit={() => undefined}
            onDelete={() => undefined}
          />
        ))}
      </Stack>
    );

  return (
    <>
      <PageHeader title="My Tasks" subtitle="Work assigned to you, updated live" />
      {tasks.isPending ? (
        <LoadingState label="Loading tasks..." />
      ) : (
        <Stack gap="lg">
          <Section id="my-open-tasks" title="To Do" count={open.length}>
            {renderList(open, 'Nothing assigned to you right now')}
          </Section>
          <Section id="my-finished-tasks" title="Finished" count={finished.length}>
            {renderList(finished, 'No finished tasks yet')}
          </Section>
        </Stack>
      )}
    </>
  );
}
