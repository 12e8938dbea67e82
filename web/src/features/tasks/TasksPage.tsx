import { Badge, Button, Group, Select, Stack, Tabs, TextInput } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { taskPriorityValues, taskTypeLabels, taskTypeValues, type Task, type TaskStatus } from '@farm/api/contracts';
import { useState } from 'react';
import { serverMessageOr } from '../../shared/api';
import { byId, useDevices, useUsers } from '../../shared/resources';
import { errorToast, toast } from '../../shared/toast';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { TaskCard } from './components/TaskCard';
import { TaskFormModal } from './components/TaskFormModal';
import { priorityLabels, taskDeviceLabel, taskStatusLabels } from './task.labels';
import { useDeleteTask, useTaskCounts, useTasks, useUpdateTask } from './tasks.api';

const ALL = 'all';
const typeOptions = [{ value: ALL, label: 'All Types' }, ...taskTypeValues.map((value) => ({ value, label: taskTypeLabels[value] }))];
const priorityOptions = [{ value: ALL, label: 'All Priorities' }, ...taskPriorityValues.map((value) => ({ value, label: priorityLabels[value] }))];

type Tab = typeof ALL | 'pending' | 'in-progress' | 'completed';
const tabs: readonly { value: Tab; label: string; count: 'all' | 'pending' | 'inProgress' | 'completed' }[] = [
  { value: ALL, label: 'All Tasks', count: 'all' },
  { value: 'pending', label: 'Pending', count: 'pending' },
  { value: 'in-progress', label: 'In Progress', count: 'inProgress' },
  { value: 'completed', label: 'Completed', count: 'completed' },
];

function isTab(value: string | null): value is Tab {
  return tabs.some((tab) => tab.value === value);
}
function asType(value: string | null): Task['type'] | undefined {
  return taskTypeValues.find((type) => type === value);
}
function asPriority(value: string | null): Task['priority'] | undefined {
  return taskPriorityValues.find((priority) => priority === value);
}

export function TasksPage() {
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 250);
  const [type, setType] = useState<string>(ALL);
  const [priority, setPriority] = useState<string>(ALL);
  const [tab, setTab] = useState<Tab>(ALL);
  const filters = { search: debouncedSearch, type: asType(type), priority: asPriority(priority) };
  const tasks = useTasks({ ...filters, status: tab === ALL ? undefined : tab });
  const counts = useTaskCounts(filters);
  const devices = useDevices();
  const users = useUsers();
  const deviceMap = byId(devices.data);
  const userMap = byId(users.data);
  const update = useUpdateTask();
  const remove = useDeleteTask();
  const [createOpened, createDialog] = useDisclosure(false);
  const [editing, setEditing] = useState<Task | null>(null);
  const [deleting, setDeleting] = useState<Task | null>(null);

  const changeStatus = (task: Task, status: TaskStatus) => {
    update.mutate(
      { id: task.id, body: { status } },
      {
        onSuccess: () => toast('Task Updated', `${task.title} is now ${taskStatusLabels[status].toLowerCase()}.`),
        onError: (error) => errorToast('Error', serverMessageOr(error, 'Failed to update task')),
      },
    );
  };

  const confirmDelete = () => {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        toast('Task Deleted', `${deleting.title} has been removed.`);
        setDeleting(null);
      },
      onError: (error) => errorToast('Error', serverMessageOr(error, 'Failed to delete task')),
    });
  };

  const list = tasks.data ?? [];
  const renderList = () =>
    tasks.isPending ? (
      <LoadingState label="Loading tasks..." />
    ) : list.length === 0 ? (
      <EmptyText>No tasks found</EmptyText>
    ) : (
      <Stack gap="sm">
        {list.map((task) => (
          <TaskCard
            key={task.id}
            task={task}
            deviceLabel={taskDeviceLabel(task.deviceId, deviceMap)}
            vaName={task.assignedToId ? userMap.get(task.assignedToId)?.name : undefined}
            canChangeStatus={isOperator || (me !== undefined && task.assignedToId === me.id)}
            canManage={isOperator}
            busy={update.isPending && update.variables.id === task.id}
            onStatus={(status) => changeStatus(task, status)}
            onEdit={() => setEditing(task)}
            onDelete={() => setDeleting(task)}
          />
        ))}
      </Stack>
    );

  return (
    <>
      <PageHeader
        title="Tasks"
        subtitle="Manage and distribute tasks"
        actions={
          isOperator ? (
            <Button leftSection={<IconPlus size={16} />} onClick={createDialog.open}>
              Create Task
            </Button>
          ) : null
        }
      />

      <Group gap="sm" mb="md" wrap="wrap">
        <TextInput
          placeholder="Search tasks..."
          aria-label="Search tasks"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
        <Select aria-label="Filter by type" data={typeOptions} value={type} allowDeselect={false} onChange={(value) => setType(value ?? ALL)} w={{ base: '100%', xs: 170 }} />
        <Select
          aria-label="Filter by priority"
          data={priorityOptions}
          value={priority}
          allowDeselect={false}
          onChange={(value) => setPriority(value ?? ALL)}
          w={{ base: '100%', xs: 170 }}
        />
      </Group>

      <Tabs value={tab} onChange={(value) => setTab(isTab(value) ? value : ALL)} keepMounted={false}>
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          {tabs.map((item) => (
            <Tabs.Tab
              key={item.value}
              value={item.value}
              rightSection={
                <Badge size="sm" variant="light" circle={false}>
                  {counts.data?.[item.count] ?? 0}
                </Badge>
              }
            >
              {item.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {tabs.map((item) => (
          <Tabs.Panel key={item.value} value={item.value} pt="md">
            {renderList()}
          </Tabs.Panel>
        ))}
      </Tabs>

      {isOperator ? (
        <>
          <TaskFormModal opened={createOpened} onClose={createDialog.close} />
          <TaskFormModal opened={editing !== null} task={editing} onClose={() => setEditing(null)} />
        </>
      ) : null}
      <ConfirmModal
        opened={deleting !== null}
        title="Delete task?"
        message={deleting ? `${deleting.title} will be removed for good.` : ''}
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => setDeleting(null)}
      />
    </>
  );
}
