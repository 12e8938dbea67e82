/** Reads several screens share: lists keyed by path and filters, fetched with the filters as the query string. */
import type { activityListQuery, Activity, Device, deviceListQuery, Screenshot, Session, sessionListQuery, Task, taskListQuery, User } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from './api';
import { listKey, withQuery, type QueryParams } from './query';
import type { ListFilters } from './realtime/list-filters';

export function useList<T>(path: string, params: QueryParams = {}, options: { enabled?: boolean } = {}) {
  return useQuery<T[]>({
    queryKey: listKey(path, params),
    queryFn: ({ signal }) => apiRequest<T[]>(withQuery(path, params), { signal }),
    enabled: options.enabled,
  });
}

/** The contract's device-list query: a filter added there is one the screens may pass. */
export type DeviceFilters = ListFilters<typeof deviceListQuery>;
export const useDevices = (filters: DeviceFilters = {}) => useList<Device>('/api/devices', filters);

export type TaskFilters = ListFilters<typeof taskListQuery>;
export const useTasks = (filters: TaskFilters = {}, options: { enabled?: boolean } = {}) => useList<Task>('/api/tasks', filters, options);

export type SessionFilters = ListFilters<typeof sessionListQuery>;
export const useSessions = (filters: SessionFilters = {}, options: { enabled?: boolean } = {}) => useList<Session>('/api/sessions', filters, options);

export type ActivityFilters = ListFilters<typeof activityListQuery>;
export const useActivities = (filters: ActivityFilters = {}, options: { enabled?: boolean } = {}) => useList<Activity>('/api/activities', filters, options);

/** Members of the workspace (both roles). */
export const useUsers = () => useList<User>('/api/users');

/** Lookup by id, for rows that show a related name. */
export function byId<T extends { id: string }>(items: readonly T[] | undefined): Map<string, T> {
  return new Map((items ?? []).map((item) => [item.id, item]));
}

export type { Screenshot } from '@farm/contracts';

/** How many of a phone's latest screenshots the live feed shows. */
export const SCREENSHOTS_SHOWN = 12;

/** A phone's latest screenshots, newest first; pushed 'screenshot.added' events are put on top of this entry. */
export const screenshotsKey = (deviceId: string) => ['/api/devices', deviceId, 'screenshots'] as const;

export function useDeviceScreenshots(deviceId: string | null) {
  return useQuery<Screenshot[]>({
    queryKey: screenshotsKey(deviceId ?? ''),
    queryFn: ({ signal }) => apiRequest<Screenshot[]>(withQuery(`/api/devices/${deviceId ?? ''}/screenshots`, { limit: SCREENSHOTS_SHOWN }), { signal }),
    enabled: deviceId !== null,
  });
}
