import { useState } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { IconPencilPlus } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import type { Account, Campaign, Post } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { captionPreview, postAccountLabel, postStatusColors, postStatusLabels, postTimeLine } from '../../content/content.form';
import { useAttachPost, useCampaignPosts } from '../campaigns.api';
import { CampaignPanel, PanelAddButton, PanelList, PickerModal } from './CampaignPanel';

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
    <PickerModal
      opened={opened}
      onClose={onClose}
      title="Add Post"
      search={{ label: 'Search posts', placeholder: 'Search by caption or hashtag...', value: search, onChange: setSearch }}
      status={
        unassigned.isPending ? <LoadingState label="Loading posts..." /> : unassigned.isError ? <Alert color="red" title="Failed to fetch posts" /> : undefined
      }
      items={posts}
      empty="No posts without a campaign."
      itemKey={(post) => post.id}
      describe={(post) => (
        <>
          <Text size="sm" fw={500} lineClamp={2}>
            {captionPreview(post.caption)}
          </Text>
          <Text size="xs" c="dimmed" truncate>
            {postAccountLabel(post.accountId, accounts)} · {postStatusLabels[post.status]}
          </Text>
        </>
      )}
      pick={{
        label: 'Add',
        ariaLabel: (post) => `Add post: ${captionPreview(post.caption)}`,
        pending: attach.isPending,
        pendingKey: attach.variables,
        onPick: choose,
      }}
    />
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
    <CampaignPanel
      title="Scheduled Content"
      actions={
        <Group gap="xs">
          <PanelAddButton variant="default" label="Add Post" onClick={() => setAdding(true)} />
          <Button size="xs" leftSection={<IconPencilPlus size={14} />} onClick={() => void navigate('/content')}>
            Create New
          </Button>
        </Group>
      }
      dialogs={<AddPostModal opened={adding} onClose={() => setAdding(false)} campaign={campaign} accounts={accounts} />}
    >
      <PanelList
        query={posts}
        texts={{ loading: 'Loading posts...', failed: 'Failed to fetch posts', empty: 'No posts in this campaign yet.', list: 'Campaign posts' }}
      >
        {(post) => (
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
        )}
      </PanelList>
    </CampaignPanel>
  );
}
