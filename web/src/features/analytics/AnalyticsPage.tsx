import { Card, Grid, Group, Progress, Select, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconActivity, IconClock, IconListCheck, IconTargetArrow } from '@tabler/icons-react';
import { rangeValues, type Range } from '@farm/api/contracts';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { formatDuration, formatPercent } from '../../shared/format';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { StatCard } from '../../shared/ui/StatCard';
import { usePerformance, useStats } from './analytics.api';

const PerformanceChart = lazy(async () => ({ default: (await import('./components/PerformanceChart')).PerformanceChart }));

const rangeLabels: Record<Range, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};
const rangeOptions = rangeValues.map((value) => ({ value, label: rangeLabels[value] }));
const LIST_SIZE = 5;

function isRange(value: string | null): value is Range {
  return rangeValues.some((range) => range === value);
}

interface Row {
  id: string;
  name: string;
  detail: string;
  successRate: number;
}

function PerformanceCard({ title, rows, loading, empty }: { title: string; rows: readonly Row[]; loading: boolean; empty: string }) {
  const headingId = `${title.toLowerCase().replace(/\s+/g, '-')}-title`;
  let body: ReactNode;
  if (loading) body = <LoadingState label="Loading performance..." />;
  else if (rows.length === 0) body = <EmptyText>{empty}</EmptyText>;
  else
    body = (
      <Stack gap="md">
        <Stack gap="sm" component="ol" m={0} p={0} style={{ listStyle: 'none' }}>
          {rows.map((row) => (
            <li key={row.id}>
              <Group justify="space-between" gap="xs" wrap="nowrap" mb={4}>
                <Text fw={600} size="sm" truncate="end">
                  {row.name}
                </Text>
                <Text size="sm" fw={600}>
                  {row.successRate}%
                </Text>
              </Group>
              <Progress value={row.successRate} size="sm" aria-label={`${row.name} success rate`} />
              <Text size="xs" c="dimmed" mt={4}>
                {row.detail}
              </Text>
            </li>
          ))}
        </Stack>
        <Suspense fallback={<Skeleton h={200} />}>
          <PerformanceChart data={rows} label={`${title} chart of success rates`} />
        </Suspense>
      </Stack>
    );
  return (
    <Card withBorder padding="lg" radius="md" h="100%" component="section" aria-labelledby={headingId}>
      <Title order={2} fz="lg" mb="md" id={headingId}>
        {title}
      </Title>
      {body}
    </Card>
  );
}

export function AnalyticsPage() {
  const [range, setRange] = useState<Range>('7d');
  const stats = useStats(range);
  const performance = usePerformance(range);

  const deviceRows: Row[] = (performance.data?.devices ?? []).slice(0, LIST_SIZE).map((device) => ({
    id: device.deviceId,
    name: device.name,
    detail: `${device.completedTasks} of ${device.totalTasks} tasks completed`,
    successRate: device.successRate,
  }));
  const vaRows: Row[] = (performance.data?.vas ?? []).slice(0, LIST_SIZE).map((va) => ({
    id: va.userId,
    name: va.name,
    detail: `${va.completedTasks} of ${va.totalTasks} tasks completed · ${va.hours}h on devices`,
    successRate: va.successRate,
  }));

  return (
    <>
      <PageHeader
        title="Analytics"
        subtitle="Performance insights and metrics"
        actions={
          <Select
            aria-label="Time range"
            data={rangeOptions}
            value={range}
            allowDeselect={false}
            onChange={(value) => isRange(value) && setRange(value)}
            w={180}
          />
        }
      />

      <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md" mb="lg">
        <StatCard title="Total Tasks" value={stats.data?.totalTasks ?? 0} loading={stats.isPending} icon={<IconListCheck size={22} />} description={rangeLabels[range]} />
        <StatCard
          title="Success Rate"
          value={formatPercent(stats.data?.successRate ?? 0)}
          loading={stats.isPending}
          icon={<IconTargetArrow size={22} />}
          description={stats.data ? `${stats.data.completedTasks} completed` : undefined}
        />
        <StatCard
          title="Avg Session Time"
          value={formatDuration(stats.data?.avgSessionTime ?? 0)}
          loading={stats.isPending}
          icon={<IconClock size={22} />}
          description="Session time per task"
        />
        <StatCard title="Active Sessions" value={stats.data?.activeSessions ?? 0} loading={stats.isPending} icon={<IconActivity size={22} />} description="Running now" />
      </SimpleGrid>

      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 6 }}>
          <PerformanceCard title="Device Performance" rows={deviceRows} loading={performance.isPending} empty="No device activity in this period" />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <PerformanceCard title="VA Performance" rows={vaRows} loading={performance.isPending} empty="No VA activity in this period" />
        </Grid.Col>
      </Grid>
    </>
  );
}
