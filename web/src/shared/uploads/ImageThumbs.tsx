import { ActionIcon, Box, Group, Image } from '@mantine/core';
import { IconX } from '@tabler/icons-react';

export interface ImageThumbsProps {
  paths: readonly string[];
  /** Without it the images are shown read-only. */
  onRemove?: (index: number) => void;
  size?: number;
}

/** Uploaded images as small thumbnails, each removable with a labelled button. */
export function ImageThumbs({ paths, onRemove, size = 72 }: ImageThumbsProps) {
  if (paths.length === 0) return null;
  return (
    <Group gap="xs">
      {paths.map((path, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the same image may be listed twice; its place tells them apart
        <Box key={`${path}-${index}`} pos="relative" w={size} h={size}>
          <Image src={path} alt={`Image ${index + 1}`} w={size} h={size} radius="sm" fit="cover" />
          {onRemove && (
            <ActionIcon
              size="sm"
              radius="xl"
              color="red"
              variant="filled"
              pos="absolute"
              top={2}
              right={2}
              aria-label={`Remove image ${index + 1}`}
              onClick={() => onRemove(index)}
            >
              <IconX size={12} />
            </ActionIcon>
          )}
        </Box>
      ))}
    </Group>
  );
}
