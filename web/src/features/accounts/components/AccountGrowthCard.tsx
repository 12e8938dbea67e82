/** Followers and following over the last 30 days, from the history the server keeps of every change. */
import { Card, Skeleton, Title } from '@mantine/core';
import type { AccountGrowth } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { lazy, Suspense } from 'react';
import { apiRequest } from '../../../shared/api';
import { EmptyText } from '../../../shared/ui/LoadingState';

const TrendChart = lazy(async () => ({ default: (await import('../../analytics/components/TrendChart')).TrendChart }));

export function AccountGrowthCard({ accountId }: { accountId: string }) {
  const path = `/api/analytics/accounts/${accountId}/growth`;
  const growth = useQuery<AccountGrowth>({
    queryKey: [path, { range: '30d' }],
    queryFn: ({ signal }) => apiRequest<AccountGrowth>(`${path}?range=30d`, { signal }),
  });
  const points = growth.data?.points ?? [];
  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="growth-title">
      <Title order={2} fz="lg" mb="md" id="growth-title">
        Growth (last 30 days)
      </Title>
      {growth.isPending ? (
        <Skeleton h={240} />
      ) : points.length === 0 || points.every((point) => point.followers === 0 && point.following === 0) ? (
        <EmptyText>No followers recorded yet</EmptyText>
      ) : (
        <Suspense fallback={<Skeleton h={240} />}>
          <TrendChart
            kind="area"
            points={points}
            series={[
              { name: 'followers', label: 'Followers', color: 'pink.6' },
              { name: 'following', label: 'Following', color: 'blue.6' },
            ]}
            formatAt={(at) => dayjs(at).format('D MMM')}
            label="Followers and following over the last 30 days"
          />
        </Suspense>
      )}
    </Card>
  );
}
