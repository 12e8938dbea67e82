/** Groups and tags of phones (issue #42): read by everyone in the workspace, managed by operators. */
import type { BulkResult, CreateDeviceGroupBody, DeviceGroup, DeviceGroupMembersBody, UpdateDeviceGroupBody } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';
import { useList } from '../../shared/resources';

/** What a group change shows up in: the groups, and the devices lists filtered by them. */
const groupReads = ['/api/groups', '/api/devices'];

export const useGroups = () => useList<DeviceGroup>('/api/groups');

export function useCreateGroup() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateDeviceGroupBody) => apiRequest<DeviceGroup>('/api/groups', { method: 'POST', body }),
    onSuccess: () => invalidate(...groupReads),
  });
}

export function useUpdateGroup() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateDeviceGroupBody }) => apiRequest<DeviceGroup>(`/api/groups/${id}`, { method: 'PATCH', body }),
    onSuccess: () => invalidate(...groupReads),
  });
}

export function useDeleteGroup() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/groups/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate(...groupReads),
  });
}

export function useGroupMembers() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: DeviceGroupMembersBody }) => apiRequest<DeviceGroup>(`/api/groups/${id}/devices`, { method: 'POST', body }),
    onSuccess: () => invalidate(...groupReads),
  });
}

/** Every phone of the group to one VA (or nobody), through the devices' own assignment. */
export function useAssignGroup() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, assignedToId }: { id: string; assignedToId: string | null }) =>
      apiRequest<BulkResult>(`/api/groups/${id}/assign`, { method: 'POST', body: { assignedToId } }),
    onSettled: () => invalidate('/api/devices', '/api/activities', '/api/users'),
  });
}
