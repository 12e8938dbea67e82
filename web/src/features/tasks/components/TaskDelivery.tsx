import { Progress, Stack, Text } from '@mantine/core';
import type { Task } from '@farm/contracts';
import { taskDeliveryLine } from '../task.delivery';

/** The task's state on its phone, and why it failed when it did. */
export function TaskDelivery({ task }: { task: Task }) {
  const line = taskDeliveryLine(task);
  if (!line) return null;
  const running = task.status === 'in-progress' && task.dispatchedAt !== null && task.progress !== null;
  return (
    <Stack gap={4}>
      <Text size="sm" c={line.tone === 'dimmed' ? 'dimmed' : line.tone} role={line.tone === 'red' ? 'alert' : undefined}>
        {line.text}
      </Text>
      {running ? <Progress value={task.progress ?? 0} size="sm" aria-label={`Progress ${task.progress ?? 0}%`} /> : null}
    </Stack>
  );
}
