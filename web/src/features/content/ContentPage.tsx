import { useState } from 'react';
import { Alert, Button, Paper, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { postStatusValues, type Post, type PostStatus, type UpdatePostBody } from '@farm/api/contracts';
import { serverMessageOr } from '../../shared/api';
import { errorToast, toast } from '../../shared/toast';
import { LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { useAccountsList, useDeletePost, usePosts, useUpdatePost } from './content.api';
import { postStatusLabels, publishBody, unscheduleBody } from './content.form';
import { CreatePostModal } from './components/CreatePostModal';
import { PostCard } from './components/PostCard';

type Filter = 'all' | PostStatus;

/** Content (/content): draft, schedule and publish posts. */
export function ContentPage() {
  const posts = usePosts();
  const accounts = useAccountsList();
  const update = useUpdatePost();
  const remove = useDeletePost();
  const [creating, setCreating] = useState(false);
  const [filter, setFilter] = useState<Filter>('all');
  const [deleting, setDeleting] = useState<Post | null>(null);

  function changeStatus(post: Post, body: UpdatePostBody): void {
    update.mutate(
      { id: post.id, body },
      {
        onSuccess: () => toast('Post Updated', 'Post status has been updated successfully'),
        onError: (error) => errorToast('Error', serverMessageOr(error, 'Failed to update post')),
      },
    );
  }

  function confirmDelete(): void {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        toast('Post Deleted', 'Post has been removed successfully');
        setDeleting(null);
      },
      onError: (error) => errorToast('Error', serverMessageOr(error, 'Failed to delete post')),
    });
  }

  const all = posts.data ?? [];
  const shown = filter === 'all' ? all : all.filter((post) => post.status === filter);
  const count = (status: PostStatus) => all.filter((post) => post.status === status).length;

  return (
    <Stack gap={0}>
      <PageHeader
        title="Content"
        subtitle="Draft, schedule and publish posts across your accounts"
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            Create Post
          </Button>
        }
      />

      {posts.isPending ? (
        <LoadingState label="Loading posts..." />
      ) : posts.isError ? (
        <Alert color="red" title="Failed to fetch posts">
          {posts.error.message}
        </Alert>
      ) : all.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap={4}>
            <Text fw={600}>No posts yet</Text>
            <Text c="dimmed" size="sm" ta="center">
              Create your first post to get started
            </Text>
          </Stack>
        </Paper>
      ) : (
        <Stack gap="md">
          <Tabs value={filter} onChange={(value) => setFilter((value as Filter | null) ?? 'all')}>
            <Tabs.List style={{ flexWrap: 'wrap' }} aria-label="Filter posts by status">
              <Tabs.Tab value="all">All ({all.length})</Tabs.Tab>
              {postStatusValues.map((status) => (
                <Tabs.Tab key={status} value={status}>
                  {postStatusLabels[status]} ({count(status)})
                </Tabs.Tab>
              ))}
            </Tabs.List>
          </Tabs>
          {shown.length === 0 ? (
            <Text c="dimmed" ta="center" py="xl">
              No {postStatusLabels[filter === 'all' ? 'draft' : filter].toLowerCase()} posts
            </Text>
          ) : (
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {shown.map((post) => (
                <PostCard
                  key={post.id}
                  post={post}
                  accounts={accounts.data ?? []}
                  busy={update.isPending && update.variables.id === post.id}
                  onPublish={() => changeStatus(post, publishBody())}
                  onUnschedule={() => changeStatus(post, unscheduleBody())}
                  onDelete={() => setDeleting(post)}
                />
              ))}
            </SimpleGrid>
          )}
        </Stack>
      )}

      <CreatePostModal opened={creating} onClose={() => setCreating(false)} />
      <ConfirmModal
        opened={deleting !== null}
        title="Delete Post"
        message="Delete this post? This cannot be undone."
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => setDeleting(null)}
      />
    </Stack>
  );
}
