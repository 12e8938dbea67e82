/**
 * The fleet's pushed changes in the cache: devices inserted, moved or dropped in every cached list by the server's
 * order and filters, heartbeats written at most every pulse interval, and a phone's new screenshots on top of its
 * gallery.
 */
import { device as deviceRow, deviceListQuery, type Device, type ServerEventPayload } from '@farm/contracts';
import { cannotTell, listMatcher, containsIn } from '../../shared/realtime/list-filters';
import { filtersOf, hasId, oldestFirst, rowsOf, type LiveCache, type LiveHandlers, type LiveList } from '../../shared/realtime/live-cache';
import { SCREENSHOTS_SHOWN, screenshotsKey, type Screenshot } from '../../shared/resources';

/** Heartbeat pulses are written to the cache at most this often (the latest state of each phone wins). */
export const PULSE_INTERVAL_MS = 250;

type PulseEntry = ServerEventPayload<'devices.pulse'>['devices'][number];

/** The server's device list: oldest first, so a phone keeps its place as others are added. */
export const deviceList: LiveList<Device> = {
  path: '/api/devices',
  compare: oldestFirst<Device>('createdAt'),
  matches: listMatcher(deviceListQuery, deviceRow, {
    search: containsIn<Device>('name'),
    // A device row does not say its groups: a list filtered by one is read again (groups/groups.events.ts).
    groupId: cannotTell,
  }),
};

/** Reads computed from devices, refreshed (coalesced) after one changes. */
const derived = ['/api/analytics/performance'];

type DeviceEvents = Pick<LiveHandlers, 'device.created' | 'device.updated' | 'device.assigned' | 'device.deleted' | 'devices.pulse' | 'screenshot.added'>;

export function bindDeviceEvents(live: LiveCache, pulseInterval = PULSE_INTERVAL_MS): DeviceEvents {
  const { queryClient } = live;
  // Heartbeats: the latest status, battery and last-seen time of each phone, written at most every `pulseInterval`.
  const pendingPulse = new Map<string, PulseEntry>();
  let pulseTimer: ReturnType<typeof setTimeout> | undefined;
  let lastPulseFlush = Number.NEGATIVE_INFINITY;

  const applyPulse = (pulses: ReadonlyMap<string, PulseEntry>) => {
    // The full rows these phones have in the cache, from whichever list or item holds them.
    const known = new Map<string, Device>();
    for (const query of queryClient.getQueryCache().findAll({ queryKey: [deviceList.path] })) {
      const data: unknown = query.state.data;
      const rows: unknown[] = rowsOf(data) ?? [data];
      for (const row of rows) if (hasId(row) && pulses.has(row.id) && !known.has(row.id)) known.set(row.id, row as Device);
    }
    const changed: Device[] = [];
    for (const [id, pulse] of pulses) {
      const row = known.get(id);
      if (!row) continue;
      if (row.status === pulse.status && row.battery === pulse.battery && row.lastActive === pulse.lastActive) continue;
      // A heartbeat older than what the row already shows (a fresher read raced it) changes nothing.
      if (Date.parse(pulse.lastActive) < Date.parse(row.lastActive)) continue;
      changed.push({ ...row, status: pulse.status, battery: pulse.battery, lastActive: pulse.lastActive });
    }
    if (changed.length > 0) live.merge(deviceList, changed);
    // A phone no list holds may now match a list filtered by status: those lists are asked again.
    if (known.size < pulses.size) {
      for (const query of live.lists(deviceList.path, (q) => filtersOf(q)?.status !== undefined)) live.refreshStale(query);
    }
  };

  const flushPulse = () => {
    clearTimeout(pulseTimer);
    pulseTimer = undefined;
    if (pendingPulse.size === 0) return;
    lastPulseFlush = Date.now();
    const pulses = new Map(pendingPulse);
    pendingPulse.clear();
    applyPulse(pulses);
  };

  live.onDispose(() => {
    clearTimeout(pulseTimer);
    pulseTimer = undefined;
    pendingPulse.clear();
  });

  const changed = (row: Device) => {
    // Keep the order of events: heartbeats that came before this change are written first.
    flushPulse();
    live.merge(deviceList, [row]);
    for (const path of derived) live.refresh(path);
  };

  return {
    'device.created': changed,
    'device.updated': changed,
    'device.assigned': changed,
    'device.deleted': ({ id }) => {
      flushPulse();
      live.merge(deviceList, [], [id]);
      for (const path of derived) live.refresh(path);
    },
    'devices.pulse': ({ devices }) => {
      for (const entry of devices) pendingPulse.set(entry.id, entry);
      if (pulseTimer !== undefined) return;
      const wait = lastPulseFlush + pulseInterval - Date.now();
      if (wait <= 0) flushPulse();
      else pulseTimer = setTimeout(flushPulse, wait);
    },
    // A phone's new screenshot goes on top of its cached gallery (the session's count arrives as session.updated).
    'screenshot.added': (shot) => {
      queryClient.setQueryData<Screenshot[]>(screenshotsKey(shot.deviceId), (old) => {
        if (!old || old.some((row) => row.url === shot.url)) return old;
        return [{ id: shot.url, ...shot }, ...old].slice(0, Math.max(old.length, SCREENSHOTS_SHOWN));
      });
    },
  };
}
