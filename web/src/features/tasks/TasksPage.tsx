import { Badge, Button, Group, Menu, Stack, Tabs } from '@mantine/core';
import { ListToolbar } from '../../shared/ui/ListToolbar';
import { refusalMessage } from '../../shared/refusal';
import { useDisclosure } from '@mantine/hooks';
import { IconChevronDown, IconPlus } from '@tabler/icons-react';
import { taskPriorityValues, taskTypeLabels, taskTypeValues, type Task, type TaskStatus } from '@farm/contracts';
import { useState } from 'react';
import { useBulkAction } from '../../shared/bulk.api';
import { usePagedList } from '../../shared/paged';
import { byId, useDevices, useUsers } from '../../shared/resources';
import { errorToast, toast } from '../../shared/toast';
import { useUrlFilters, useUrlSearch } from '../../shared/url-filters';
import { AssignVaMenu } from '../../shared/ui/AssignVaMenu';
import { BulkBar } from '../../shared/ui/BulkBar';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { ExportButton } from '../../shared/ui/ExportButton';
import { LoadMore } from '../../shared/ui/LoadMore';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { TaskCard } from './components/TaskCard';
import { TaskFormModal } from './components/TaskFormModal';
import { priorityLabels, taskDeviceLabel, taskStatusLabels } from './task.labels';
import { useDeleteTask, useTaskCounts, useUpdateTask } from './tasks.api';
import { PausedRecipesBanner } from '../recipes/components/PausedRecipesBanner';

const ALL = 'all';
const typeOptions = [{ value: ALL, label: 'All Types' }, ...taskTypeValues.map((value) => ({ value, label: taskTypeLabels[value] }))];
const priorityOptions = [{ value: ALL, label: 'All Priorities' }, ...taskPriorityValues.map((value) => ({ value, label: priorityLabels[value] }))];

type Tab = typeof ALL | 'pending' | 'in-progress' | 'completed' | 'failed';
const tabs: readonly { value: Tab; label: string; count: 'all' | 'pending' | 'inProgress' | 'completed' | 'failed' }[] = [
  { value: ALL, label: 'All Tasks', count: 'all' },
  { value: 'pending', label: 'Pending', count: 'pending' },
  { value: 'in-progress', label: 'In Progress', count: 'inProgress' },
  { value: 'completed', label: 'Completed', count: 'completed' },
  { value: 'failed', label: 'Failed', count: 'failed' },
];
const FILTER_KEYS = ['status', 'type', 'priority', 'search', 'assignedToId', 'deviceId'] as const;

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
  const [filters, setFilters] = useUrlFilters(FILTER_KEYS);
  const [search, setSearch] = useUrlSearch(filters.search, setFilters);
  const tab: Tab = isTab(filters.status) ? filters.status : ALL;
  const listFilters = {
    search: filters.search,
    type: asType(filters.type),
    priority: asPriority(filters.priority),
    assignedToId: filters.assignedToId || undefined,
    deviceId: filters.deviceId || undefined,
  };
  const statusFilter = { ...listFilters, status: tab === ALL ? undefined : tab };
  const tasks = usePagedList<Task>('/api/tasks', statusFilter);
  const counts = useTaskCounts(listFilters);
  const devices = useDevices();
  const users = useUsers();
  const deviceMap = byId(devices.data);
  const userMap = byId(users.data);
  const update = useUpdateTask();
  const remove = useDeleteTask();
  const [createOpened, createDialog] = useDisclosure(false);
  const [editing, setEditing] = useState<Task | null>(null);
  const [deleting, setDeleting] = useState<Task | null>(null);

  const list = tasks.rows;
  const bulk = useBulkAction('tasks', list, statusFilter);
  const { order, selection } = bulk;
  const total = counts.data?.[tabs.find((item) => item.value === tab)!.count];

  const vaOptions = (users.data ?? []).filter((user) => user.role === 'va').map((user) => ({ value: user.id, label: user.name }));
  const deviceOptions = (devices.data ?? []).map((device) => ({ value: device.id, label: device.name }));

  const changeStatus = (task: Task, status: TaskStatus) => {
    update.mutate(
      { id: task.id, body: { status } },
      {
        onSuccess: () => toast('Task Updated', `${task.title} is now ${taskStatusLabels[status].toLowerCase()}.`),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update task')),
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
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to delete task')),
    });
  };

  const renderList = () =>
    tasks.isPending ? (
      <LoadingState label="Loading tasks..." />
    ) : list.length === 0 ? (
      <EmptyText>No tasks found</EmptyText>
    ) : (
      <>
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
              {...(isOperator ? { selected: selection.has(task.id), onSelect: (range: boolean) => selection.toggle(task.id, range) } : {})}
            />
          ))}
        </Stack>
        <LoadMore hasMore={tasks.hasNextPage} loading={tasks.isFetchingNextPage} onLoad={() => void tasks.fetchNextPage()} />
      </>
    );

  return (
    <>
      <PageHeader
        title="Tasks"
        subtitle="Manage and distribute tasks"
        actions={
          <Group gap="xs">
            <ExportButton entity="tasks" filters={statusFilter} />
            {isOperator ? (
              <Button leftSection={<IconPlus size={16} />} onClick={createDialog.open}>
                Create Task
              </Button>
            ) : null}
          </Group>
        }
      />

      <PausedRecipesBanner enabled={isOperator} />

      <ListToolbar
        search={{ label: 'Search tasks', placeholder: 'Search tasks...', value: search, onChange: setSearch }}
        filters={[
          {
            label: 'Filter by type',
            data: typeOptions,
            value: filters.type || ALL,
            onChange: (value: string | null) => setFilters({ type: value === ALL ? null : value }),
            width: 170,
          },
          {
            label: 'Filter by priority',
            data: priorityOptions,
            value: filters.priority || ALL,
            onChange: (value: string | null) => setFilters({ priority: value === ALL ? null : value }),
            width: 170,
          },
          {
            label: 'Filter by assignee',
            data: [{ value: ALL, label: 'All Assignees' }, ...(me ? [{ value: 'me', label: 'Assigned to me' }] : []), ...vaOptions],
            value: filters.assignedToId || ALL,
            onChange: (value: string | null) => setFilters({ assignedToId: value === ALL ? null : value }),
            width: 190,
            placeholder: 'All Assignees',
          },
          {
            label: 'Filter by device',
            data: [{ value: ALL, label: 'All Devices' }, ...deviceOptions],
            value: filters.deviceId || ALL,
            onChange: (value: string | null) => setFilters({ deviceId: value === ALL ? null : value }),
            width: 190,
            searchable: true,
          },
        ]}
        mb="md"
      />

      {isOperator && list.length > 0 ? (
        <BulkBar onDelete={bulk.askDelete} selection={selection} pageIds={order} {...(total !== undefined ? { total } : {})} noun="tasks">
          <AssignVaMenu
            vas={vaOptions}
            loading={bulk.pending}
            onAssign={(vaId, done) => bulk.run({ action: 'update', changes: { assignedToId: vaId } }, done)}
          />
          <Menu position="bottom-start" withinPortal>
            <Menu.Target>
              <Button size="compact-sm" variant="light" rightSection={<IconChevronDown size={14} />}>
                Assign device
              </Button>
            </Menu.Target>
            <Menu.Dropdown mah={300} style={{ overflowY: 'auto' }}>
              {deviceOptions.map((option) => (
                <Menu.Item key={option.value} onClick={() => bulk.run({ action: 'update', changes: { deviceId: option.value } }, `moved to ${option.label}`)}>
                  {option.label}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          <Menu position="bottom-start" withinPortal>
            <Menu.Target>
              <Button size="compact-sm" variant="light" rightSection={<IconChevronDown size={14} />}>
                Priority
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              {taskPriorityValues.map((value) => (
                <Menu.Item
                  key={value}
                  onClick={() => bulk.run({ action: 'update', changes: { priority: value } }, `set to ${priorityLabels[value].toLowerCase()} priority`)}
                >
                  {priorityLabels[value]}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          <Button size="compact-sm" variant="light" color="gray" onClick={() => bulk.run({ action: 'cancel' }, 'cancelled')}>
            Cancel
          </Button>
        </BulkBar>
      ) : null}

      <Tabs value={tab} onChange={(value) => setFilters({ status: isTab(value) && value !== ALL ? value : null })} keepMounted={false}>
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
      <ConfirmModal
        title="Delete the selected tasks?"
        message={`${selection.allMatching ? (total ?? 0) : selection.ids.size} tasks will be removed for good.`}
        confirmLabel="Delete"
        {...bulk.confirmDelete}
      />
    </>
  );
}
