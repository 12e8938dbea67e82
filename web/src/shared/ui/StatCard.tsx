import { Card, Group, SimpleGrid, Stack, Text, ThemeIcon } from '@mantine/core';
import type { ReactNode } from 'react';

export interface StatCardProps {
  title: string;
  value: ReactNode;
  icon: ReactNode;
  /** Change against last week in percent; positive values get a plus sign. */
  change?: number | undefined;
  /** What the change is measured against; the spec's 'vs last week' unless told. */
  changeLabel?: string;
  description?: string | undefined;
  loading?: boolean;
}

export function StatCard({ title, value, icon, change, changeLabel = 'vs last week', description, loading }: StatCardProps) {
  return (
    <Card withBorder padding="lg" radius="md" role="group" aria-label={title}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Text size="sm" c="dimmed" fw={500}>
            {title}
          </Text>
          <Text fz={28} fw={700} lh={1.2}>
            {loading ? '—' : value}
          </Text>
          {change !== undefined ? (
            <>
              {/* Dark shades on the light theme, light shades on the dark one: readable contrast on both. */}
              <Text size="xs" c={change >= 0 ? 'green.9' : 'red.9'} darkHidden>
                {change > 0 ? '+' : ''}
                {change}% {changeLabel}
              </Text>
              <Text size="xs" c={change >= 0 ? 'green.4' : 'red.4'} lightHidden>
                {change > 0 ? '+' : ''}
                {change}% {changeLabel}
              </Text>
            </>
          ) : null}
          {description ? (
            <Text size="xs" c="dimmed">
              {description}
            </Text>
          ) : null}
        </Stack>
        <ThemeIcon variant="light" size={44} radius="md" aria-hidden>
          {icon}
        </ThemeIcon>
      </Group>
    </Card>
  );
}

/** The row of stat cards that opens a page, all loading together. */
export function StatGrid({ cards, loading }: { cards: Omit<StatCardProps, 'loading'>[]; loading: boolean }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md" mb="lg">
      {cards.map((card) => (
        <StatCard key={card.title} {...card} loading={loading} />
      ))}
    </SimpleGrid>
  );
}
