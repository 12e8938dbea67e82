/** Work pushed to the signed-in person: 'task.assigned' reaches only the assignee's own room. */
import { BATCH_EVENT, eachServerEvent, serverEvents, type EventBatch, type Task } from '@farm/api/contracts';
import { playBeep, readSoundEnabled } from '../../shared/sound';
import { showTaskAssigned } from './components/TaskAssignedNotice';

type Listener = (payload: Task) => void;

/** The part of the console socket this binding needs. */
export interface TaskEventSource {
  on(event: 'task.assigned', listener: Listener): unknown;
  on(event: typeof BATCH_EVENT, listener: (batch: EventBatch) => void): unknown;
  off(event: 'task.assigned', listener: Listener): unknown;
  off(event: typeof BATCH_EVENT, listener: (batch: EventBatch) => void): unknown;
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
  const onAssigned: Listener = (payload) => {
    const parsed = serverEvents['task.assigned'].safeParse(payload);
    if (!parsed.success) return;
    if (parsed.data.status === 'completed' || parsed.data.status === 'failed') return;
    announce(parsed.data);
  };
  // Several tasks given at once arrive in one batch.
  const onBatch = (batch: EventBatch) =>
    eachServerEvent(BATCH_EVENT, batch, (name, payload) => {
      if (name === 'task.assigned') onAssigned(payload as Task);
    });
  socket.on('task.assigned', onAssigned);
  socket.on(BATCH_EVENT, onBatch);
  return () => {
    socket.off('task.assigned', onAssigned);
    socket.off(BATCH_EVENT, onBatch);
  };
}
