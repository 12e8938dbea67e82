import type { Device } from '@farm/contracts';

/** The device that speaks for a VA: a working one (busy, then online) before any other assigned to them. */
export function assignedDevice(vaId: string, devices: readonly Device[]): Device | undefined {
  const mine = devices.filter((device) => device.assignedToId === vaId);
  return mine.find((device) => device.status === 'busy') ?? mine.find((device) => device.status === 'online') ?? mine[0];
}

/** Case-insensitive match on name or email. */
export function matchesVa(va: { name: string; email: string }, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  return va.name.toLowerCase().includes(needle) || va.email.toLowerCase().includes(needle);
}
