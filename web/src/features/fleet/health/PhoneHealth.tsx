/** A phone's health: a compact indicator for the Devices grid, and a panel for its details. */
import { Badge, Group, SimpleGrid, Stack, Text, Title, Tooltip } from '@mantine/core';
import type { PhoneHealth } from '@farm/contracts';
import { formatRelative } from '../../../shared/format';
import { formatBytes, formatUptime, healthColors, summarizeHealth } from './health';
import { useDeviceHealth, useDevicesHealth } from './health.api';

/** A small badge for the grid; its tooltip lists every problem. Nothing for a phone no host reports on. */
export function HealthIndicator({ health }: { health: PhoneHealth | undefined }) {
  if (!health) return null;
  const summary = summarizeHealth(health);
  const text = summary.level === 'ok' ? 'Healthy' : summary.level === 'critical' ? 'Needs attention' : 'Warning';
  return (
    <Tooltip
      label={summary.problems.length > 0 ? summary.problems.join(' · ') : 'Battery, temperature, storage and answers are fine'}
      multiline
      maw={320}
      withinPortal
    >
      <Badge variant="light" color={healthColors[summary.level]} size="sm" aria-label={`Health: ${summary.label}`}>
        {text}
      </Badge>
    </Tooltip>
  );
}

const batteryHealthWords: Record<NonNullable<PhoneHealth['batteryHealth']>, string> = {
  unknown: 'Unknown',
  good: 'Good',
  overheat: 'Overheating',
  dead: 'Dead',
  over_voltage: 'Over-voltage',
  failure: 'Failure',
  cold: 'Cold',
};

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </div>
  );
}

/** The health section of a phone's details. */
export function PhoneHealthPanel({ deviceId, enabled }: { deviceId: string; enabled: boolean }) {
  const query = useDeviceHealth(deviceId, enabled);
  const health = query.data;
  const summary = summarizeHealth(health);
  const dash = '—';
  return (
    <section aria-labelledby={`health-${deviceId}`}>
      <Group justify="space-between" mb="xs">
        <Title order={3} fz="md" id={`health-${deviceId}`}>
          Health
        </Title>
        <Badge variant="light" color={healthColors[summary.level]}>
          {summary.label}
        </Badge>
      </Group>
      {!health ? (
        <Text size="sm" c="dimmed">
          {query.isPending ? 'Loading health...' : 'Its host has not reported this phone’s health yet.'}
        </Text>
      ) : (
        <Stack gap="xs">
          {summary.problems.length > 1 ? (
            <Text size="sm" c={healthColors[summary.level]}>
              {summary.problems.join(' · ')}
            </Text>
          ) : null}
          <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
            <Fact label="Battery" value={health.batteryLevel === null ? dash : `${health.batteryLevel}%`} />
            <Fact label="Temperature" value={health.temperatureC === null ? dash : `${health.temperatureC.toFixed(1)} °C`} />
            <Fact label="Battery health" value={health.batteryHealth ? batteryHealthWords[health.batteryHealth] : dash} />
            <Fact
              label="Free storage"
              value={health.freeBytes === null ? dash : `${formatBytes(health.freeBytes)}${health.totalBytes ? ` of ${formatBytes(health.totalBytes)}` : ''}`}
            />
            <Fact label="Up for" value={health.uptimeSeconds === null ? dash : formatUptime(health.uptimeSeconds)} />
            <Fact label="Android" value={health.androidVersion ?? dash} />
            <Fact label="USB" value={health.usbHub ? `hub ${health.usbHub}, port ${health.usbPort ?? '?'}` : dash} />
            <Fact label="Read" value={health.vitalsAt ? formatRelative(health.vitalsAt) : dash} />
          </SimpleGrid>
          {Object.keys(health.appVersions).length > 0 ? (
            <Text size="xs" c="dimmed">
              {Object.entries(health.appVersions)
                .map(([app, version]) => `${app} ${version}`)
                .join(' · ')}
            </Text>
          ) : null}
        </Stack>
      )}
    </section>
  );
}

/** The grid's indicator for one phone, from the one workspace-wide health query every card shares. */
export function DeviceHealthBadge({ deviceId }: { deviceId: string }) {
  const all = useDevicesHealth();
  return <HealthIndicator health={all.data?.find((row) => row.deviceId === deviceId)} />;
}
