import { Box, Group, Text } from '@mantine/core';

function Mark({ tile, accent }: { tile: string; accent: string }) {
  return (
    <svg width="28" height="28" viewBox="0 0 32 32" aria-hidden focusable="false">
      <rect width="32" height="32" rx="7" fill={tile} />
      <g fill={accent}>
        <rect x="7" y="6" width="7" height="9" rx="1.5" />
        <rect x="18" y="6" width="7" height="9" rx="1.5" />
        <rect x="7" y="17" width="7" height="9" rx="1.5" />
        <rect x="18" y="17" width="7" height="9" rx="1.5" opacity="0.6" />
      </g>
    </svg>
  );
}

/** The product mark; light and dark themes each get their own colouring (SPEC §2). */
export function Logo({ withText = true }: { withText?: boolean }) {
  return (
    <Group gap={8} wrap="nowrap" role="img" aria-label="PhoneGrid">
      <Box lightHidden lh={0}>
        <Mark tile="#e7f5ff" accent="#1c7ed6" />
      </Box>
      <Box darkHidden lh={0}>
        <Mark tile="#1c7ed6" accent="#ffffff" />
      </Box>
      {withText ? (
        <Text fw={800} fz="lg" aria-hidden style={{ letterSpacing: '-0.02em', whiteSpace: 'nowrap' }}>
          PhoneGrid
        </Text>
      ) : null}
    </Group>
  );
}
