import { useState } from 'react';
import { ListToolbar, platformFilter } from '../../shared/ui/ListToolbar';
import { refusalMessage } from '../../shared/refusal';
import { Alert, Button, Group, Menu, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { IconCalendar, IconChevronDown, IconFileImport, IconPlus } from '@tabler/icons-react';
import { platformValues, postStatusValues, type Post, type PostStatus, type UpdatePostBody } from '@farm/contracts';
import { Link } from 'react-router';
import { useBulkAction } from '../../shared/bulk.api';
import { usePagedList } from '../../shared/paged';
import { useUrlFilters, useUrlSearch } from '../../shared/url-filters';
import { BulkBar } from '../../shared/ui/BulkBar';
import { useCurrentUser } from '../auth/auth.api';
import { ExportButton } from '../../shared/ui/ExportButton';
import { ImportCsvModal } from '../../shared/ui/ImportCsvModal';
import { LoadMore } from '../../shared/ui/LoadMore';
import { errorToast, toast } from '../../shared/toast';
import { EmptyCard, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { useAccountsList, useDeletePost, useUpdatePost } from './content.api';
import { postStatusLabels, publishBody, unscheduleBody } from './content.form';
import { CreatePostModal } from './components/CreatePostModal';
import { PostCard } from './components/PostCard';

type Filter = 'all' | PostStatus;
const FILTER_KEYS = ['status', 'platform', 'search'] as const;
const offsets = [
  { label: '1 hour later', minutes: 60 },
  { label: '1 day later', minutes: 24 * 60 },
  { label: '1 week later', minutes: 7 * 24 * 60 },
  { label: '1 hour earlier', minutes: -60 },
  { label: '1 day earlier', minutes: -24 * 60 },
];

function asFilter(value: string | null): Filter {
  return postStatusValues.find((status) => status === value) ?? 'all';
}

/** Content (/content): draft, schedule and publish posts. */
export function ContentPage() {
  const [filters, setFilters] = useUrlFilters(FILTER_KEYS);
  const filter = asFilter(filters.status);
  const [search, setSearch] = useUrlSearch(filters.search, setFilters);
  const platform = platformValues.find((value) => value === filters.platform);
  const listFilters = { status: filter === 'all' ? undefined : filter, platform, search: filters.search };
  const posts = usePagedList<Post>('/api/posts', listFilters);
  const accounts = useAccountsList();
  const update = useUpdatePost();
  const remove = useDeletePost();
  // Bulk actions and import are operators' (a VA works the posts of their phones' accounts one by one).
  const isOperator = useCurrentUser()?.role === 'operator';
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [editing, setEditing] = useState<Post | null>(null);
  const [deleting, setDeleting] = useState<Post | null>(null);
  const shown = posts.rows;
  const bulk = useBulkAction('posts', shown, listFilters);
  const { order, selection } = bulk;

  function changeStatus(post: Post, body: UpdatePostBody): void {
    update.mutate(
      { id: post.id, body },
      {
        onSuccess: () => toast('Post Updated', 'Post status has been updated successfully'),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update post')),
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
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to delete post')),
    });
  }

  const empty = filter === 'all' && !platform && !filters.search && !posts.isPending && shown.length === 0;

  return (
    <Stack gap={0}>
      <PageHeader
        title="Content"
        subtitle="Draft, schedule and publish posts across your accounts"
        actions={
          <Group gap="xs">
            <Button component={Link} to="/content/calendar" variant="default" leftSection={<IconCalendar size={16} />}>
              Calendar
            </Button>
            {isOperator ? (
              <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={() => setImporting(true)}>
                Import CSV
              </Button>
            ) : null}
            <ExportButton entity="posts" filters={listFilters} />
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              Create Post
            </Button>
          </Group>
        }
      />

      {posts.isPending ? (
        <LoadingState label="Loading posts..." />
      ) : posts.isError ? (
        <Alert color="red" title="Failed to fetch posts">
          {posts.error.message}
        </Alert>
      ) : empty ? (
        <EmptyCard title="No posts yet" hint="Create your first post to get started" />
      ) : (
        <Stack gap="md">
          <ListToolbar
            search={{ label: 'Search posts', placeholder: 'Search captions...', value: search, onChange: setSearch }}
            filters={[platformFilter(platform, (next) => setFilters({ platform: next }))]}
            mb={0}
          />
          <Tabs value={filter} onChange={(value) => setFilters({ status: asFilter(value) === 'all' ? null : value })}>
            <Tabs.List style={{ flexWrap: 'wrap' }} aria-label="Filter posts by status">
              <Tabs.Tab value="all">All</Tabs.Tab>
              {postStatusValues.map((status) => (
                <Tabs.Tab key={status} value={status}>
                  {postStatusLabels[status]}
                </Tabs.Tab>
              ))}
            </Tabs.List>
          </Tabs>
          {isOperator && shown.length > 0 ? (
            <BulkBar
              onDelete={bulk.askDelete}
              selection={selection}
              pageIds={order}
              noun="posts"
              {...(posts.hasNextPage ? { more: true } : { total: shown.length })}
            >
              <Menu position="bottom-start" withinPortal>
                <Menu.Target>
                  <Button size="compact-sm" variant="light" rightSection={<IconChevronDown size={14} />} loading={bulk.pending}>
                    Reschedule
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  {offsets.map((offset) => (
                    <Menu.Item key={offset.minutes} onClick={() => bulk.run({ action: 'reschedule', offsetMinutes: offset.minutes }, `moved ${offset.label}`)}>
                      {offset.label}
                    </Menu.Item>
                  ))}
                </Menu.Dropdown>
              </Menu>
              <Button size="compact-sm" variant="light" onClick={() => bulk.run({ action: 'update', changes: { status: 'draft' } }, 'unscheduled')}>
                Unschedule
              </Button>
            </BulkBar>
          ) : null}
          {shown.length === 0 ? (
            <Text c="dimmed" ta="center" py="xl">
              {filter === 'all' ? 'No posts match your filters' : `No ${postStatusLabels[filter].toLowerCase()} posts`}
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
                  onEdit={() => setEditing(post)}
                  onRetry={() => setEditing(post)}
                  selected={selection.has(post.id)}
                  {...(isOperator ? { onSelect: (range: boolean) => selection.toggle(post.id, range) } : {})}
                />
              ))}
            </SimpleGrid>
          )}
          <LoadMore hasMore={posts.hasNextPage} loading={posts.isFetchingNextPage} onLoad={() => void posts.fetchNextPage()} />
        </Stack>
      )}

      <CreatePostModal opened={creating} onClose={() => setCreating(false)} />
      <CreatePostModal opened={editing !== null} post={editing} onClose={() => setEditing(null)} />
      <ImportCsvModal entity="posts" opened={importing} onClose={() => setImporting(false)} />
      <ConfirmModal
        title="Delete the selected posts?"
        message={`${selection.allMatching ? (posts.hasNextPage ? 'All matching' : shown.length) : selection.ids.size} posts will be removed for good.`}
        confirmLabel="Delete"
        {...bulk.confirmDelete}
      />
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
