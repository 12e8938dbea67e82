import { Alert, Card, Group, Progress, Text, Title } from '@mantine/core';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { refusalMessage } from '../../../shared/refusal';
import { formatStorageSize } from '../../../shared/format';
import { useStorageUsage } from '../settings.api';

/** How much of the workspace's storage quota its files take (uploads, screenshots, captures). Operators only. */
export function StorageSection() {
  const usage = useStorageUsage(true);
  const data = usage.data;
  const share = data ? Math.min(100, (data.usedBytes / data.quotaBytes) * 100) : 0;
  const color = share >= 100 ? 'red' : share >= 90 ? 'orange' : 'blue';

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="storage-title">
      <Title order={2} fz="lg" mb={4} id="storage-title">
        Storage
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Uploads, profile pictures and phone screenshots count against the workspace's quota. When it is full, uploads are refused and new screenshots are
        dropped until files are removed (screenshots age out with retention).
      </Text>
      {usage.isPending ? (
        <LoadingState label="Loading storage usage..." />
      ) : usage.isError || !data ? (
        <Alert color="red" variant="light">
          {refusalMessage(usage.error, 'Failed to load storage usage')}
        </Alert>
      ) : (
        <>
          <Group justify="space-between" mb={6}>
            <Text fw={600}>
              {formatStorageSize(data.usedBytes)} of {formatStorageSize(data.quotaBytes)} used
            </Text>
            <Text size="sm" c="dimmed">
              {share < 1 && data.usedBytes > 0 ? '<1' : Math.round(share)}%
            </Text>
          </Group>
          <Progress value={share} color={color} size="lg" radius="sm" aria-label="Storage used" />
          {share >= 100 ? (
            <Text size="sm" c="red" mt="sm">
              The storage is full: uploads are refused and new screenshots are dropped.
            </Text>
          ) : null}
        </>
      )}
    </Card>
  );
}
