import { Group, Modal, Stack, Text } from '@mantine/core';
import { useStore } from 'zustand';
import { batteryColor, deviceStatusLabels } from '../../../shared/format';
import { InUseBadge } from '../../../shared/ui/InUseBadge';
import type { WallStore } from '../wall.store';

export interface WallTileModalProps {
  /** The tile shown full size, or null when none is. */
  id: string | null;
  store: WallStore;
  imageUrl: (url: string) => string;
  onClose: () => void;
}

/** One wall tile full size: the phone's latest screenshot large, kept current as new ones arrive. */
export function WallTileModal({ id, store, imageUrl, onClose }: WallTileModalProps) {
  const tile = useStore(store, (state) => (id ? state.tiles[id] : undefined));
  return (
    <Modal opened={tile !== undefined} onClose={onClose} title={tile?.name} size="auto" centered closeButtonProps={{ 'aria-label': 'Close' }}>
      {tile ? (
        <Stack gap="sm" align="center">
          {tile.screenshotUrl ? (
            <img
              src={imageUrl(tile.screenshotUrl)}
              alt={`Screenshot of ${tile.name}, full size`}
              style={{ display: 'block', maxHeight: '78vh', maxWidth: '100%', borderRadius: 8 }}
            />
          ) : (
            <Text c="dimmed">No screenshot yet</Text>
          )}
          <Group gap="sm" justify="center" wrap="wrap">
            <Text size="sm">{deviceStatusLabels[tile.status]}</Text>
            <Text size="sm" c={batteryColor(tile.battery)} fw={600}>
              {tile.battery}%
            </Text>
            <Text size="sm">{tile.currentTask ?? 'No current task'}</Text>
            <Text size="sm" c="dimmed">
              {tile.vaName ?? 'No VA'}
            </Text>
            <InUseBadge name={tile.controlledByName} />
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
