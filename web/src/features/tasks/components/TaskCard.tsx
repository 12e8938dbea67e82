import { Anchor, Badge, Button, Card, Checkbox, Group, Stack, Text, ThemeIcon } from '@mantine/core';
import { useState } from 'react';
import { IconCircleCheck, IconCircleMinus, IconCircleX, IconClock, IconDeviceMobile, IconUser } from '@tabler/icons-react';
import { taskTransitions, taskTypeLabels, type Task, type TaskStatus } from '@farm/contracts';
import { formatDeadline } from '../../../shared/format';
import { priorityColors, priorityLabels, taskStatusColors, taskStatusLabels } from '../task.labels';
import { HandOverPost } from './HandOverPost';
import { TaskDelivery } from './TaskDelivery';
import { asksAboutPost, UnconfirmedPostAnswer } from './UnconfirmedPostAnswer';
import { FailureEvidenceButton } from '../evidence/FailureEvidence';

export interface TaskCardProps {
  task: Task;
  deviceLabel: string;
  vaName?: string;
  /** The person may move this task between statuses (operators, or the VA it is assigned to). */
  canChangeStatus: boolean;
  /** Operators may edit and delete. */
  canManage: boolean;
  busy: boolean;
  onStatus: (status: TaskStatus) => void;
  onEdit: () => void;
  onDelete: () => void;
  /** When given, the card has a checkbox for bulk actions; `range` is a shift-click. */
  selected?: boolean;
  onSelect?: (range: boolean) => void;
}

/** A task past its deadline and not finished. */
export function isOverdue(task: Pick<Task, 'deadline' | 'status'>, now = Date.now()): boolean {
  return task.deadline !== null && Date.parse(task.deadline) < now && (task.status === 'pending' || task.status === 'in-progress');
}

export function TaskCard({ task, deviceLabel, vaName, canChangeStatus, canManage, busy, onStatus, onEdit, onDelete, selected, onSelect }: TaskCardProps) {
  const next = taskTransitions[task.status];
  const can = (status: TaskStatus) => canChangeStatus && next.includes(status);

  return (
    <Card withBorder padding="md" radius="md" component="article" aria-label={task.title}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        {onSelect ? (
          <Checkbox
            mt={4}
            aria-label={`Select ${task.title}`}
            checked={selected ?? false}
            onChange={() => undefined}
            onClick={(event) => onSelect(event.shiftKey)}
          />
        ) : null}
        <Stack gap={6} style={{ minWidth: 0, flex: 1 }}>
          <Group gap="xs" wrap="nowrap">
            {task.status === 'completed' ? (
              <ThemeIcon color="green" variant="light" radius="xl" size={24} aria-label="Completed" role="img">
                <IconCircleCheck size={16} />
              </ThemeIcon>
            ) : null}
            {task.status === 'failed' ? (
              <ThemeIcon color="red" variant="light" radius="xl" size={24} aria-label="Failed" role="img">
                <IconCircleX size={16} />
              </ThemeIcon>
            ) : null}
            {task.status === 'cancelled' ? (
              <ThemeIcon color="gray" variant="light" radius="xl" size={24} aria-label="Cancelled" role="img">
                <IconCircleMinus size={16} />
              </ThemeIcon>
            ) : null}
            <Text fw={700} style={{ overflowWrap: 'anywhere' }}>
              {task.title}
            </Text>
          </Group>
          {task.description ? <Description text={task.description} /> : null}
          {task.handOver ? <HandOverPost handOver={task.handOver} /> : null}
          <Group gap={6} wrap="wrap">
            <Badge variant="outline">{taskTypeLabels[task.type]}</Badge>
            <Badge variant="light" color={priorityColors[task.priority]}>
              {priorityLabels[task.priority]}
            </Badge>
            <Badge variant="dot" color={taskStatusColors[task.status]}>
              {taskStatusLabels[task.status]}
            </Badge>
            {isOverdue(task) ? (
              <Badge color="red.9" variant="filled">
                Overdue
              </Badge>
            ) : null}
          </Group>
          <TaskDelivery task={task} />
          {canChangeStatus && asksAboutPost(task) ? <UnconfirmedPostAnswer task={task} /> : null}
          {/* A phone's failure (not one the console decided, such as no phone or a cap) may carry its failed step. */}
          {task.status === 'failed' && task.failureCode && task.attempt > 0 ? (
            <Group>
              <FailureEvidenceButton source={{ kind: 'task', id: task.id }} />
            </Group>
          ) : null}
          <Group gap="md" wrap="wrap">
            <Group gap={4} wrap="nowrap">
              <IconDeviceMobile size={14} aria-hidden />
              <Text size="sm">{deviceLabel}</Text>
            </Group>
            {vaName ? (
              <Group gap={4} wrap="nowrap">
                <IconUser size={14} aria-hidden />
                <Text size="sm">{vaName}</Text>
              </Group>
            ) : null}
            <Group gap={4} wrap="nowrap">
              <IconClock size={14} aria-hidden />
              <Text size="sm">{formatDeadline(task.deadline)}</Text>
            </Group>
          </Group>
        </Stack>
      </Group>

      {canChangeStatus || canManage ? (
        <Group gap="xs" mt="md" wrap="wrap">
          {task.status === 'pending' && can('in-progress') ? (
            <Button size="xs" variant="light" onClick={() => onStatus('in-progress')} disabled={busy}>
              Start
            </Button>
          ) : null}
          {can('completed') ? (
            <Button size="xs" variant="light" color="green" onClick={() => onStatus('completed')} disabled={busy}>
              Complete
            </Button>
          ) : null}
          {can('failed') ? (
            <Button size="xs" variant="light" color="red" onClick={() => onStatus('failed')} disabled={busy}>
              Fail
            </Button>
          ) : null}
          {canManage && can('cancelled') ? (
            <Button size="xs" variant="light" color="gray" onClick={() => onStatus('cancelled')} disabled={busy}>
              Cancel
            </Button>
          ) : null}
          {(task.status === 'failed' || task.status === 'cancelled') && can('pending') ? (
            <Button size="xs" variant="light" color="gray" onClick={() => onStatus('pending')} disabled={busy}>
              Retry
            </Button>
          ) : null}
          {canManage ? (
            <>
              <Button size="xs" variant="default" onClick={onEdit} disabled={busy}>
                Edit
              </Button>
              <Button size="xs" variant="subtle" color="red" onClick={onDelete} disabled={busy}>
                Delete
              </Button>
            </>
          ) : null}
        </Group>
      ) : null}
    </Card>
  );
}

/**
 * A description over two lines shows two, and all of it, paragraphs apart, on demand (a post to make by hand carries its
 * whole caption).
 */
function Description({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const long = text.length > 100 || text.split('\n').filter(Boolean).length > 2;
  return (
    <Stack gap={2} align="flex-start">
      <Text size="sm" c="dimmed" lineClamp={open ? undefined : 2} style={{ whiteSpace: open ? 'pre-line' : undefined, overflowWrap: 'anywhere' }}>
        {text}
      </Text>
      {long ? (
        <Anchor component="button" type="button" size="xs" onClick={() => setOpen((was) => !was)} aria-expanded={open}>
          {open ? 'Show less' : 'Show more'}
        </Anchor>
      ) : null}
    </Stack>
  );
}
