import { Anchor, Button, Group, Image, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { IconCamera } from '@tabler/icons-react';
import { useState } from 'react';
import { formatDateTime } from '../../../shared/format';
import { useDeviceScreenshots } from '../../../shared/resources';
import { errorToast } from '../../../shared/toast';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useTakeScreenshot } from '../monitor.api';

export const PHONE_NOT_CONNECTED = 'Phone is not connected';

export interface ScreenshotFeedProps {
  deviceId: string;
  deviceName: string;
  canControl: boolean;
}

/** A phone's latest screenshots, newest first; new ones arrive pushed ('screenshot.added'). */
export function ScreenshotFeed({ deviceId, deviceName, canControl }: ScreenshotFeedProps) {
  const screenshots = useDeviceScreenshots(deviceId);
  const take = useTakeScreenshot();
  // The answer to the last request, for the phone it was about.
  const [answer, setAnswer] = useState<{ deviceId: string; delivered: boolean } | null>(null);
  const shown = answer?.deviceId === deviceId ? answer : null;
  const list = screenshots.data ?? [];

  const requestScreenshot = () => {
    take.mutate(deviceId, {
      onSuccess: ({ delivered }) => setAnswer({ deviceId, delivered }),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to take screenshot')),
    });
  };

  return (
    <section aria-labelledby="screenshots-title">
      <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
        <Title order={3} fz="md" id="screenshots-title">
          Screenshots
        </Title>
        {canControl ? (
          <Button size="xs" variant="light" leftSection={<IconCamera size={14} />} onClick={requestScreenshot} loading={take.isPending}>
            Take Screenshot
          </Button>
        ) : null}
      </Group>
      {shown ? (
        <Text size="sm" mb="sm" role="status" c={shown.delivered ? 'dimmed' : 'red'}>
          {shown.delivered ? 'Screenshot requested: it appears here when the phone sends it.' : PHONE_NOT_CONNECTED}
        </Text>
      ) : null}
      {screenshots.isPending ? (
        <LoadingState label="Loading screenshots..." />
      ) : list.length === 0 ? (
        <EmptyText>No screenshots yet</EmptyText>
      ) : (
        <SimpleGrid cols={{ base: 3, sm: 4 }} spacing="xs" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((shot) => (
            <Stack key={shot.url} gap={2} component="li">
              <Anchor href={shot.url} target="_blank" rel="noreferrer">
                <Image src={shot.url} alt={`${deviceName} at ${formatDateTime(shot.capturedAt)}`} radius="sm" fit="cover" style={{ aspectRatio: '9 / 16' }} />
              </Anchor>
              <Text size="xs" c="dimmed" truncate="end">
                {formatDateTime(shot.capturedAt)}
              </Text>
            </Stack>
          ))}
        </SimpleGrid>
      )}
    </section>
  );
}
