/** Work pushed to the signed-in person: 'task.assigned' reaches only the assignee's own room. */
import { eachServerEvent, serverEvents, type Task } from '@farm/contracts';
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
