import { Card, Group, Stack, Text, ThemeIcon } from '@mantine/core';
import type { ReactNode } from 'react';

export interface StatCardProps {
  title: string;
  value: ReactNode;
  icon: ReactNode;
  /** Change against last week in percent; positive values get a plus sign. */
  change?: number;
  description?: string;
  loading?: boolean;
}

export function StatCard({ title, value, icon, change, description, loading }: StatCardProps) {
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
            <Text size="xs" c={change >= 0 ? 'green' : 'red'}>
              {change > 0 ? '+' : ''}
              {change}% vs last week
            </Text>
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
