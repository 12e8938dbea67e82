import { useState } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { Alert, Badge, Button, Card, Group, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPencilPlus, IconPlus, IconSearch } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import type { Account, Campaign, Post } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { captionPreview, postAccountLabel, postStatusColors, postStatusLabels, postTimeLine } from '../../content/content.form';
import { useAttachPost, useCampaignPosts } from '../campaigns.api';
import { DIALOG_LIST_MAX_HEIGHT } from './LinkedAccountsCard';

/** Posts matching a search over caption and hashtags. */
export function matchPosts(posts: readonly Post[], search: string): Post[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return [...posts];
  return posts.filter((post) => post.caption.toLowerCase().includes(needle) || post.hashtags.some((tag) => tag.toLowerCase().includes(needle)));
}

interface AddPostModalProps {
  opened: boolean;
  onClose: () => void;
  campaign: Campaign;
  accounts: readonly Account[];
}

function AddPostModal({ opened, onClose, campaign, accounts }: AddPostModalProps) {
  const [search, setSearch] = useState('');
  const unassigned = useCampaignPosts('none', opened);
  const attach = useAttachPost(campaign.id);
  const posts = matchPosts(unassigned.data ?? [], search);

  function choose(post: Post): void {
    attach.mutate(post.id, {
      onSuccess: () => {
        toast('Post Added', `The post was added to ${campaign.name}.`);
        setSearch('');
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to add post. Please try again.')),
    });
  }

  return (
    <FormModal opened={opened} onClose={onClose} title="Add Post">
      <Stack gap="sm">
        <TextInput
          label="Search posts"
          placeholder="Search by caption or hashtag..."
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          data-autofocus
        />
        <ScrollArea.Autosize mah={DIALOG_LIST_MAX_HEIGHT} type="auto">
          {unassigned.isPending ? (
            <LoadingState label="Loading posts..." />
          ) : unassigned.isError ? (
            <Alert color="red" title="Failed to fetch posts" />
          ) : posts.length === 0 ? (
            <Text size="sm" c="dimmed" py="sm">
              No posts without a campaign.
            </Text>
          ) : (
            <Stack gap={6} component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
              {posts.map((post) => (
                <Group key={post.id} component="li" justify="space-between" wrap="nowrap" gap="sm" py={4}>
                  <Stack gap={0} miw={0}>
                    <Text size="sm" fw={500} lineClamp={2}>
                      {captionPreview(post.caption)}
                    </Text>
                    <Text size="xs" c="dimmed" truncate>
                      {postAccountLabel(post.accountId, accounts)} · {postStatusLabels[post.status]}
                    </Text>
                  </Stack>
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={`Add post: ${captionPreview(post.caption)}`}
                    loading={attach.isPending && attach.variables === post.id}
                    disabled={attach.isPending}
                    onClick={() => choose(post)}
                  >
                    Add
                  </Button>
                </Group>
              ))}
            </Stack>
          )}
        </ScrollArea.Autosize>
      </Stack>
    </FormModal>
  );
}

export interface ScheduledContentCardProps {
  campaign: Campaign;
  accounts: readonly Account[];
}

/** Posts of an instagram or tiktok campaign. */
export function ScheduledContentCard({ campaign, accounts }: ScheduledContentCardProps) {
  const navigate = useNavigate();
  const posts = useCampaignPosts(campaign.id);
  const [adding, setAdding] = useState(false);

  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Title order={2} fz="lg">
            Scheduled Content
          </Title>
          <Group gap="xs">
            <Button size="xs" variant="default" leftSection={<IconPlus size={14} />} onClick={() => setAdding(true)}>
              Add Post
            </Button>
            <Button size="xs" leftSection={<IconPencilPlus size={14} />} onClick={() => void navigate('/content')}>
              Create New
            </Button>
          </Group>
        </Group>
        {posts.isPending ? (
          <LoadingState label="Loading posts..." />
        ) : posts.isError ? (
          <Alert color="red" title="Failed to fetch posts" />
        ) : posts.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No posts in this campaign yet.
          </Text>
        ) : (
          <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Campaign posts">
            {posts.data.map((post) => (
              <Group key={post.id} component="li" justify="space-between" wrap="nowrap" gap="sm" align="flex-start">
                <Stack gap={0} miw={0}>
                  <Text size="sm" fw={500} lineClamp={2}>
                    {captionPreview(post.caption)}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {postAccountLabel(post.accountId, accounts)}
                    {postTimeLine(post, formatDateTime) ? ` · ${postTimeLine(post, formatDateTime)}` : ''}
                  </Text>
                </Stack>
                <Badge color={postStatusColors[post.status]} variant="light" style={{ flexShrink: 0 }}>
                  {postStatusLabels[post.status]}
                </Badge>
              </Group>
            ))}
          </Stack>
        )}
      </Stack>
      <AddPostModal opened={adding} onClose={() => setAdding(false)} campaign={campaign} accounts={accounts} />
    </Card>
  );
}
