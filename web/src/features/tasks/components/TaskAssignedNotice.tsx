import { Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconListCheck } from '@tabler/icons-react';
import type { Task } from '@farm/contracts';

export const TASK_NOTICE_TITLE = 'New Task Assigned';
/** Pushed work stays up longer than an ordinary toast, so a VA looking away still sees it. */
export const TASK_NOTICE_DURATION = 10_000;

/** Shows the pushed-task notification at once (replacing whatever toast was up), with a View action. */
export function showTaskAssigned(task: Pick<Task, 'id' | 'title'>, onView: () => void): void {
  const id = `task-assigned-${task.id}`;
  notifications.clean();
  notifications.show({
    id,
    title: TASK_NOTICE_TITLE,
    color: 'blue',
    icon: <IconListCheck size={18} />,
    autoClose: TASK_NOTICE_DURATION,
    message: (
      <Group justify="space-between" wrap="nowrap" gap="sm" mt={2}>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {task.title}
        </Text>
        <Button
          size="compact-sm"
          variant="light"
          onClick={() => {
            notifications.hide(id);
            onView();
          }}
        >
          View
        </Button>
      </Group>
    ),
  });
}
