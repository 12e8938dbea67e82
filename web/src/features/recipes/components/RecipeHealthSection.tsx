import { Badge, Button, Card, Group, List, Paper, SegmentedControl, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { rangeValues, type Range, type RecipeHealthRow, type UncoveredAppVersion } from '@farm/contracts';
import { Fragment, useState } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { ScrollX } from '../../../shared/ui/ScrollX';
import { useIsMobile } from '../../../shared/ui/useIsMobile';
import { useRecipeHealth } from '../recipes.api';

const rangeLabels: Record<Range, string> = { '24h': '24h', '7d': '7 days', '30d': '30 days', '90d': '90 days' };

/** "42 s", "3 min 5 s", "1 h 20 min". */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

const appOf = (row: { appPackage: string; appVersion: string }) =>
  row.appPackage ? `${row.appPackage} ${row.appVersion}` : 'App not read (stopped before the pre-flight)';
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function BreakerBadge({ breaker }: { breaker: RecipeHealthRow['breaker'] }) {
  if (breaker.state === 'tripped')
    return (
      <Badge
        color="red"
        variant="light"
        style={{ flexShrink: 0 }}
        title={breaker.trippedAt ? `Tripped ${when(breaker.trippedAt)} after ${breaker.phones} phones` : undefined}
      >
        Tripped
      </Badge>
    );
  if (breaker.state === 'resumed')
    return (
      <Stack gap={0} style={{ flexShrink: 0 }}>
        <Badge color="yellow" variant="light" style={{ flexShrink: 0 }}>
          Turned back on
        </Badge>
        <Text size="xs" c="dimmed">
          {`by ${breaker.resumedBy?.name ?? 'someone'}${breaker.resumedAt ? `, ${when(breaker.resumedAt)}` : ''}`}
        </Text>
      </Stack>
    );
  return (
    <Badge color="green" variant="light" style={{ flexShrink: 0 }}>
      On
    </Badge>
  );
}

function Reasons({ row }: { row: RecipeHealthRow }) {
  if (row.failureReasons.length === 0) return <Text size="sm">—</Text>;
  return (
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {row.failureReasons.map((reason) => `${reason.label} ×${reason.count}`).join(', ')}
    </Text>
  );
}

function Phones({ row }: { row: RecipeHealthRow }) {
  if (row.phones.count === 0) return <Text size="sm">—</Text>;
  const more = row.phones.count - row.phones.names.length;
  return (
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {`${row.phones.count}: ${row.phones.names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`}
    </Text>
  );
}

/** The last failed runs of a row: task, phone, when, the reason's code and the phone's words. */
function LastFailures({ row }: { row: RecipeHealthRow }) {
  return (
    <List size="sm" spacing={6} aria-label={`Last failures of ${row.recipeName} on ${appOf(row)}`}>
      {row.lastFailures.map((failure) => (
        <List.Item key={`${failure.taskId}.${failure.at}`}>
          <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
            {`${failure.taskTitle} · ${failure.deviceName ?? 'removed phone'} · ${when(failure.at)}`}
          </Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {`${failure.code}${failure.recipeVersion !== null ? ` · recipe v${failure.recipeVersion}` : ''}${failure.message ? ` · ${failure.message}` : ''}`}
          </Text>
        </List.Item>
      ))}
    </List>
  );
}

/** The version first (what differs between rows), the package under it. */
function AppCell({ row }: { row: RecipeHealthRow }) {
  if (!row.appPackage)
    return (
      <Text size="sm" c="dimmed">
        App not read
      </Text>
    );
  return (
    <>
      <Text size="sm" fw={500} style={{ whiteSpace: 'nowrap' }}>
        {row.appVersion}
      </Text>
      <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {row.appPackage}
      </Text>
    </>
  );
}

const keyOf = (row: RecipeHealthRow) => `${row.recipeId} ${row.appPackage} ${row.appVersion}`;

function FailuresButton({ row, open, toggle }: { row: RecipeHealthRow; open: boolean; toggle(): void }) {
  if (row.lastFailures.length === 0) return null;
  return (
    <Button size="compact-xs" variant="subtle" onClick={toggle} aria-expanded={open}>
      {open ? 'Hide failures' : `Last failures (${row.lastFailures.length})`}
    </Button>
  );
}

function HealthTable({ rows, open, toggle }: { rows: RecipeHealthRow[]; open: Set<string>; toggle(key: string): void }) {
  return (
    <ScrollX label="Recipe health table" minWidth={880}>
      <Table verticalSpacing="xs" aria-label="Recipe health">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Recipe</Table.Th>
            <Table.Th>App version</Table.Th>
            <Table.Th ta="right">Runs</Table.Th>
            <Table.Th ta="right">Success</Table.Th>
            <Table.Th>Failure reasons</Table.Th>
            <Table.Th ta="right">Median</Table.Th>
            <Table.Th>Phones</Table.Th>
            <Table.Th>Breaker</Table.Th>
            <Table.Th>
              <VisuallyHidden>Last failures</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => {
            const key = keyOf(row);
            return (
              <Fragment key={key}>
                <Table.Tr aria-label={`${row.recipeName} on ${appOf(row)}`}>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {row.recipeName}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {row.recipeId}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <AppCell row={row} />
                  </Table.Td>
                  <Table.Td ta="right">{row.runs}</Table.Td>
                  <Table.Td ta="right">{row.runs === 0 ? '—' : `${row.successRate}%`}</Table.Td>
                  <Table.Td>
                    <Reasons row={row} />
                  </Table.Td>
                  <Table.Td ta="right">{row.medianDurationMs === null ? '—' : formatDuration(row.medianDurationMs)}</Table.Td>
                  <Table.Td>
                    <Phones row={row} />
                  </Table.Td>
                  <Table.Td>
                    <BreakerBadge breaker={row.breaker} />
                  </Table.Td>
                  <Table.Td>
                    <FailuresButton row={row} open={open.has(key)} toggle={() => toggle(key)} />
                  </Table.Td>
                </Table.Tr>
                {open.has(key) ? (
                  <Table.Tr aria-label={`Last failures of ${row.recipeName} on ${appOf(row)}`}>
                    <Table.Td colSpan={9}>
                      <LastFailures row={row} />
                    </Table.Td>
                  </Table.Tr>
                ) : null}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
    </ScrollX>
  );
}

/** At 375 px: one card per recipe and app version, the same figures stacked. */
function HealthCards({ rows, open, toggle }: { rows: RecipeHealthRow[]; open: Set<string>; toggle(key: string): void }) {
  return (
    <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Recipe health">
      {rows.map((row) => {
        const key = keyOf(row);
        return (
          <Paper key={key} withBorder p="sm" radius="md" component="li" aria-label={`${row.recipeName} on ${appOf(row)}`}>
            <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
              <div style={{ minWidth: 0 }}>
                <Text fw={600} size="sm">
                  {row.recipeName}
                </Text>
                <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {appOf(row)}
                </Text>
              </div>
              <BreakerBadge breaker={row.breaker} />
            </Group>
            <Text size="sm" mt={6}>
              {`${row.runs} runs · ${row.runs === 0 ? 'no success rate' : `${row.successRate}% succeeded`} · median ${row.medianDurationMs === null ? '—' : formatDuration(row.medianDurationMs)}`}
            </Text>
            <Group gap={4} wrap="nowrap" align="flex-start">
              <Text size="sm" c="dimmed">
                Failures:
              </Text>
              <Reasons row={row} />
            </Group>
            <Group gap={4} wrap="nowrap" align="flex-start">
              <Text size="sm" c="dimmed">
                Phones:
              </Text>
              <Phones row={row} />
            </Group>
            <FailuresButton row={row} open={open.has(key)} toggle={() => toggle(key)} />
            {open.has(key) ? <LastFailures row={row} /> : null}
          </Paper>
        );
      })}
    </Stack>
  );
}

function Uncovered({ items }: { items: UncoveredAppVersion[] }) {
  if (items.length === 0) return <EmptyText>Every app version your phones reported has a recipe that covers it</EmptyText>;
  return (
    <Stack gap={6} component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Uncovered app versions">
      {items.map((item) => {
        const more = item.phones.count - item.phones.names.length;
        return (
          <Paper key={`${item.appPackage} ${item.appVersion}`} withBorder p="xs" radius="md" component="li">
            <Group gap="xs" wrap="wrap">
              <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>{`${item.appPackage} ${item.appVersion}`}</Text>
              {item.untestedAllowed ? (
                <Badge size="sm" variant="light" color="yellow">
                  Templates tried anyway
                </Badge>
              ) : null}
            </Group>
            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {`No verified recipe for ${item.routines.join(', ').replace(/_/g, ' ')} · ${item.phones.count} phone${item.phones.count === 1 ? '' : 's'}: ${item.phones.names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`}
            </Text>
          </Paper>
        );
      })}
    </Stack>
  );
}

/**
 * Campaigns → Recipes → Recipe health (VAs read it too): each recipe by app version over a range — runs, success rate, failure reasons,
 * median duration, phones, its last failures and its breaker — and the app versions on the fleet no recipe covers.
 */
export function RecipeHealthSection() {
  const [range, setRange] = useState<Range>('7d');
  const [open, setOpen] = useState<Set<string>>(new Set());
  const health = useRecipeHealth(range);
  const mobile = useIsMobile();
  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const rows = health.data?.recipes ?? [];
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="recipe-health-title">
      <Group justify="space-between" wrap="wrap" gap="sm" mb={4}>
        <Title order={2} fz="lg" id="recipe-health-title">
          Recipe health
        </Title>
        <SegmentedControl
          size="xs"
          aria-label="Time range"
          value={range}
          onChange={(value) => setRange(value as Range)}
          data={rangeValues.map((value) => ({ value, label: rangeLabels[value] }))}
        />
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        How each recipe did on each app version your phones run: spot a recipe that an app update broke before your accounts pay for it.
        {health.data ? ` Runs from ${health.data.from} to ${health.data.to} (${health.data.timeZone}).` : ''}
      </Text>
      {health.isPending ? (
        <LoadingState label="Loading recipe health..." />
      ) : health.isError ? (
        <Text c="red" size="sm" role="alert">
          {refusalMessage(health.error, 'Failed to load recipe health')}
        </Text>
      ) : (
        <>
          {rows.length === 0 ? (
            <EmptyText>No recipe runs in this range yet</EmptyText>
          ) : mobile ? (
            <HealthCards rows={rows} open={open} toggle={toggle} />
          ) : (
            <HealthTable rows={rows} open={open} toggle={toggle} />
          )}
          <Title order={3} fz="md" mt="lg" mb="sm">
            Uncovered app versions
          </Title>
          <Uncovered items={health.data?.uncovered ?? []} />
        </>
      )}
    </Card>
  );
}
