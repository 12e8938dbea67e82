import { Badge, type BadgeProps } from '@mantine/core';
import { IconHandFinger } from '@tabler/icons-react';

/** Someone is controlling the phone from the console: its tasks wait until they hand it back. */
export function InUseBadge({ name, ...props }: { name: string | null | undefined } & Omit<BadgeProps, 'children'>) {
  if (!name) return null;
  return (
    <Badge variant="light" color="grape" leftSection={<IconHandFinger size={12} aria-hidden />} styles={{ label: { textTransform: 'none' } }} {...props}>
      {`In use by ${name}`}
    </Badge>
  );
}
