import { Text } from '@mantine/core';
import { failureLabels, type Post } from '@farm/contracts';

/** Why a post failed, or while it is due and not yet on a phone, what it waits for. */
export function PostDeliveryNote({ post }: { post: Pick<Post, 'status' | 'failureCode' | 'failureMessage' | 'waitingMessage'> }) {
  if (post.status === 'failed' && (post.failureMessage || post.failureCode)) {
    return (
      <Text size="sm" c="red" role="alert">
        {`Failed: ${post.failureMessage ?? failureLabels[post.failureCode!]}`}
      </Text>
    );
  }
  if (post.status === 'scheduled' && post.waitingMessage) {
    return (
      <Text size="sm" c="yellow.8">
        {post.waitingMessage}
      </Text>
    );
  }
  return null;
}
