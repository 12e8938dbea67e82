import { Badge, Button, Card, Checkbox, Group, Image, Stack, Text } from '@mantine/core';
import { IconCalendarOff, IconEdit, IconRefresh, IconSend, IconTrash } from '@tabler/icons-react';
import type { Account, Post } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { PostDeliveryNote } from './PostDeliveryNote';
import { FailureEvidenceButton } from '../../tasks/evidence/FailureEvidence';
import { captionPreview, postAccountLabel, postStatusColors, postStatusLabels, postTimeLine } from '../content.form';

export interface PostCardProps {
  post: Post;
  accounts: readonly Account[];
  onPublish: () => void;
  onUnschedule: () => void;
  onDelete: () => void;
  busy?: boolean;
  /** Edit a draft, scheduled or failed post. */
  onEdit?: () => void;
  /** Give a failed post another time. */
  onRetry?: () => void;
  /** When given, the card has a checkbox for bulk actions; `range` is a shift-click. */
  selected?: boolean;
  onSelect?: (range: boolean) => void;
}

/** The console's own stored files. */
const STORED = /^\/api\/objects\/[0-9a-f-]{36}$/;
const THUMBS = 3;

export function PostCard({ post, accounts, onPublish, onUnschedule, onDelete, busy = false, onEdit, onRetry, selected, onSelect }: PostCardProps) {
  const preview = captionPreview(post.caption);
  const time = postTimeLine(post, formatDateTime);
  return (
    <Card withBorder radius="md" padding="lg" component="article" aria-label={`Post: ${preview}`}>
      <Stack gap="sm" h="100%">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
          {onSelect ? (
            <Checkbox
              mt={2}
              aria-label={`Select post: ${preview}`}
              checked={selected ?? false}
              onChange={() => undefined}
              onClick={(event) => onSelect(event.shiftKey)}
            />
          ) : null}
          <Text fw={500} style={{ overflowWrap: 'anywhere', flex: 1 }}>
            {preview}
          </Text>
          <Badge color={postStatusColors[post.status]} variant="light" style={{ flexShrink: 0 }}>
            {postStatusLabels[post.status]}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed" truncate>
          {postAccountLabel(post.accountId, accounts)}
        </Text>
        {post.mediaUrls.length > 0 ? (
          <Group gap={4} aria-label={`${post.mediaUrls.length} media`}>
            {post.mediaUrls.slice(0, THUMBS).map((url, index) =>
              // Only the workspace's own files are shown: an outside address (older posts) is never loaded by the browser.
              STORED.test(url) ? (
                <Image key={url} src={url} alt={`Media ${index + 1}`} w={48} h={48} radius="sm" fit="cover" loading="lazy" />
              ) : (
                <Badge key={url} size="sm" variant="light" color="gray">
                  {`Media ${index + 1}: outside link`}
                </Badge>
              ),
            )}
            {post.mediaUrls.length > THUMBS ? (
              <Text size="xs" c="dimmed">
                +{post.mediaUrls.length - THUMBS}
              </Text>
            ) : null}
          </Group>
        ) : null}
        {post.hashtags.length > 0 && (
          <Group gap={4}>
            {post.hashtags.map((tag) => (
              <Badge key={tag} size="sm" variant="outline" color="gray" style={{ textTransform: 'none' }} maw="100%">
                {tag}
              </Badge>
            ))}
          </Group>
        )}
        {time && (
          <Text size="xs" c="dimmed">
            {time}
          </Text>
        )}
        {post.mediaProblem ? (
          <Text size="sm" c="red" role="alert">
            {`Needs new media: ${post.mediaProblem}`}
          </Text>
        ) : null}
        <PostDeliveryNote post={post} />
        {post.status === 'failed' && post.failureCode ? (
          <Group>
            <FailureEvidenceButton source={{ kind: 'post', id: post.id }} />
          </Group>
        ) : null}
        <Group gap="xs" mt="auto">
          {post.status === 'draft' && (
            <Button size="xs" leftSection={<IconSend size={14} />} onClick={onPublish} disabled={busy}>
              Publish
            </Button>
          )}
          {post.status === 'scheduled' && (
            <Button size="xs" variant="light" leftSection={<IconCalendarOff size={14} />} onClick={onUnschedule} disabled={busy}>
              Unschedule
            </Button>
          )}
          {post.status === 'failed' && onRetry ? (
            <Button size="xs" variant="light" color="orange" leftSection={<IconRefresh size={14} />} onClick={onRetry} disabled={busy}>
              Retry
            </Button>
          ) : null}
          {post.status !== 'published' && onEdit ? (
            <Button size="xs" variant="default" leftSection={<IconEdit size={14} />} onClick={onEdit} disabled={busy}>
              Edit
            </Button>
          ) : null}
          <Button size="xs" variant="subtle" color="red" leftSection={<IconTrash size={14} />} onClick={onDelete} disabled={busy}>
            Delete
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
