import { Text } from '@mantine/core';
import { failureLabels, type Post } from '@farm/contracts';

/** Why a failed post failed, in the console's words: one its phone could not confirm reads "Not confirmed". */
export function postFailureReason(post: Pick<Post, 'failureCode' | 'failureMessage'>): string {
  if (post.failureCode === 'post_unconfirmed') return 'Not confirmed';
  return post.failureMessage ?? (post.failureCode ? failureLabels[post.failureCode] : 'no reason given');
}

/** Why a post failed, or while it is due and not yet on a phone, what it waits for. */
export function PostDeliveryNote({ post }: { post: Pick<Post, 'status' | 'failureCode' | 'failureMessage' | 'waitingMessage'> }) {
  if (post.status === 'failed' && (post.failureMessage || post.failureCode)) {
    return (
      <>
        <Text size="sm" c="red" role="alert">
          {`Failed: ${postFailureReason(post)}`}
        </Text>
        {post.failureCode === 'post_unconfirmed' ? (
          <Text size="xs" c="dimmed">
            The app never said it posted: the phone's VA is asked whether it is up.
          </Text>
        ) : null}
      </>
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
