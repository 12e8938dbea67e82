import { ActionIcon, Center, Loader, Select, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useFullscreenDocument, useViewportSize } from '@mantine/hooks';
import { IconArrowLeft, IconMaximize, IconMinimize } from '@tabler/icons-react';
import type { DeviceStatus } from '@farm/contracts';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useStore } from 'zustand';
import { ApiError } from '../../shared/api';
import { deviceStatusLabels } from '../../shared/format';
import { ConnectionBanner } from '../../shared/ui/ConnectionBanner';
import { ConnectionIndicator } from '../../shared/ui/ConnectionIndicator';
import { WallTileModal } from './components/WallTileModal';
import { WallTileView } from './components/WallTileView';
import { fetchWallSnapshot, wallImageUrl } from './wall.api';
import { startWallFeed } from './wall.events';
import { computeWallGrid } from './wall.grid';
import { createWallSocket } from './wall.socket';
import { createWallStore, type WallStore } from './wall.store';

/** Height of the wall's one line of chrome, and the padding around the grid. */
export const WALL_BAR_HEIGHT = 40;
const PADDING = 8;
const INVALID_LINK = 'This wall link is invalid or was revoked';
const statusOrder: readonly DeviceStatus[] = ['online', 'busy', 'idle', 'offline'];

/** A TV keeps its screen on while the wall is open, where the browser allows it. */
function useWakeLock() {
  useEffect(() => {
    const wakeLock = (navigator as Navigator & { wakeLock?: { request(type: 'screen'): Promise<{ release(): Promise<void> }> } }).wakeLock;
    if (!wakeLock) return;
    let lock: { release(): Promise<void> } | undefined;
    let active = true;
    const acquire = () => {
      if (document.visibilityState !== 'visible') return;
      wakeLock
        .request('screen')
        .then((granted) => {
          if (active) lock = granted;
          else void granted.release();
        })
        .catch(() => undefined);
    };
    acquire();
    document.addEventListener('visibilitychange', acquire);
    return () => {
      active = false;
      document.removeEventListener('visibilitychange', acquire);
      void lock?.release().catch(() => undefined);
    };
  }, []);
}

function StatusCounts({ store }: { store: WallStore }) {
  const tiles = useStore(store, (state) => state.tiles);
  const counts = new Map<DeviceStatus, number>();
  for (const tile of Object.values(tiles)) counts.set(tile.status, (counts.get(tile.status) ?? 0) + 1);
  return (
    <Text size="sm" c="dark.1" style={{ whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
      {Object.keys(tiles).length} phones
      {statusOrder.map((status) => ` · ${counts.get(status) ?? 0} ${deviceStatusLabels[status].toLowerCase()}`).join('')}
    </Text>
  );
}

const ALL_PHONES = 'all';

/** The wall's group filter: every phone, or one group's or tag's (kept in the address, so a TV link can name it). */
function GroupFilter({ store, onChange }: { store: WallStore; onChange: (groupId: string | null) => void }) {
  const groups = useStore(store, (state) => state.groups);
  const groupId = useStore(store, (state) => state.groupId);
  if (groups.length === 0) return null;
  return (
    <Select
      aria-label="Show the phones of"
      size="xs"
      w={{ base: 140, sm: 200 }}
      style={{ flexShrink: 0 }}
      allowDeselect={false}
      searchable
      comboboxProps={{ withinPortal: true }}
      data={[
        { value: ALL_PHONES, label: 'All phones' },
        ...groups.map((group) => ({ value: group.id, label: `${group.kind === 'tag' ? '#' : ''}${group.name} (${group.phones})` })),
      ]}
      value={groupId ?? ALL_PHONES}
      onChange={(value) => onChange(value && value !== ALL_PHONES ? value : null)}
    />
  );
}

function WallGrid({ store, imageUrl, onOpen }: { store: WallStore; imageUrl: (url: string) => string; onOpen: (id: string) => void }) {
  const order = useStore(store, (state) => state.order);
  const filtered = useStore(store, (state) => state.groupId !== null);
  const { width, height } = useViewportSize();
  if (order.length === 0) {
    return (
      <Center h={`calc(100dvh - ${WALL_BAR_HEIGHT}px)`}>
        <Text c="dark.1">{filtered ? 'No phones in this group' : 'No phones in this workspace yet'}</Text>
      </Center>
    );
  }
  if (width === 0 || height === 0) return null;
  const grid = computeWallGrid({ width: width - PADDING * 2, height: height - WALL_BAR_HEIGHT - PADDING * 2, count: order.length });
  const fontSize = Math.round(Math.max(9, Math.min(18, grid.tileWidth / 11)));
  return (
    <ul
      aria-label="Phones"
      style={{
        margin: 0,
        listStyle: 'none',
        height: `calc(100dvh - ${WALL_BAR_HEIGHT}px)`,
        padding: PADDING,
        boxSizing: 'border-box',
        display: 'grid',
        gridTemplateColumns: `repeat(${grid.columns}, ${grid.tileWidth}px)`,
        gridAutoRows: `${grid.tileHeight}px`,
        gap: grid.gap,
        justifyContent: 'center',
        alignContent: 'center',
        overflow: 'hidden',
      }}
    >
      {order.map((id) => (
        <li key={id} style={{ display: 'grid' }}>
          <WallTileView id={id} store={store} imageUrl={imageUrl} fontSize={fontSize} onOpen={onOpen} />
        </li>
      ))}
    </ul>
  );
}

/**
 * The wall screen: every phone of the workspace on one dark screen, for a TV on the farm floor; a tile opens full
 * size. Opened with a wall link's token it needs no sign-in and shows nothing else; without one it is the
 * signed-in member's view.
 */
export function WallPage() {
  const [params, setParams] = useSearchParams();
  const token = params.get('token') || null;
  const groupId = params.get('group') || null;
  const chooseGroup = useCallback(
    (next: string | null) =>
      setParams(
        (current) => {
          const copy = new URLSearchParams(current);
          if (next) copy.set('group', next);
          else copy.delete('group');
          return copy;
        },
        { replace: true },
      ),
    [setParams],
  );
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);
  const [store] = useState(() => createWallStore());
  const load = useStore(store, (state) => state.load);
  const workspaceName = useStore(store, (state) => state.workspaceName);
  const connection = useStore(store, (state) => state.connection);
  const fullscreen = useFullscreenDocument();
  const [openId, setOpenId] = useState<string | null>(null);
  useWakeLock();

  useEffect(() => {
    navigateRef.current = navigate;
  }, [navigate]);

  useEffect(() => {
    const socket = createWallSocket(token);
    return startWallFeed({
      store,
      socket,
      fetchSnapshot: (signal) =>
        fetchWallSnapshot(token, signal, groupId).catch((error: unknown) => {
          // The group was removed (or the address names another workspace's): every phone again.
          if (groupId && error instanceof ApiError && error.status === 404) chooseGroup(null);
          throw error;
        }),
      // A member whose session ended signs in again; a TV with a revoked link just says so.
      onUnauthorized: () => {
        if (!token) void navigateRef.current('/login', { replace: true });
      },
    });
  }, [store, token, groupId, chooseGroup]);

  useEffect(() => {
    if (workspaceName) document.title = `Wall · ${workspaceName}`;
  }, [workspaceName]);

  const imageUrl = useCallback((url: string) => wallImageUrl(url, token), [token]);

  const page = (children: ReactNode) => (
    <main
      aria-label="Wall screen"
      style={{ position: 'fixed', inset: 0, overflow: 'hidden', background: 'var(--mantine-color-dark-9)', color: 'var(--mantine-color-white)' }}
    >
      {children}
    </main>
  );

  if (load === 'unauthorized') {
    return page(
      <Center h="100%" p="md">
        <Stack align="center" gap="sm">
          <Title order={1} fz="xl">
            {INVALID_LINK}
          </Title>
          <Text c="dark.1">Ask an operator for a new wall link.</Text>
        </Stack>
      </Center>,
    );
  }
  if (load === 'loading') {
    return page(
      <Center h="100%">
        <Stack align="center" gap="sm" role="status">
          <Loader />
          <Text c="dark.1">Loading wall...</Text>
        </Stack>
      </Center>,
    );
  }

  return page(
    <>
      <header
        style={{
          height: WALL_BAR_HEIGHT,
          display: 'flex',
          alignItems: 'center',
          gap: 12,
          padding: `0 ${PADDING * 1.5}px`,
          borderBottom: '1px solid var(--mantine-color-dark-6)',
        }}
      >
        {token ? null : (
          <Tooltip label="Back to the Live Monitor">
            <ActionIcon component={Link} to="/monitor" variant="subtle" color="gray" aria-label="Back to Live Monitor">
              <IconArrowLeft size={18} />
            </ActionIcon>
          </Tooltip>
        )}
        <Title order={1} fz="md" style={{ whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', flexShrink: 1, minWidth: 60 }}>
          {workspaceName}
        </Title>
        <div style={{ flex: 1, minWidth: 0 }}>
          <StatusCounts store={store} />
        </div>
        <GroupFilter store={store} onChange={chooseGroup} />
        <ConnectionIndicator status={connection.status} />
        <Tooltip label={fullscreen.fullscreen ? 'Leave full screen' : 'Full screen'}>
          <ActionIcon
            variant="subtle"
            color="gray"
            onClick={() => void fullscreen.toggle()}
            aria-label={fullscreen.fullscreen ? 'Leave full screen' : 'Full screen'}
          >
            {fullscreen.fullscreen ? <IconMinimize size={18} /> : <IconMaximize size={18} />}
          </ActionIcon>
        </Tooltip>
      </header>
      <div style={{ position: 'absolute', top: WALL_BAR_HEIGHT + PADDING, left: '50%', transform: 'translateX(-50%)', zIndex: 10, width: 'min(560px, 90vw)' }}>
        <ConnectionBanner status={connection.status} downSince={connection.downSince} />
      </div>
      <WallGrid store={store} imageUrl={imageUrl} onOpen={setOpenId} />
      <WallTileModal id={openId} store={store} imageUrl={imageUrl} onClose={() => setOpenId(null)} />
    </>,
  );
}
