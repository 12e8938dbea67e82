/**
 * Tasks' pushed changes: every cached task list kept in the server's order and filters, and work pushed to the
 * signed-in person announced ('task.assigned' reaches only the assignee's own room).
 */
import { eachServerEvent, RECIPE_PAUSED_NOTE, serverEvents, task as taskRow, taskListQuery, type Task } from '@farm/contracts';
import { cannotTell, containsIn, listMatcher } from '../../shared/realtime/list-filters';
import { newestFirst, type LiveCache, type LiveHandlers, type LiveList } from '../../shared/realtime/live-cache';
import { playBeep, readSoundEnabled } from '../../shared/sound';
import { showTaskAssigned } from './components/TaskAssignedNotice';

type AnyListener = (event: string, payload: unknown) => void;

/** The part of the console socket this binding needs: every event, alone or in a batch, by name. */
export interface TaskEventSource {
  onAny(listener: AnyListener): unknown;
  offAny(listener: AnyListener): unknown;
}

export interface TaskAlertOptions {
  /** Opens My Tasks (the notification's View action). */
  onView: () => void;
  /** Defaults to the Mantine notification and the optional beep. */
  announce?: (task: Task) => void;
}

/** Announces a task given to this person: a notification at once, and the beep if they turned sound on. */
export function announceTask(task: Pick<Task, 'id' | 'title'>, onView: () => void): void {
  showTaskAssigned(task, onView);
  if (readSoundEnabled()) playBeep();
}

/** Binds 'task.assigned'; returns the unbinding. Finished tasks handed over are not announced as new work. */
export function bindTaskAlerts(socket: TaskEventSource, options: TaskAlertOptions): () => void {
  const announce = options.announce ?? ((task: Task) => announceTask(task, options.onView));
  const onAssigned = (payload: unknown) => {
    const parsed = serverEvents['task.assigned'].safeParse(payload);
    if (!parsed.success) return;
    if (parsed.data.status === 'completed' || parsed.data.status === 'failed') return;
    announce(parsed.data);
  };
  // Several tasks given at once arrive in one batch.
  const onEvent: AnyListener = (name, message) =>
    eachServerEvent(name, message, (event, payload) => {
      if (event === 'task.assigned') onAssigned(payload);
    });
  socket.onAny(onEvent);
  return () => socket.offAny(onEvent);
}

/** The server's task list: newest first; `assignedToId=me` is the signed-in person, a time window is not told here. */
export const taskList: LiveList<Task> = {
  path: '/api/tasks',
  compare: newestFirst<Task>('createdAt'),
  matches: listMatcher(taskListQuery, taskRow, {
    search: containsIn<Task>('title'),
    assignedToId: (row, value, me) => {
      if (value !== 'me') return row.assignedToId === value;
      return me === undefined ? undefined : row.assignedToId === me;
    },
    from: cannotTell,
    to: cannotTell,
  }),
};

/** Reads computed from tasks, refreshed (coalesced) after one changes. */
const derived = ['/api/tasks/counts', '/api/analytics/performance'];

type TaskEvents = Pick<LiveHandlers, 'task.created' | 'task.updated' | 'task.assigned' | 'task.deleted'>;

/** Patches every cached task list and item from pushed changes. */
export function bindTaskEvents(live: LiveCache): TaskEvents {
  const changed = (task: Task) => {
    live.merge(taskList, [task]);
    // A task's move on its phone shows in that phone's history; a task's run in its campaign's sessions.
    const { deviceId, campaignSessionId } = task;
    if (deviceId)
      live.later(`device-history:${deviceId}`, () => void live.queryClient.invalidateQueries({ queryKey: ['/api/devices', deviceId, 'history'], exact: true }));
    if (campaignSessionId) live.later('campaign-sessions', () => void live.queryClient.invalidateQueries({ queryKey: ['/api/campaign-sessions'] }));
    for (const path of derived) live.refresh(path);
    // Work a paused recipe holds back (or lets go) changes the paused recipe's count on Tasks and in Settings.
    if (task.progressNote === RECIPE_PAUSED_NOTE) live.refresh('/api/recipes');
  };
  return {
    'task.created': changed,
    'task.updated': changed,
    'task.assigned': changed,
    'task.deleted': ({ id }) => {
      live.merge(taskList, [], [id]);
      for (const path of derived) live.refresh(path);
    },
  };
}
