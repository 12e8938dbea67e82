/** Content calendar (/content/calendar): scheduled, published and failed posts by month or week; drag to reschedule. */
import { ActionIcon, Badge, Box, Button, Group, Paper, SegmentedControl, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { IconChevronLeft, IconChevronRight, IconLayoutGrid, IconPlus } from '@tabler/icons-react';
import type { Account, Post } from '@farm/contracts';
import dayjs from 'dayjs';
import { useMemo, useState, type DragEvent, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { useList } from '../../../shared/resources';
import { inZone, useUserTimeZone } from '../../../shared/timezone';
import { errorToast, toast } from '../../../shared/toast';
import { useUrlFilters } from '../../../shared/url-filters';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { PageHeader } from '../../../shared/ui/PageHeader';
import { useAccountsList, useUpdatePost } from '../content.api';
import { captionPreview, postStatusLabels } from '../content.form';
import { CreatePostModal } from '../components/CreatePostModal';
import { postFailureReason } from '../components/PostDeliveryNote';
import { canMove, dayOf, droppedAt, platformColors, postTime, statusColors, visibleDays, windowOf, type CalendarView } from './calendar.model';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const DRAG_TYPE = 'application/x-farm-post';

function PostChip({ post, account, zone, onOpen }: { post: Post; account: Account | undefined; zone: string; onOpen: () => void }) {
  const time = postTime(post);
  const movable = canMove(post);
  const visible = `${time ? `${inZone(time, zone).format('HH:mm')} ` : ''}${captionPreview(post.caption)}`;
  const reason = post.status === 'failed' ? `: ${postFailureReason(post)}` : '';
  const label = `${visible} · ${account ? `@${account.username}` : 'Unknown Account'} · ${postStatusLabels[post.status]}${reason}`;
  return (
    // A div, not a button: Chromium does not start a drag from a <button>.
    <Box
      role="button"
      tabIndex={0}
      draggable={movable}
      onDragStart={(event: DragEvent<HTMLDivElement>) => {
        event.dataTransfer.setData(DRAG_TYPE, post.id);
        event.dataTransfer.setData('text/plain', post.id);
        event.dataTransfer.effectAllowed = 'move';
      }}
      onClick={(event) => {
        event.stopPropagation();
        onOpen();
      }}
      onKeyDown={(event: KeyboardEvent<HTMLDivElement>) => {
        if (event.key !== 'Enter' && event.key !== ' ') return;
        event.preventDefault();
        event.stopPropagation();
        onOpen();
      }}
      aria-label={label}
      title={reason ? label : undefined}
      data-post-id={post.id}
      style={{
        display: 'block',
        width: '100%',
        cursor: movable ? 'grab' : 'pointer',
        borderLeft: `4px solid var(--mantine-color-${account ? platformColors[account.platform] : 'gray'}-6)`,
        background: `var(--mantine-color-${statusColors[post.status]}-light)`,
        borderRadius: 4,
        padding: '2px 6px',
      }}
    >
      <Text size="xs" fw={600} truncate="end" c="var(--mantine-color-text)">
        {visible}
      </Text>
    </Box>
  );
}

export function CalendarPage() {
  const zone = useUserTimeZone();
  const [params, setParams] = useUrlFilters(['view', 'date'] as const);
  const view: CalendarView = params.view === 'week' ? 'week' : 'month';
  const anchor = /^\d{4}-\d{2}-\d{2}$/.test(params.date) ? params.date : inZone(Date.now(), zone).format('YYYY-MM-DD');
  const days = useMemo(() => visibleDays(view, anchor, zone), [view, anchor, zone]);
  const window = windowOf(days, zone);
  const posts = useList<Post>('/api/posts', { ...window, limit: 1000 });
  const accounts = useAccountsList();
  const accountMap = useMemo(() => new Map((accounts.data ?? []).map((account) => [account.id, account])), [accounts.data]);
  const update = useUpdatePost();
  const [editing, setEditing] = useState<Post | null>(null);
  const [creatingAt, setCreatingAt] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);

  const byDay = useMemo(() => {
    const map = new Map<string, Post[]>();
    for (const post of posts.data ?? []) {
      const time = postTime(post);
      if (!time) continue;
      const key = dayOf(time, zone);
      map.set(
        key,
        [...(map.get(key) ?? []), post].sort((a, b) => (postTime(a) ?? '').localeCompare(postTime(b) ?? '')),
      );
    }
    return map;
  }, [posts.data, zone]);

  const move = (postId: string, day: string, hour: number | null) => {
    const post = posts.data?.find((row) => row.id === postId);
    const time = post ? postTime(post) : null;
    if (!post || !time || !canMove(post)) return;
    const scheduledAt = droppedAt(time, day, hour, zone);
    if (scheduledAt === post.scheduledAt) return;
    update.mutate(
      { id: post.id, body: post.status === 'failed' ? { status: 'scheduled', scheduledAt } : { scheduledAt } },
      {
        onSuccess: () => toast('Post Rescheduled', `Now ${inZone(scheduledAt, zone).format('ddd D MMM, HH:mm')}`),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to reschedule post')),
      },
    );
  };

  const dropTarget = (key: string, day: string, hour: number | null) => ({
    onDragOver: (event: DragEvent) => {
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      if (over !== key) setOver(key);
    },
    onDragLeave: () => setOver((current) => (current === key ? null : current)),
    onDrop: (event: DragEvent) => {
      event.preventDefault();
      setOver(null);
      const id = event.dataTransfer.getData(DRAG_TYPE) || event.dataTransfer.getData('text/plain');
      if (id) move(id, day, hour);
    },
    'data-drop': key,
  });

  const step = (direction: 1 | -1) => {
    const next = dayjs(anchor)
      .add(direction, view === 'month' ? 'month' : 'week')
      .format('YYYY-MM-DD');
    setParams({ date: next });
  };
  const title = view === 'month' ? dayjs(anchor).format('MMMM YYYY') : `${dayjs(days[0]).format('D MMM')} – ${dayjs(days[6]).format('D MMM YYYY')}`;
  const today = inZone(Date.now(), zone).format('YYYY-MM-DD');
  const month = anchor.slice(0, 7);

  return (
    <Stack gap="md">
      <PageHeader
        title="Content Calendar"
        subtitle={`Scheduled, published and failed posts · times in ${zone}`}
        actions={
          <Button component={Link} to="/content" variant="default" leftSection={<IconLayoutGrid size={16} />}>
            All posts
          </Button>
        }
      />
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs">
          <ActionIcon variant="default" size="lg" aria-label={view === 'month' ? 'Previous month' : 'Previous week'} onClick={() => step(-1)}>
            <IconChevronLeft size={18} />
          </ActionIcon>
          <Button variant="default" onClick={() => setParams({ date: null })}>
            Today
          </Button>
          <ActionIcon variant="default" size="lg" aria-label={view === 'month' ? 'Next month' : 'Next week'} onClick={() => step(1)}>
            <IconChevronRight size={18} />
          </ActionIcon>
          <Text fw={700} fz="lg" component="h2" m={0} aria-live="polite">
            {title}
          </Text>
        </Group>
        <SegmentedControl
          aria-label="Calendar view"
          value={view}
          onChange={(value) => setParams({ view: value === 'week' ? 'week' : null })}
          data={[
            { value: 'month', label: 'Month' },
            { value: 'week', label: 'Week' },
          ]}
        />
      </Group>
      <Group gap="xs" wrap="wrap" aria-label="Legend">
        {(['scheduled', 'published', 'failed'] as const).map((status) => (
          <Badge key={status} color={statusColors[status]} variant="light">
            {postStatusLabels[status]}
          </Badge>
        ))}
        <Text size="xs">
          The coloured edge is the platform. Drag a scheduled or failed post to another {view === 'month' ? 'day' : 'hour'} to reschedule it; click a day to
          create a post there.
        </Text>
      </Group>

      {posts.isPending ? <LoadingState label="Loading posts..." /> : null}

      {view === 'month' ? (
        <Box style={{ overflowX: 'auto' }}>
          <Box
            component="section"
            aria-label={`Posts in ${title}`}
            style={{ display: 'grid', gridTemplateColumns: 'repeat(7, minmax(84px, 1fr))', gap: 4, minWidth: 620 }}
          >
            {WEEKDAYS.map((weekday) => (
              <Text key={weekday} size="xs" fw={700} ta="center" aria-hidden>
                {weekday}
              </Text>
            ))}
            {days.map((day) => {
              const list = byDay.get(day) ?? [];
              return (
                <Paper
                  key={day}
                  role="group"
                  aria-label={dayjs(day).format('dddd D MMMM')}
                  withBorder
                  p={4}
                  mih={96}
                  onClick={() => setCreatingAt(`${day}T09:00`)}
                  style={{
                    cursor: 'copy',
                    background: day.slice(0, 7) === month ? undefined : 'var(--mantine-color-default-hover)',
                    outline: over === day ? '2px solid var(--mantine-color-blue-6)' : undefined,
                  }}
                  {...dropTarget(day, day, null)}
                >
                  <Group justify="space-between" gap={2} wrap="nowrap" mb={2}>
                    <Text size="xs" fw={day === today ? 800 : 500} td={day === today ? 'underline' : undefined} aria-hidden>
                      {Number(day.slice(8))}
                    </Text>
                    <ActionIcon
                      size="xs"
                      variant="subtle"
                      aria-label={`Create a post on ${dayjs(day).format('dddd D MMMM')}`}
                      onClick={(event) => {
                        event.stopPropagation();
                        setCreatingAt(`${day}T09:00`);
                      }}
                    >
                      <IconPlus size={12} />
                    </ActionIcon>
                  </Group>
                  <Stack gap={2}>
                    {list.map((post) => (
                      <PostChip key={post.id} post={post} account={accountMap.get(post.accountId)} zone={zone} onOpen={() => setEditing(post)} />
                    ))}
                  </Stack>
                </Paper>
              );
            })}
          </Box>
        </Box>
      ) : (
        <Box style={{ overflow: 'auto', maxHeight: '70vh' }}>
          <Box
            component="section"
            aria-label={`Posts in the week of ${title}`}
            style={{ display: 'grid', gridTemplateColumns: '48px repeat(7, minmax(96px, 1fr))', gap: 2, minWidth: 740 }}
          >
            <span />
            {days.map((day, index) => (
              <Tooltip key={day} label="Create a post on this day">
                <UnstyledButton
                  onClick={() => setCreatingAt(`${day}T09:00`)}
                  style={{ textAlign: 'center' }}
                  aria-label={`${WEEKDAYS[index]} ${Number(day.slice(8))}: create a post on this day`}
                >
                  <Text size="xs" fw={700} td={day === today ? 'underline' : undefined}>
                    {WEEKDAYS[index]} {Number(day.slice(8))}
                  </Text>
                </UnstyledButton>
              </Tooltip>
            ))}
            {HOURS.map((hour) => (
              <Box key={hour} style={{ display: 'contents' }}>
                <Text size="xs" ta="right" pr={4} aria-hidden>
                  {String(hour).padStart(2, '0')}:00
                </Text>
                {days.map((day) => {
                  const key = `${day}T${hour}`;
                  const list = (byDay.get(day) ?? []).filter((post) => inZone(postTime(post)!, zone).hour() === hour);
                  return (
                    <Box
                      key={key}
                      role="group"
                      aria-label={`${dayjs(day).format('dddd D MMMM')} ${String(hour).padStart(2, '0')}:00`}
                      mih={28}
                      onClick={() => setCreatingAt(`${day}T${String(hour).padStart(2, '0')}:00`)}
                      style={{
                        borderTop: '1px solid var(--mantine-color-default-border)',
                        cursor: 'copy',
                        outline: over === key ? '2px solid var(--mantine-color-blue-6)' : undefined,
                      }}
                      {...dropTarget(key, day, hour)}
                    >
                      <Stack gap={2}>
                        {list.map((post) => (
                          <PostChip key={post.id} post={post} account={accountMap.get(post.accountId)} zone={zone} onOpen={() => setEditing(post)} />
                        ))}
                      </Stack>
                    </Box>
                  );
                })}
              </Box>
            ))}
          </Box>
        </Box>
      )}

      <CreatePostModal opened={creatingAt !== null} onClose={() => setCreatingAt(null)} scheduleAt={creatingAt} />
      <CreatePostModal opened={editing !== null} post={editing} onClose={() => setEditing(null)} />
    </Stack>
  );
}
