import { Badge, Button, Card, Group, Stack, Text } from '@mantine/core';
import { IconCalendarOff, IconSend, IconTrash } from '@tabler/icons-react';
import type { Account, Post } from '@farm/api/contracts';
import { formatDateTime } from '../../../shared/format';
import { captionPreview, postAccountLabel, postStatusColors, postStatusLabels, postTimeLine } from '../content.form';

export interface PostCardProps {
  post: Post;
  accounts: readonly Account[];
  onPublish: () => void;
  onUnschedule: () => void;
  onDelete: () => void;
  busy?: boolean;
}

export function PostCard({ post, accounts, onPublish, onUnschedule, onDelete, busy = false }: PostCardProps) {
  const preview = captionPreview(post.caption);
  const time = postTimeLine(post, formatDateTime);
  return (
    <Card withBorder radius="md" padding="lg" component="article" aria-label={`Post: ${preview}`}>
      <Stack gap="sm" h="100%">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
          <Text fw={500} style={{ overflowWrap: 'anywhere' }}>
            {preview}
          </Text>
          <Badge color={postStatusColors[post.status]} variant="light" style={{ flexShrink: 0 }}>
            {postStatusLabels[post.status]}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed" truncate>
          {postAccountLabel(post.accountId, accounts)}
        </Text>
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
          <Button size="xs" variant="subtle" color="red" leftSection={<IconTrash size={14} />} onClick={onDelete} disabled={busy}>
            Delete
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
