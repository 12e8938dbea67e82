import { z } from 'zod';
import { deviceStatuses, handOverKinds, taskPriorities, taskStatuses, taskTypes, uiReaderKinds, type UiReaderKind } from '@farm/agent-protocol/values';
import { failureCode } from '@farm/agent-protocol/failures';
import { id, idFilter, isoTime, nullableTime, pageQuery, range, shortText, timeInput } from './common.ts';

export const deviceStatusValues = deviceStatuses;
export const deviceStatus = z.enum(deviceStatusValues);
export type DeviceStatus = z.infer<typeof deviceStatus>;
/** The statuses of a phone whose agent is connected and heard from: what "online devices" counts. */
export const connectedStatuses: readonly DeviceStatus[] = ['online', 'busy', 'idle'];

export const device = z.object({
  id,
  name: z.string(),
  status: deviceStatus,
  battery: z.number().int(),
  lastActive: isoTime,
  assignedToId: id.nullable(),
  sessionTime: z.number().int(),
  /** When an agent was last heard from the phone; null: never connected. */
  lastSeenAt: nullableTime,
  /** The protocol its agent speaks (1 or 2), when one has connected. */
  agentProtocol: z.number().int().nullable(),
  /** The farm host it is plugged into, when it joined through one. */
  hostId: id.nullable(),
  serial: z.string().nullable(),
  model: z.string().nullable(),
  androidVersion: z.string().nullable(),
  screenOn: z.boolean().nullable(),
  /** The person controlling the phone from the console ("in use by NAME"); its tasks wait meanwhile. */
  controlledById: id.nullable(),
  controlledByName: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Device = z.infer<typeof device>;

/**
 * What reads a phone's UI, as its agent says in its hello (`uiReaderInfo` of agent-protocol's messages): the
 * UiAutomator2 server, `uiautomator dump`, or the simulator.
 */
export const uiReaderKindValues = uiReaderKinds;
export type { UiReaderKind };

/**
 * What reads the phone's UI and which versions of the apps recipes drive it has, as its agent last said in its hello.
 * `uiReader` null: the agent does not say (older agents); `reportedAt` null: no agent has said anything yet.
 */
export const deviceSoftware = z.object({
  deviceId: id,
  uiReader: z.object({ kind: z.enum(uiReaderKindValues), version: z.string().nullable() }).nullable(),
  /** Each package the agent looked for, with its installed version, or null when it is not installed. */
  apps: z.array(z.object({ package: z.string(), version: z.string().nullable() })),
  agentVersion: z.string().nullable(),
  reportedAt: nullableTime,
});
export type DeviceSoftware = z.infer<typeof deviceSoftware>;

/** A device is named and given to a VA by people; its status and battery come from its phone only. */
export const createDeviceBody = z.object({
  name: shortText.min(1, { message: 'Name is required' }),
  assignedToId: id.nullable().optional(),
});
export type CreateDeviceBody = z.input<typeof createDeviceBody>;
export const updateDeviceBody = createDeviceBody.partial();
export type UpdateDeviceBody = z.input<typeof updateDeviceBody>;
export const deviceListQuery = pageQuery.extend({
  status: deviceStatus.optional(),
  search: z.string().max(200).optional(),
  assignedToId: idFilter.optional(),
  /** Only the phones of this group or tag (issue #42). */
  groupId: idFilter.optional(),
});

export const taskTypeValues = taskTypes;
export const taskType = z.enum(taskTypeValues);
export const taskTypeLabels: Record<z.infer<typeof taskType>, string> = {
  post: 'Post',
  engage: 'Engage',
  warmup: 'Warm-up',
  monitor: 'Monitor',
};
export const taskPriorityValues = taskPriorities;
export const taskPriority = z.enum(taskPriorityValues);
export const taskStatusValues = taskStatuses;
export const taskStatus = z.enum(taskStatusValues);
export type TaskStatus = z.infer<typeof taskStatus>;

/** Which status may follow which; the server refuses any other move with 409. */
export const taskTransitions: Record<TaskStatus, readonly TaskStatus[]> = {
  pending: ['in-progress', 'completed', 'failed', 'cancelled'],
  'in-progress': ['pending', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: ['pending'],
  cancelled: ['pending'],
};

/**
 * A post a phone's run handed to a person (issue #51): comment text is a person's work, so the VA's task carries the
 * post's author, the account to comment from, the post's address when the phone knew it, the author's profile address
 * and the frame the phone saw. Marked done, the task counts one comment toward the account's daily cap.
 */
export const handOverRecord = z.object({
  kind: z.enum(handOverKinds),
  author: z.string(),
  account: z.string(),
  platform: z.string(),
  link: z.string().nullable(),
  profileUrl: z.string().nullable(),
  frame: z.object({ url: z.string(), width: z.number().int(), height: z.number().int() }).nullable(),
});
export type HandOverRecord = z.infer<typeof handOverRecord>;

export const task = z.object({
  id,
  title: z.string(),
  description: z.string().nullable(),
  type: taskType,
  priority: taskPriority,
  status: taskStatus,
  deviceId: id.nullable(),
  assignedToId: id.nullable(),
  deadline: nullableTime,
  startedAt: nullableTime,
  completedAt: nullableTime,
  /** Hand-overs to a phone so far; a dispatched task reads `pending` with `dispatchedAt` and `leaseExpiresAt` set. */
  attempt: z.number().int(),
  maxAttempts: z.number().int(),
  dispatchedAt: nullableTime,
  leaseExpiresAt: nullableTime,
  /** A retry waits until then. */
  nextAttemptAt: nullableTime,
  progress: z.number().int().nullable(),
  progressNote: z.string().nullable(),
  failureCode: failureCode.nullable(),
  failureMessage: z.string().nullable(),
  postId: id.nullable(),
  campaignSessionId: id.nullable(),
  accountId: id.nullable(),
  /**
   * A question for a person: the publishing task whose post its phone could not confirm (`post_unconfirmed`). Answered
   * "It is up" or "It is not" through `POST /api/tasks/{id}/answer`.
   */
  unconfirmedTaskId: id.nullable(),
  /** A post a phone handed to a VA (a comment to write), else null. */
  handOver: handOverRecord.nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Task = z.infer<typeof task>;

export const createTaskBody = z.object({
  title: shortText.min(1, { message: 'Title is required' }),
  description: z.string().max(5000).nullable().optional(),
  type: taskType,
  priority: taskPriority,
  deviceId: id.nullable().optional(),
  assignedToId: id.nullable().optional(),
  deadline: timeInput.nullable().optional(),
});
export type CreateTaskBody = z.input<typeof createTaskBody>;
/**
 * A person's answer to a post its phone could not confirm: "up" (it is up; `publishedAt` is when, else now) or "not"
 * (it is not: the phone publishes it again).
 */
export const taskAnswerBody = z
  .object({
    answer: z.enum(['up', 'not'], { message: 'Answer "up" (the post is up) or "not" (it is not)' }),
    publishedAt: timeInput.optional(),
  })
  .refine((body) => body.answer === 'up' || body.publishedAt === undefined, {
    path: ['publishedAt'],
    message: 'A time goes only with "It is up"',
  });
export type TaskAnswerBody = z.input<typeof taskAnswerBody>;

export const updateTaskBody = createTaskBody.partial().extend({ status: taskStatus.optional() });
export type UpdateTaskBody = z.input<typeof updateTaskBody>;
export const taskListQuery = pageQuery.extend({
  status: taskStatus.optional(),
  type: taskType.optional(),
  priority: taskPriority.optional(),
  search: z.string().max(200).optional(),
  deviceId: idFilter.optional(),
  assignedToId: z.union([idFilter, z.literal('me')]).optional(),
  from: timeInput.optional(),
  to: timeInput.optional(),
});
export const taskCounts = z.object({
  all: z.number().int(),
  pending: z.number().int(),
  inProgress: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});
export type TaskCounts = z.infer<typeof taskCounts>;

export const session = z.object({
  id,
  deviceId: id,
  vaId: id.nullable(),
  taskId: id.nullable(),
  currentTask: z.string().nullable(),
  duration: z.number().int(),
  screenshots: z.number().int(),
  isActive: z.boolean(),
  startedAt: isoTime,
  endedAt: nullableTime,
});
export type Session = z.infer<typeof session>;
export const sessionListQuery = pageQuery.extend({
  active: z.enum(['true', 'false']).optional(),
  deviceId: idFilter.optional(),
  vaId: idFilter.optional(),
});
export const startSessionBody = z.object({
  deviceId: id,
  taskId: id.nullable().optional(),
  currentTask: shortText.nullable().optional(),
});
/** Pause (isActive false) and resume (true); stop ends the session for good. */
export const updateSessionBody = z.object({
  isActive: z.boolean().optional(),
  currentTask: shortText.nullable().optional(),
  taskId: id.nullable().optional(),
});
export type UpdateSessionBody = z.output<typeof updateSessionBody>;

export const activityTypeValues = ['success', 'warning', 'info', 'error'] as const;
export const activityType = z.enum(activityTypeValues);
export const activity = z.object({
  id,
  userId: id.nullable(),
  action: z.string(),
  deviceId: id.nullable(),
  type: activityType,
  createdAt: isoTime,
});
export type Activity = z.infer<typeof activity>;
export const activityListQuery = pageQuery.extend({
  type: activityType.optional(),
  deviceId: idFilter.optional(),
  from: timeInput.optional(),
  to: timeInput.optional(),
});

export const statsQuery = z.object({ range: range.optional() });
export const stats = z.object({
  activeSessions: z.number().int(),
  totalDevices: z.number().int(),
  onlineDevices: z.number().int(),
  completedTasks: z.number().int(),
  totalTasks: z.number().int(),
  totalSessionTime: z.number().int(),
  /** completed / total as a percentage with one decimal, 0 when there are no tasks. */
  successRate: z.number(),
  /** total session seconds / number of tasks, 0 when there are no tasks. */
  avgSessionTime: z.number().int(),
  range: range.nullable(),
});
export type Stats = z.infer<typeof stats>;

export const performance = z.object({
  devices: z.array(z.object({ deviceId: id, name: z.string(), totalTasks: z.number().int(), completedTasks: z.number().int(), successRate: z.number().int() })),
  vas: z.array(
    z.object({
      userId: id,
      name: z.string(),
      totalTasks: z.number().int(),
      completedTasks: z.number().int(),
      successRate: z.number().int(),
      hours: z.number().int(),
    }),
  ),
});
export type Performance = z.infer<typeof performance>;
