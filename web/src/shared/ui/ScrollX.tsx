import { Box } from '@mantine/core';
import type { ReactNode } from 'react';

/** A wide table that scrolls sideways on a narrow screen, reachable with the keyboard (focusable, named). */
export function ScrollX({ label, minWidth, children }: { label: string; minWidth: number; children: ReactNode }) {
  return (
    <Box role="region" aria-label={label} tabIndex={0} style={{ overflowX: 'auto' }}>
      <Box miw={minWidth}>{children}</Box>
    </Box>
  );
}
