import { IconDeviceMobile } from '@tabler/icons-react';
import { memo } from 'react';
import { useStore } from 'zustand';
import { batteryColor, deviceStatusColors, deviceStatusLabels } from '../../../shared/format';
import { InUseBadge } from '../../../shared/ui/InUseBadge';
import type { WallStore } from '../wall.store';

export interface WallTileViewProps {
  id: string;
  store: WallStore;
  /** The address to load a screenshot from (a wall link adds its token). */
  imageUrl: (url: string) => string;
  fontSize: number;
  /** Opens the tile full size. */
  onOpen?: (id: string) => void;
}

const color = (name: string, shade = 6) => `var(--mantine-color-${name}-${shade})`;
const line = { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/** One phone on the wall: its latest screenshot under its name, status, battery, current task, VA and who is using it. */
export const WallTileView = memo(function WallTileView({ id, store, imageUrl, fontSize, onOpen }: WallTileViewProps) {
  const tile = useStore(store, (state) => state.tiles[id]);
  if (!tile) return null;
  const status = deviceStatusLabels[tile.status];
  const statusColor = deviceStatusColors[tile.status];
  const task = tile.currentTask ?? 'No current task';
  const va = tile.vaName ?? 'No VA';
  const inUse = tile.controlledByName ? `, in use by ${tile.controlledByName}` : '';

  return (
    <article
      aria-label={`${tile.name}: ${status}, battery ${tile.battery}%, ${task}, VA ${va}${inUse}`}
      data-status={tile.status}
      style={{
        position: 'relative',
        overflow: 'hidden',
        borderRadius: Math.min(10, fontSize * 0.6),
        border: `2px solid ${color(statusColor)}`,
        background: 'var(--mantine-color-dark-8)',
        fontSize,
        lineHeight: 1.25,
        color: 'var(--mantine-color-white)',
      }}
    >
      {tile.screenshotUrl ? (
        <img
          src={imageUrl(tile.screenshotUrl)}
          alt={`Latest screenshot of ${tile.name}`}
          decoding="async"
          style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', objectFit: 'cover' }}
        />
      ) : (
        <div
          style={{
            position: 'absolute',
            inset: 0,
            display: 'flex',
            flexDirection: 'column',
            alignItems: 'center',
            justifyContent: 'center',
            gap: 4,
            paddingBottom: '30%',
            color: 'var(--mantine-color-dark-2)',
          }}
        >
          <IconDeviceMobile size={fontSize * 2.5} stroke={1.4} aria-hidden />
          <span>No screenshot yet</span>
        </div>
      )}
      {tile.controlledByName ? (
        <InUseBadge
          name={tile.controlledByName}
          size="sm"
          style={{ position: 'absolute', top: fontSize * 0.4, left: fontSize * 0.4, maxWidth: `calc(100% - ${fontSize * 0.8}px)` }}
        />
      ) : null}
      <div
        style={{
          position: 'absolute',
          insetInline: 0,
          bottom: 0,
          padding: `${fontSize * 1.6}px ${fontSize * 0.5}px ${fontSize * 0.35}px`,
          background: 'linear-gradient(to top, rgba(0,0,0,0.9) 55%, rgba(0,0,0,0))',
        }}
      >
        <div style={{ ...line, fontWeight: 700 }}>{tile.name}</div>
        <div style={{ ...line, display: 'flex', alignItems: 'center', gap: fontSize * 0.4 }}>
          <span aria-hidden style={{ width: fontSize * 0.6, height: fontSize * 0.6, borderRadius: '50%', background: color(statusColor), flex: 'none' }} />
          <span>{status}</span>
          <span style={{ color: color(batteryColor(tile.battery), 4), fontWeight: 600 }}>{tile.battery}%</span>
        </div>
        <div style={{ ...line, opacity: 0.9 }}>{task}</div>
        <div style={{ ...line, opacity: 0.75 }}>{va}</div>
      </div>
      {onOpen ? (
        <button
          type="button"
          aria-label={`Open ${tile.name} full size`}
          onClick={() => onOpen(id)}
          style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', padding: 0, border: 0, background: 'transparent', cursor: 'zoom-in' }}
        />
      ) : null}
    </article>
  );
});
