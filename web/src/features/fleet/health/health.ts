/** How a phone's health reads to a person: one worst state for the grid's indicator, and the lines of its details. */
import type { PhoneHealth } from '@farm/contracts';

export type HealthLevel = 'ok' | 'warning' | 'critical' | 'unknown';

export interface HealthSummary {
  level: HealthLevel;
  /** One short sentence: the worst problem, or "Healthy". */
  label: string;
  /** Every problem found, worst first. */
  problems: string[];
}

/** Same lines as the host's own judgement (agent-protocol fleet.vitals.ts): 45 °C, 1 GiB free. */
const overheatC = 45;
const diskFreeMinBytes = 1024 ** 3;

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}

export function formatUptime(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return `${minutes} min`;
}

export function summarizeHealth(health: PhoneHealth | null | undefined): HealthSummary {
  if (!health) return { level: 'unknown', label: 'No health reported yet', problems: [] };
  const critical: string[] = [];
  const warnings: string[] = [];
  if (health.unresponsiveReason) critical.push(`Not answering: ${health.unresponsiveReason}`);
  if (health.batteryHealth === 'overheat' || (health.temperatureC !== null && health.temperatureC >= overheatC))
    critical.push(health.temperatureC === null ? 'Overheating' : `Overheating (${health.temperatureC.toFixed(1)} °C)`);
  if (health.batteryHealth === 'dead' || health.batteryHealth === 'over_voltage')
    critical.push(health.batteryHealth === 'dead' ? 'Battery dead' : 'Battery over-voltage');
  if (health.batteryHealth === 'failure' || health.batteryHealth === 'cold')
    warnings.push(health.batteryHealth === 'cold' ? 'Battery too cold' : 'Battery failure reported');
  if (health.freeBytes !== null && health.freeBytes < diskFreeMinBytes) warnings.push(`Storage almost full (${formatBytes(health.freeBytes)} free)`);
  const problems = [...critical, ...warnings];
  const level: HealthLevel = critical.length > 0 ? 'critical' : warnings.length > 0 ? 'warning' : 'ok';
  return { level, label: problems[0] ?? 'Healthy', problems };
}

export const healthColors: Record<HealthLevel, string> = { ok: 'green', warning: 'yellow', critical: 'red', unknown: 'gray' };
