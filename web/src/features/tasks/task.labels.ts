import type { Task, TaskStatus } from '@farm/contracts';

type Priority = Task['priority'];

export const priorityLabels: Record<Priority, string> = { high: 'High', medium: 'Medium', low: 'Low' };
export const priorityColors: Record<Priority, string> = { high: 'red', medium: 'yellow', low: 'blue' };

export const taskStatusLabels: Record<TaskStatus, string> = {
  pending: 'Pending',
  'in-progress': 'In Progress',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
export const taskStatusColors: Record<TaskStatus, string> = {
  pending: 'gray',
  'in-progress': 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'gray',
};

/** The device column of a task: 'Unassigned' without a device, 'Unknown Device' when the id matches none. */
export function taskDeviceLabel(deviceId: string | null, devices: ReadonlyMap<string, { name: string }>): string {
  if (!deviceId) return 'Unassigned';
  return devices.get(deviceId)?.name ?? 'Unknown Device';
}
