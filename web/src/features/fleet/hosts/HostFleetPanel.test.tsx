import { defaultHostFleetSettings, type HostFleet } from '@farm/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildMe, renderRoutes, Route, stubApi } from '../../../test/render';
import { HostFleetPanel } from './HostFleetPanel';

const hostId = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b01';
const fleet: HostFleet = {
  hostId,
  settings: defaultHostFleetSettings,
  usb: {
    controllers: [{ id: '0000:00:14.0', kind: 'intel_chipset', driver: 'xhci_hcd' }],
    phones: [{ serial: 'R58M', controllerId: '0000:00:14.0', hubLocation: '1-2', port: 3 }],
    warnings: [
      {
        scope: 'controller',
        id: '0000:00:14.0',
        phones: 11,
        limit: 10,
        message: '11 phones on one Intel chipset USB controller (0000:00:14.0); past 10 such a controller drops phones.',
      },
    ],
    uhubctl: { enabled: true, problem: 'uhubctl: no permission' },
  },
  usbAt: new Date().toISOString(),
  phones: [
    {
      deviceId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b02',
      name: 'Rack A slot 1',
      serial: 'R58M',
      batteryLevel: 80,
      temperatureC: 47,
      batteryHealth: 'overheat',
      freeBytes: 9e9,
      totalBytes: 24e9,
      uptimeSeconds: 100,
      androidVersion: '14',
      appVersions: {},
      unresponsiveReason: null,
      vitalsAt: new Date().toISOString(),
      healthAt: null,
      usbController: '0000:00:14.0',
      usbHub: '1-2',
      usbPort: 3,
    },
  ],
};

describe('HostFleetPanel', () => {
  it('shows where each phone hangs, the warnings with their reasons, uhubctl without permission, and saves settings', async () => {
    const calls = stubApi({
      'GET /api/auth/me': { user: buildMe() },
      [`GET /api/hosts/${hostId}/fleet`]: fleet,
      [`PUT /api/hosts/${hostId}/fleet-settings`]: (body) => body,
    });
    renderRoutes(<Route path="/" element={<HostFleetPanel hostId={hostId} hostName="Rack A" />} />);
    expect(await screen.findByText('uhubctl: no permission')).toBeTruthy();
    expect(screen.getByText(/past 10 such a controller drops phones/)).toBeTruthy();
    expect(screen.getByText('0000:00:14.0 (Intel chipset)')).toBeTruthy();
    expect(screen.getByText('Overheating (47.0 °C)')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Hub location', { exact: false }), { target: { value: 'not a hub' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Fleet Settings' }));
    expect(await screen.findByText('a hub location such as 1, 1-2 or 1-2.4')).toBeTruthy();
    expect(calls.some((call) => call.method === 'PUT')).toBe(false);

    // A root hub, as uhubctl names the motherboard's ports on bus 1.
    fireEvent.change(screen.getByLabelText('Hub location', { exact: false }), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText('adb restarts an hour'), { target: { value: '1' } });
    fireEvent.click(screen.getByRole('switch', { name: 'Restart phones each night' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Fleet Settings' }));
    await waitFor(() => expect(calls.find((call) => call.method === 'PUT')).toBeTruthy());
    expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({
      uhubctl: { enabled: false, hubLocation: '1' },
      ladder: { adbServerRestartsPerHour: 1 },
      scheduledRestart: { enabled: true, hour: 4 },
    });
  });
});
