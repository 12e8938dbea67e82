import type { PhoneHealth } from '@farm/contracts';
import { describe, expect, it } from 'vitest';
import { formatBytes, formatUptime, summarizeHealth } from './health';

const well: PhoneHealth = {
  deviceId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b',
  batteryLevel: 80,
  temperatureC: 31,
  batteryHealth: 'good',
  freeBytes: 9 * 1024 ** 3,
  totalBytes: 24 * 1024 ** 3,
  uptimeSeconds: 7200,
  androidVersion: '14',
  appVersions: {},
  unresponsiveReason: null,
  vitalsAt: null,
  healthAt: null,
  usbController: null,
  usbHub: null,
  usbPort: null,
};

describe('phone health summary', () => {
  it('is healthy, unknown without a report, and names the worst problem first', () => {
    expect(summarizeHealth(well)).toEqual({ level: 'ok', label: 'Healthy', problems: [] });
    expect(summarizeHealth(null).level).toBe('unknown');
    const bad = summarizeHealth({ ...well, freeBytes: 200 * 1024 ** 2, temperatureC: 46.2, unresponsiveReason: 'The shell did not answer within 5 s.' });
    expect(bad.level).toBe('critical');
    expect(bad.problems).toEqual(['Not answering: The shell did not answer within 5 s.', 'Overheating (46.2 °C)', 'Storage almost full (200 MB free)']);
  });

  it('warns for a full disk alone; reads health codes dumpsys reports', () => {
    expect(summarizeHealth({ ...well, freeBytes: 512 * 1024 ** 2 })).toMatchObject({ level: 'warning', label: 'Storage almost full (512 MB free)' });
    expect(summarizeHealth({ ...well, batteryHealth: 'overheat', temperatureC: null }).label).toBe('Overheating');
    expect(summarizeHealth({ ...well, batteryHealth: 'dead' }).label).toBe('Battery dead');
  });

  it('formats sizes and uptime', () => {
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GB');
    expect(formatUptime(3 * 86_400 + 4 * 3600)).toBe('3 d 4 h');
    expect(formatUptime(5400)).toBe('1 h 30 min');
  });
});
