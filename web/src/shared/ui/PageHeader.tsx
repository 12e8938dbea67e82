import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export interface PageHeaderProps {
  title: string;
  subtitle: string;
  actions?: ReactNode;
}

/** The title row every console screen starts with. */
export function PageHeader({ title, subtitle, actions }: PageHeaderProps) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="md" mb="lg">
      <Stack gap={4} style={{ minWidth: 0 }}>
        <Title order={1} fz={{ base: 24, sm: 30 }}>
          {title}
        </Title>
        <Text c="dimmed">{subtitle}</Text>
      </Stack>
      {actions ? (
        <Group gap="sm" wrap="wrap">
          {actions}
        </Group>
      ) : null}
    </Group>
  );
}
