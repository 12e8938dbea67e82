import { NEXT_CURSOR_HEADER, type PhoneHealth, type TimelineEntry } from '@farm/contracts';
import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes, Route, stubApi } from '../../../test/render';
import { DeviceStatus } from './DeviceStatus';
import { DeviceTimeline } from './DeviceTimeline';

const entry = (id: string, overrides: Partial<TimelineEntry>): TimelineEntry => ({
  id,
  at: '2026-11-29T08:00:00.000Z',
  kind: 'blip',
  text: 'Went offline and was back after 3 s, on the same transport',
  awayMs: 3000,
  transport: 'same',
  rung: null,
  outcome: null,
  ...overrides,
});

const health = (overrides: Partial<PhoneHealth> = {}): PhoneHealth => ({
  deviceId: 'd1',
  batteryLevel: 80,
  temperatureC: 30,
  batteryHealth: 'good',
  freeBytes: null,
  totalBytes: null,
  uptimeSeconds: null,
  androidVersion: '14',
  appVersions: {},
  unresponsiveReason: null,
  vitalsAt: null,
  healthAt: null,
  usbController: null,
  usbHub: null,
  usbPort: null,
  reconnectingSince: null,
  ...overrides,
});

/** The first page answers with the next page's cursor, as the API does. */
const firstPage = (rows: TimelineEntry[]) =>
  new Response(JSON.stringify(rows), { status: 200, headers: { 'Content-Type': 'application/json', [NEXT_CURSOR_HEADER]: 'older' } });

describe('a phone’s timeline in its details', () => {
  it('lists blips, rungs and reboots newest first, and reads older ones on request', async () => {
    const calls = stubApi({
      'GET /api/devices/d1/health': health(),
      'GET /api/devices/d1/timeline?limit=20': () =>
        firstPage([
          entry('3', { kind: 'reboot', text: 'Rebooted: back on a new transport after 41 s', awayMs: 41_000, transport: 'new' }),
          entry('2', {
            kind: 'rung',
            text: 'Its host could not do it (rebooted it): adb: device offline',
            awayMs: null,
            transport: null,
            rung: 'reboot',
            outcome: 'failed',
          }),
        ]),
      'GET /api/devices/d1/timeline?limit=20&cursor=older': [entry('1', {})],
    });
    renderRoutes(<Route path="/" element={<DeviceTimeline deviceId="d1" enabled />} />);

    expect(await screen.findByText('Rebooted: back on a new transport after 41 s')).toBeTruthy();
    expect(screen.getByText('Its host could not do it (rebooted it): adb: device offline')).toBeTruthy();
    expect(screen.getByText('Reboot')).toBeTruthy();
    expect(screen.getByText('Recovery')).toBeTruthy();
    expect(screen.queryByText('Went offline and was back after 3 s, on the same transport')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Show older' }));
    expect(await screen.findByText('Went offline and was back after 3 s, on the same transport')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Show older' })).toBeNull();
    expect(calls.map((call) => call.url)).toContain('/api/devices/d1/timeline?limit=20&cursor=older');
  });

  it('says when there is nothing yet', async () => {
    stubApi({ 'GET /api/devices/d1/health': health(), 'GET /api/devices/d1/timeline?limit=20': [] });
    renderRoutes(<Route path="/" element={<DeviceTimeline deviceId="d1" enabled />} />);
    expect(await screen.findByText('No blips, recovery rungs or reboots yet.')).toBeTruthy();
  });
});

describe('a host’s phone in the grid', () => {
  it('reads Reconnecting while its host waits for it, and its status otherwise', async () => {
    stubApi({
      'GET /api/devices/health': [health({ reconnectingSince: '2026-11-29T08:00:00.000Z' }), health({ deviceId: 'd2' })],
    });
    renderRoutes(
      <Route
        path="/"
        element={
          <>
            <DeviceStatus device={{ id: 'd1', status: 'online', hostId: 'h1' }} />
            <DeviceStatus device={{ id: 'd2', status: 'busy', hostId: 'h1' }} />
          </>
        }
      />,
    );
    expect(await screen.findByText('Reconnecting')).toBeTruthy();
    expect(screen.getByText('Busy')).toBeTruthy();
    expect(screen.queryByText('Online')).toBeNull();
  });

  it('is offline, not reconnecting, once its connection closed', async () => {
    const since = '2026-11-29T08:00:00.000Z';
    stubApi({ 'GET /api/devices/health': [health({ reconnectingSince: since }), health({ deviceId: 'd2', reconnectingSince: since })] });
    renderRoutes(
      <Route
        path="/"
        element={
          <>
            <DeviceStatus device={{ id: 'd1', status: 'offline', hostId: 'h1' }} />
            <DeviceStatus device={{ id: 'd2', status: 'idle', hostId: 'h1' }} />
          </>
        }
      />,
    );
    // The health rows are read (the idle phone reads Reconnecting); the offline one stays offline.
    expect(await screen.findByText('Reconnecting')).toBeTruthy();
    expect(screen.getByText('Offline')).toBeTruthy();
    expect(screen.getAllByText('Reconnecting')).toHaveLength(1);
  });
});
