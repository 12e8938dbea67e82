import { Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A small uppercase label over its value: one cell of the details grids in the modals. */
export function Detail({ label, children, breakAnywhere = false }: { label: string; children: ReactNode; breakAnywhere?: boolean }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" component="div" style={breakAnywhere ? { overflowWrap: 'anywhere' } : undefined}>
        {children}
      </Text>
    </div>
  );
}
