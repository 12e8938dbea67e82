import type { PhoneHealth } from '@farm/contracts';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildMe, renderRoutes, Route, stubApi } from '../../../test/render';
import { PhoneHealthPanel } from './PhoneHealth';

const id = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b02';
const health: PhoneHealth = {
  deviceId: id,
  batteryLevel: 64,
  temperatureC: 33.4,
  batteryHealth: 'good',
  freeBytes: 512 * 1024 ** 2,
  totalBytes: 24 * 1024 ** 3,
  uptimeSeconds: 2 * 86_400 + 3600,
  androidVersion: '13',
  appVersions: { 'com.instagram.android': '312.0.0.32.112' },
  unresponsiveReason: null,
  vitalsAt: new Date().toISOString(),
  healthAt: null,
  usbController: '0000:00:14.0',
  usbHub: '1-2',
  usbPort: 3,
};

describe('PhoneHealthPanel', () => {
  it('shows the vitals, the worst problem and where the phone is plugged in', async () => {
    stubApi({ 'GET /api/auth/me': { user: buildMe() }, [`GET /api/devices/${id}/health`]: health });
    renderRoutes(<Route path="/" element={<PhoneHealthPanel deviceId={id} enabled />} />);
    expect(await screen.findByText('Storage almost full (512 MB free)')).toBeTruthy();
    expect(screen.getByText('33.4 °C')).toBeTruthy();
    expect(screen.getByText('2 d 1 h')).toBeTruthy();
    expect(screen.getByText('hub 1-2, port 3')).toBeTruthy();
    expect(screen.getByText('com.instagram.android 312.0.0.32.112')).toBeTruthy();
  });

  it('says so when no host reported the phone', async () => {
    stubApi({ 'GET /api/auth/me': { user: buildMe() }, [`GET /api/devices/${id}/health`]: null });
    renderRoutes(<Route path="/" element={<PhoneHealthPanel deviceId={id} enabled />} />);
    expect(await screen.findByText('Its host has not reported this phone’s health yet.')).toBeTruthy();
  });
});
