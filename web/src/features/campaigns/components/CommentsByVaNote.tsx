import { Text } from '@mantine/core';

/** Said wherever a campaign or routine offers comments: comment text is a person's work, never typed by a phone. */
export const COMMENTS_BY_VA =
  'Comments are written by a VA: the routine hands each post to a VA as a task, and nothing types a comment on its own. A comment counts toward the account’s daily cap when the VA marks the task done.';

export function CommentsByVaNote() {
  return (
    <Text size="xs" c="dimmed">
      {COMMENTS_BY_VA}
    </Text>
  );
}
