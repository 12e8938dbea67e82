import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes, Route, stubApi } from '../../../test/render';
import { appVersionLines, DeviceSoftwareDetails, uiReaderText } from './DeviceSoftwareDetails';

const said = { reportedAt: '2026-11-26T21:00:00.000Z' };

describe('a phone’s software in its details', () => {
  it('names the UI reader: the UI server and its version, the dump fallback, or unknown for older agents', () => {
    expect(uiReaderText({ ...said, uiReader: { kind: 'ui-server', version: '7.1.4' } })).toBe('UI server 7.1.4');
    expect(uiReaderText({ ...said, uiReader: { kind: 'ui-server', version: null } })).toBe('UI server (version unknown)');
    expect(uiReaderText({ ...said, uiReader: { kind: 'dump', version: null } })).toBe('uiautomator dump (fallback, slower; no toasts)');
    expect(uiReaderText({ ...said, uiReader: { kind: 'sim', version: null } })).toBe('Simulated phone');
    expect(uiReaderText({ ...said, uiReader: null })).toBe('Unknown (this agent does not say)');
    expect(uiReaderText({ reportedAt: null, uiReader: null })).toBe('Not reported yet');
  });

  it('lists the apps recipes drive with their versions, or that one is not installed', () => {
    expect(
      appVersionLines({
        ...said,
        apps: [
          { package: 'com.instagram.android', version: '360.0.0.52.192' },
          { package: 'com.ss.android.ugc.trill', version: null },
          { package: 'com.zhiliaoapp.musically', version: '43.1.4' },
          { package: 'com.example.other', version: '1.0' },
        ],
      }),
    ).toEqual(['Instagram: 360.0.0.52.192', 'TikTok (trill): not installed', 'TikTok: 43.1.4', 'com.example.other: 1.0']);
    expect(appVersionLines({ ...said, apps: [] })).toEqual(['Unknown (this agent does not say)']);
    expect(appVersionLines({ reportedAt: null, apps: [] })).toEqual(['Not reported yet']);
  });

  it('reads them from the device API', async () => {
    const calls = stubApi({
      'GET /api/devices/d1/software': {
        deviceId: 'd1',
        uiReader: { kind: 'dump', version: null },
        apps: [{ package: 'com.instagram.android', version: '447.0.0.55.81' }],
        agentVersion: 'host/2',
        ...said,
      },
    });
    renderRoutes(<Route path="/" element={<DeviceSoftwareDetails deviceId="d1" enabled />} />);
    expect(await screen.findByText('uiautomator dump (fallback, slower; no toasts)')).toBeTruthy();
    expect(screen.getByText('Instagram: 447.0.0.55.81')).toBeTruthy();
    expect(calls.map((call) => call.url)).toContain('/api/devices/d1/software');
  });
});
