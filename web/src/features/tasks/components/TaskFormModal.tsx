import { Group, Select, Textarea, TextInput } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { createTaskBody, taskPriorityValues, taskTypeLabels, taskTypeValues, type Task } from '@farm/contracts';
import { useEffect, useMemo, useState } from 'react';
import { fromDateTimeLocal, toDateTimeLocal } from '../../../shared/format';
import { useDevices, useUsers } from '../../../shared/resources';
import { errorToast, toast } from '../../../shared/toast';
import { ModalForm } from '../../../shared/ui/FormModal';
import { useCreateTask, useUpdateTask } from '../tasks.api';
import { priorityLabels } from '../task.labels';

type TaskType = Task['type'];
type Priority = Task['priority'];

interface FormState {
  title: string;
  description: string;
  type: TaskType;
  priority: Priority;
  deviceId: string | null;
  assignedToId: string | null;
  deadline: string;
}

function initialState(task?: Task | null): FormState {
  return {
    title: task?.title ?? '',
    description: task?.description ?? '',
    type: task?.type ?? 'post',
    priority: task?.priority ?? 'medium',
    deviceId: task?.deviceId ?? null,
    assignedToId: task?.assignedToId ?? null,
    deadline: toDateTimeLocal(task?.deadline),
  };
}

const typeOptions = taskTypeValues.map((value) => ({ value, label: taskTypeLabels[value] }));
const priorityOptions = taskPriorityValues.map((value) => ({ value, label: priorityLabels[value] }));

function isTaskType(value: string | null): value is TaskType {
  return taskTypeValues.some((type) => type === value);
}
function isPriority(value: string | null): value is Priority {
  return taskPriorityValues.some((priority) => priority === value);
}

export interface TaskFormModalProps {
  opened: boolean;
  onClose: () => void;
  /** The task to edit; without one the form creates a task. */
  task?: Task | null;
}

/** Create or edit a task: title, description, type, priority, device, VA and deadline. */
export function TaskFormModal({ opened, onClose, task }: TaskFormModalProps) {
  const editing = Boolean(task);
  const [form, setForm] = useState<FormState>(() => initialState(task));
  const [titleError, setTitleError] = useState<string | undefined>();
  const devices = useDevices();
  const users = useUsers();
  const create = useCreateTask();
  const update = useUpdateTask();
  const busy = create.isPending || update.isPending;

  useEffect(() => {
    if (opened) {
      setForm(initialState(task));
      setTitleError(undefined);
    }
  }, [opened, task]);

  const deviceOptions = useMemo(() => (devices.data ?? []).map((device) => ({ value: device.id, label: device.name })), [devices.data]);
  const vaOptions = useMemo(
    () => (users.data ?? []).filter((user) => user.role === 'va' && user.isActive).map((user) => ({ value: user.id, label: user.name })),
    [users.data],
  );

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((current) => ({ ...current, [key]: value }));

  const submit = () => {
    const body = {
      title: form.title,
      description: form.description.trim() ? form.description : null,
      type: form.type,
      priority: form.priority,
      deviceId: form.deviceId,
      assignedToId: form.assignedToId,
      deadline: fromDateTimeLocal(form.deadline),
    };
    const parsed = createTaskBody.safeParse(body);
    if (!parsed.success) {
      setTitleError(parsed.error.issues.find((issue) => issue.path[0] === 'title')?.message ?? parsed.error.issues[0]?.message);
      return;
    }
    const onError = (error: Error) => {
      const fallback = editing ? 'Failed to update task' : 'Failed to create task';
      errorToast('Error', refusalMessage(error, fallback));
    };
    if (task) {
      update.mutate(
        { id: task.id, body: parsed.data },
        {
          onSuccess: () => {
            toast('Task Updated', 'The task has been saved.');
            onClose();
          },
          onError,
        },
      );
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: () => {
        toast('Task Created', 'The task has been added to the queue.');
        onClose();
      },
      onError,
    });
  };

  return (
    <ModalForm
      opened={opened}
      onClose={onClose}
      title={editing ? 'Edit Task' : 'Create Task'}
      size="lg"
      onSubmit={submit}
      busy={busy}
      submitLabel={editing ? 'Save Changes' : 'Create Task'}
      noValidate={false}
    >
      <TextInput label="Title" required value={form.title} error={titleError} onChange={(event) => set('title', event.currentTarget.value)} data-autofocus />
      <Textarea
        label="Description"
        autosize
        minRows={2}
        maxRows={6}
        value={form.description}
        onChange={(event) => set('description', event.currentTarget.value)}
      />
      <Group grow align="flex-start" wrap="wrap">
        <Select label="Type" data={typeOptions} value={form.type} allowDeselect={false} onChange={(value) => isTaskType(value) && set('type', value)} />
        <Select
          label="Priority"
          data={priorityOptions}
          value={form.priority}
          allowDeselect={false}
          onChange={(value) => isPriority(value) && set('priority', value)}
        />
      </Group>
      <Select
        label="Device"
        placeholder="Unassigned"
        data={deviceOptions}
        value={form.deviceId}
        searchable
        clearable
        nothingFoundMessage="No devices"
        onChange={(value) => set('deviceId', value)}
      />
      <Select
        label="Virtual Assistant"
        placeholder="Unassigned"
        data={vaOptions}
        value={form.assignedToId}
        searchable
        clearable
        nothingFoundMessage="No virtual assistants"
        onChange={(value) => set('assignedToId', value)}
      />
      <TextInput label="Deadline" type="datetime-local" value={form.deadline} onChange={(event) => set('deadline', event.currentTarget.value)} />
    </ModalForm>
  );
}
