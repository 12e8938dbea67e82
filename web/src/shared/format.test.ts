import { describe, expect, it } from 'vitest';
import {
  batteryColor,
  deriveVaStatus,
  formatClock,
  formatDeadline,
  formatDuration,
  formatPercent,
  formatRelative,
  formatSpan,
  fromDateTimeLocal,
  initials,
  statusColors,
  toDateTimeLocal,
} from './format';

describe('formatSpan', () => {
  it('shows seconds under a minute, then as formatDuration', () => {
    expect(formatSpan(0)).toBe('0s');
    expect(formatSpan(45.7)).toBe('45s');
    expect(formatSpan(60)).toBe('1m');
    expect(formatSpan(3725)).toBe('1h 2m');
  });
});

describe('formatDuration', () => {
  it('shows minutes only under one hour', () => {
    expect(formatDuration(0)).toBe('0m');
    expect(formatDuration(59)).toBe('0m');
    expect(formatDuration(125)).toBe('2m');
    expect(formatDuration(3599)).toBe('59m');
  });
  it('shows hours and minutes from one hour', () => {
    expect(formatDuration(3600)).toBe('1h 0m');
    expect(formatDuration(3660)).toBe('1h 1m');
    expect(formatDuration(26 * 3600 + 5 * 60)).toBe('26h 5m');
  });
  it('treats negative input as zero', () => {
    expect(formatDuration(-20)).toBe('0m');
  });
});

describe('formatClock', () => {
  it('uses m:ss under one hour', () => {
    expect(formatClock(0)).toBe('0:00');
    expect(formatClock(65)).toBe('1:05');
    expect(formatClock(3599)).toBe('59:59');
  });
  it('uses h:mm:ss from one hour', () => {
    expect(formatClock(3600)).toBe('1:00:00');
    expect(formatClock(3725)).toBe('1:02:05');
    expect(formatClock(36000 + 61)).toBe('10:01:01');
  });
});

describe('formatDeadline', () => {
  it('formats like MMM D, h:mm A', () => {
    expect(formatDeadline(new Date(2025, 2, 5, 14, 30).toISOString())).toBe('Mar 5, 2:30 PM');
    expect(formatDeadline(new Date(2025, 11, 25, 0, 5).toISOString())).toBe('Dec 25, 12:05 AM');
  });
  it("reads 'No deadline' without one", () => {
    expect(formatDeadline(null)).toBe('No deadline');
    expect(formatDeadline(undefined)).toBe('No deadline');
    expect(formatDeadline('not a date')).toBe('No deadline');
  });
});

describe('batteryColor', () => {
  it('uses the thresholds 50 and 20', () => {
    expect(batteryColor(100)).toBe(statusColors.online);
    expect(batteryColor(51)).toBe(statusColors.online);
    expect(batteryColor(50)).toBe(statusColors.away);
    expect(batteryColor(21)).toBe(statusColors.away);
    expect(batteryColor(20)).toBe(statusColors.busy);
    expect(batteryColor(0)).toBe(statusColors.busy);
  });
});

describe('deriveVaStatus', () => {
  it('keeps online and busy', () => {
    expect(deriveVaStatus({ status: 'online' })).toBe('online');
    expect(deriveVaStatus({ status: 'busy' })).toBe('busy');
  });
  it('shows offline for anything else or no device', () => {
    expect(deriveVaStatus({ status: 'idle' })).toBe('offline');
    expect(deriveVaStatus({ status: 'offline' })).toBe('offline');
    expect(deriveVaStatus(undefined)).toBe('offline');
    expect(deriveVaStatus(null)).toBe('offline');
  });
});

describe('initials', () => {
  it('takes the first and last word', () => {
    expect(initials('Ada Lovelace')).toBe('AL');
    expect(initials('  maria de la cruz ')).toBe('MC');
    expect(initials('Cher')).toBe('C');
    expect(initials('')).toBe('?');
  });
});

describe('formatPercent', () => {
  it('keeps one decimal', () => {
    expect(formatPercent(87.46)).toBe('87.5%');
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(Number.NaN)).toBe('0.0%');
  });
});

describe('formatRelative', () => {
  it('reads relative to now', () => {
    const now = new Date('2025-01-01T12:00:00Z');
    expect(formatRelative('2025-01-01T11:55:00Z', now)).toBe('5 minutes ago');
    expect(formatRelative(null, now)).toBe('Never');
  });
});

describe('datetime-local round trip', () => {
  it('converts both ways in the local zone', () => {
    const iso = new Date(2025, 5, 1, 9, 15).toISOString();
    expect(toDateTimeLocal(iso)).toBe('2025-06-01T09:15');
    expect(fromDateTimeLocal('2025-06-01T09:15')).toBe(iso);
    expect(fromDateTimeLocal('')).toBeNull();
    expect(toDateTimeLocal(null)).toBe('');
  });
});
