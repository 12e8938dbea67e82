import { Button, Card, Grid, Group, Select, Skeleton, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { IconActivity, IconArrowDown, IconArrowUp, IconClock, IconListCheck, IconTargetArrow } from '@tabler/icons-react';
import { leaderboardColumns, rangeValues, type LeaderboardTable, type Range, type TimeseriesMetric } from '@farm/contracts';
import dayjs from 'dayjs';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { formatDuration, formatPercent } from '../../shared/format';
import { useUrlFilters } from '../../shared/url-filters';
import { ExportButton } from '../../shared/ui/ExportButton';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { StatGrid } from '../../shared/ui/StatCard';
import { useGroups } from '../groups/groups.api';
import { ALL_GROUPS } from '../groups/group-filter';
import { changeOf, useLeaderboard, useTimeseries, useWindowedStats, type AnalyticsWindow } from './analytics.api';
import type { TrendSeries } from './components/TrendChart';
import { ScrollX } from '../../shared/ui/ScrollX';

const TrendChart = lazy(async () => ({ default: (await import('./components/TrendChart')).TrendChart }));

const CUSTOM = 'custom';
const rangeLabels: Record<Range, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};
const rangeOptions = [...rangeValues.map((value) => ({ value, label: rangeLabels[value] })), { value: CUSTOM, label: 'Custom range' }];
const changeLabels: Record<Range, string> = { '24h': 'vs previous 24 hours', '7d': 'vs last week', '30d': 'vs previous 30 days', '90d': 'vs previous 90 days' };
const TOP = 5;
const ALL_ROWS = 1000;

function isRange(value: string | null): value is Range {
  return rangeValues.some((range) => range === value);
}

const charts: { metric: TimeseriesMetric; title: string; kind: 'bar' | 'area'; series: TrendSeries[]; unit?: string; empty: string; stacked?: boolean }[] = [
  {
    metric: 'tasks',
    title: 'Tasks completed vs failed',
    kind: 'bar',
    series: [
      { name: 'completed', label: 'Completed', color: 'teal.6' },
      { name: 'failed', label: 'Failed', color: 'red.6' },
    ],
    empty: 'No tasks finished in this period',
  },
  {
    metric: 'posts',
    title: 'Posts published per platform',
    kind: 'bar',
    stacked: true,
    series: [
      { name: 'instagram', label: 'Instagram', color: 'pink.6' },
      { name: 'tiktok', label: 'TikTok', color: 'grape.6' },
      { name: 'facebook', label: 'Facebook', color: 'indigo.6' },
      { name: 'twitter', label: 'Twitter', color: 'cyan.6' },
      { name: 'youtube', label: 'YouTube', color: 'red.6' },
      { name: 'tinder', label: 'Tinder', color: 'orange.6' },
    ],
    empty: 'No posts published in this period',
  },
  {
    metric: 'sessions',
    title: 'Session hours',
    kind: 'area',
    series: [{ name: 'hours', label: 'Hours', color: 'blue.6' }],
    unit: ' h',
    empty: 'No sessions in this period',
  },
  {
    metric: 'devices',
    title: 'Device online time',
    kind: 'area',
    series: [{ name: 'hours', label: 'Hours online', color: 'green.6' }],
    unit: ' h',
    empty: 'No phone was online in this period',
  },
];

function TrendCard({ window, chart, groupId }: { window: AnalyticsWindow; chart: (typeof charts)[number]; groupId: string | null }) {
  const series = useTimeseries(window, chart.metric, groupId);
  const headingId = `${chart.metric}-trend-title`;
  const points = series.data?.points ?? [];
  const empty = points.every((point) => chart.series.every((entry) => (point[entry.name] ?? 0) === 0));
  const formatAt = (at: string) => (series.data?.bucket === 'hour' ? dayjs(at).format('HH:mm') : dayjs(at).format('D MMM'));
  let body: ReactNode;
  if (series.isPending) body = <Skeleton h={240} />;
  else if (empty) body = <EmptyText>{chart.empty}</EmptyText>;
  else
    body = (
      <Suspense fallback={<Skeleton h={240} />}>
        <TrendChart
          kind={chart.kind}
          points={points}
          series={chart.series}
          formatAt={formatAt}
          unit={chart.unit ?? ''}
          label={`${chart.title} chart`}
          {...(chart.stacked ? { stacked: true } : {})}
        />
      </Suspense>
    );
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={headingId} h="100%">
      <Title order={2} fz="lg" mb="md" id={headingId}>
        {chart.title}
      </Title>
      {body}
    </Card>
  );
}

interface Column {
  key: string;
  label: string;
  format?: (value: number | string | null) => string;
}

/** Hours with one decimal, e.g. '3.5'. */
const hoursWithDecimal = (value: number | string | null) => (Number(value ?? 0) || 0).toFixed(1);

/** Name, count, completed, failed and success rate: how the devices, VAs and campaigns tables open. */
function outcomeColumns(name: string, total: string, totalLabel: string, completed: string, failed: string): Column[] {
  return [
    { key: 'name', label: name },
    { key: total, label: totalLabel },
    { key: completed, label: 'Completed' },
    { key: failed, label: 'Failed' },
    { key: 'successRate', label: 'Success', format: (value) => `${value ?? 0}%` },
  ];
}

const tables: { table: LeaderboardTable; title: string; columns: Column[]; empty: string; minWidth?: number; usageExport?: boolean }[] = [
  {
    table: 'devices',
    title: 'Device Performance',
    columns: [...outcomeColumns('Device', 'totalTasks', 'Tasks', 'completedTasks', 'failedTasks'), { key: 'hours', label: 'Session h' }],
    empty: 'No devices yet',
  },
  {
    table: 'vas',
    title: 'VA Performance',
    columns: [
      ...outcomeColumns('VA', 'totalTasks', 'Tasks', 'completedTasks', 'failedTasks'),
      { key: 'hours', label: 'Hours' },
      { key: 'handsOnHours', label: 'Hands-on hours', format: hoursWithDecimal },
    ],
    empty: 'No VAs yet',
    minWidth: 520,
    usageExport: true,
  },
  {
    table: 'campaigns',
    title: 'Campaign Performance',
    columns: [...outcomeColumns('Campaign', 'runs', 'Runs', 'completedRuns', 'failedRuns'), { key: 'postsPublished', label: 'Posts' }],
    empty: 'No campaigns yet',
  },
  {
    table: 'accounts',
    title: 'Account Performance',
    columns: [
      { key: 'name', label: 'Account' },
      { key: 'postsPublished', label: 'Posts' },
      { key: 'postsFailed', label: 'Failed' },
      { key: 'followers', label: 'Followers' },
      { key: 'followersGained', label: 'Gained', format: (value) => `${Number(value) > 0 ? '+' : ''}${value ?? 0}` },
      { key: 'following', label: 'Following' },
    ],
    empty: 'No accounts yet',
  },
];

function LeaderboardCard({ window, config, groupId }: { window: AnalyticsWindow; config: (typeof tables)[number]; groupId: string | null }) {
  const sortable: readonly string[] = leaderboardColumns[config.table];
  const [sort, setSort] = useState<string>(sortable[0]!);
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [all, setAll] = useState(false);
  const board = useLeaderboard(window, config.table, { sort, order, limit: all ? ALL_ROWS : TOP, groupId });
  const headingId = `${config.table}-performance-title`;
  const sortBy = (key: string) => {
    if (key === sort) setOrder(order === 'desc' ? 'asc' : 'desc');
    else {
      setSort(key);
      setOrder(key === 'name' ? 'asc' : 'desc');
    }
  };
  const rows = board.data?.rows ?? [];
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={headingId} h="100%">
      <Group justify="space-between" mb="sm">
        <Title order={2} fz="lg" id={headingId}>
          {config.title}
        </Title>
        <Group gap="xs">
          {config.usageExport ? <ExportButton entity="device-usage" label="Export device usage" filters={window} size="compact-sm" /> : null}
          <Button size="compact-sm" variant="subtle" onClick={() => setOrder(order === 'desc' ? 'asc' : 'desc')}>
            {order === 'desc' ? 'Show worst first' : 'Show best first'}
          </Button>
        </Group>
      </Group>
      {board.isPending ? (
        <LoadingState label="Loading performance..." />
      ) : rows.length === 0 ? (
        <EmptyText>{config.empty}</EmptyText>
      ) : (
        <ScrollX label={`${config.title}, scrollable`} minWidth={config.minWidth ?? 420}>
          <Table striped highlightOnHover aria-labelledby={headingId}>
            <Table.Thead>
              <Table.Tr>
                {config.columns.map((column) => (
                  <Table.Th key={column.key} aria-sort={sort === column.key ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
                    <UnstyledButton onClick={() => sortBy(column.key)} fz="sm" fw={700}>
                      <Group gap={2} wrap="nowrap">
                        {column.label}
                        {sort === column.key ? order === 'asc' ? <IconArrowUp size={12} aria-hidden /> : <IconArrowDown size={12} aria-hidden /> : null}
                      </Group>
                    </UnstyledButton>
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.id}>
                  {config.columns.map((column) => (
                    <Table.Td key={column.key}>{column.format ? column.format(row[column.key] ?? null) : String(row[column.key] ?? '')}</Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollX>
      )}
      {board.data && board.data.total > TOP ? (
        <Group justify="flex-end" mt="xs">
          <Button size="compact-sm" variant="light" onClick={() => setAll(!all)}>
            {all ? 'Show top 5' : `View all ${board.data.total}`}
          </Button>
        </Group>
      ) : null}
    </Card>
  );
}

export function AnalyticsPage() {
  const [params, setParams] = useUrlFilters(['range', 'from', 'to', 'group'] as const);
  const groups = useGroups();
  // A group in the address that no longer exists reads as every phone.
  const group = groups.data?.find((item) => item.id === params.group) ?? null;
  const groupId = group?.id ?? null;
  const custom = Boolean(params.from && params.to);
  const range: Range = isRange(params.range) ? params.range : '7d';
  const [choosingCustom, setChoosingCustom] = useState(custom);
  const window: AnalyticsWindow = custom ? { from: params.from, to: params.to } : { range };
  const stats = useWindowedStats(window, groupId);
  const previous = stats.data?.previous ?? undefined;
  const changeLabel = custom ? 'vs previous period' : changeLabels[range];
  const changeIn = (key: 'totalTasks' | 'successRate' | 'avgSessionTime' | 'activeSessions') =>
    stats.data ? changeOf(stats.data[key], previous?.[key]) : undefined;
  const periodLabel = custom ? `${params.from} to ${params.to}` : rangeLabels[range];
  const today = dayjs().format('YYYY-MM-DD');

  return (
    <>
      <PageHeader
        title="Analytics"
        subtitle="Performance insights and metrics"
        actions={
          <Group gap="xs" wrap="wrap">
            {(groups.data?.length ?? 0) > 0 ? (
              <Select
                aria-label="Filter by group"
                data={[
                  { value: ALL_GROUPS, label: 'All phones' },
                  ...(groups.data ?? []).map((item) => ({ value: item.id, label: `${item.kind === 'tag' ? '#' : ''}${item.name} (${item.deviceIds.length})` })),
                ]}
                value={groupId ?? ALL_GROUPS}
                allowDeselect={false}
                searchable
                onChange={(value) => setParams({ group: value && value !== ALL_GROUPS ? value : null })}
                w={200}
              />
            ) : null}
            <Select
              aria-label="Time range"
              data={rangeOptions}
              value={choosingCustom || custom ? CUSTOM : range}
              allowDeselect={false}
              onChange={(value) => {
                if (value === CUSTOM) {
                  setChoosingCustom(true);
                  setParams({ range: null, from: dayjs().subtract(6, 'day').format('YYYY-MM-DD'), to: today });
                } else if (isRange(value)) {
                  setChoosingCustom(false);
                  setParams({ range: value === '7d' ? null : value, from: null, to: null });
                }
              }}
              w={180}
            />
            {choosingCustom || custom ? (
              <>
                <TextInput
                  type="date"
                  aria-label="From"
                  value={params.from}
                  max={params.to || today}
                  onChange={(event) => setParams({ from: event.currentTarget.value })}
                  w={160}
                />
                <TextInput
                  type="date"
                  aria-label="To"
                  value={params.to}
                  min={params.from}
                  max={today}
                  onChange={(event) => setParams({ to: event.currentTarget.value })}
                  w={160}
                />
              </>
            ) : null}
          </Group>
        }
      />

      <StatGrid
        loading={stats.isPending}
        cards={[
          {
            title: 'Total Tasks',
            value: stats.data?.totalTasks ?? 0,
            icon: <IconListCheck size={22} />,
            description: periodLabel,
            change: changeIn('totalTasks'),
          },
          {
            title: 'Success Rate',
            value: formatPercent(stats.data?.successRate ?? 0),
            icon: <IconTargetArrow size={22} />,
            description: stats.data ? `${stats.data.completedTasks} completed` : undefined,
            change: changeIn('successRate'),
          },
          {
            title: 'Avg Session Time',
            value: formatDuration(stats.data?.avgSessionTime ?? 0),
            icon: <IconClock size={22} />,
            description: 'Session time per task',
            change: changeIn('avgSessionTime'),
          },
          {
            title: 'Active Sessions',
            value: stats.data?.activeSessions ?? 0,
            icon: <IconActivity size={22} />,
            description: 'Running now',
            change: changeIn('activeSessions'),
          },
        ].map((card) => ({ ...card, changeLabel }))}
      />
      {stats.data ? (
        <Text size="xs" c="dimmed" mb="md">
          Days are counted in {stats.data.timeZone}.
          {group
            ? ` The figures, the charts and the device table count the ${group.deviceIds.length} phones of ${group.name} (posts: of the accounts on them); the other tables count the whole workspace.`
            : ''}
        </Text>
      ) : null}

      <Grid gap="md" mb="md">
        {charts.map((chart) => (
          <Grid.Col key={chart.metric} span={{ base: 12, md: 6 }}>
            <TrendCard window={window} chart={chart} groupId={groupId} />
          </Grid.Col>
        ))}
      </Grid>

      <Grid gap="md">
        {tables.map((config) => (
          <Grid.Col key={config.table} span={{ base: 12, lg: 6 }}>
            <LeaderboardCard window={window} config={config} groupId={groupId} />
          </Grid.Col>
        ))}
      </Grid>
    </>
  );
}
