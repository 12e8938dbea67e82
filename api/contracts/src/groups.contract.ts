/**
 * Groups and tags of phones (issue #42): a named set of a workspace's phones; a phone may be in several. A tag is a
 * group shown as a label. Names are unique per workspace without regard to case.
 */
import { z } from 'zod';
import { id, idFilter, isoTime } from './common.ts';

export const deviceGroupKindValues = ['group', 'tag'] as const;
export const deviceGroupKind = z.enum(deviceGroupKindValues);
export type DeviceGroupKind = z.infer<typeof deviceGroupKind>;

export const deviceGroup = z.object({
  id,
  name: z.string(),
  kind: deviceGroupKind,
  /** The phones in it, oldest member first. */
  deviceIds: z.array(id),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type DeviceGroup = z.infer<typeof deviceGroup>;

const groupName = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, { message: 'Name is required' })
  .max(100, { message: 'Name must be at most 100 characters' });

export const createDeviceGroupBody = z.object({
  name: groupName,
  kind: deviceGroupKind.optional(),
  /** Phones to put in it at once. */
  deviceIds: z.array(idFilter).max(5000).optional(),
});
export type CreateDeviceGroupBody = z.input<typeof createDeviceGroupBody>;

export const updateDeviceGroupBody = z.object({ name: groupName.optional(), kind: deviceGroupKind.optional() });
export type UpdateDeviceGroupBody = z.input<typeof updateDeviceGroupBody>;

/** Phones added to and taken out of a group, in one change: all or nothing. */
export const deviceGroupMembersBody = z
  .object({ add: z.array(idFilter).max(5000).optional(), remove: z.array(idFilter).max(5000).optional() })
  .refine((body) => (body.add?.length ?? 0) + (body.remove?.length ?? 0) > 0, { message: 'Choose at least one phone', path: ['add'] });
export type DeviceGroupMembersBody = z.input<typeof deviceGroupMembersBody>;

/** Gives every phone of the group to one VA (or takes them back: null), as the devices' own assignment does. */
export const assignDeviceGroupBody = z.object({ assignedToId: idFilter.nullable() });
export type AssignDeviceGroupBody = z.input<typeof assignDeviceGroupBody>;

/** The group's name already taken in the workspace (409). */
export const groupNameTaken = (name: string): string => `A group or tag named "${name}" already exists in this workspace`;
