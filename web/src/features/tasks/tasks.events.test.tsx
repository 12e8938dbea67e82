import { BATCH_EVENT, type Task } from '@farm/contracts';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { SOUND_STORAGE_KEY } from '../../shared/sound';
import { FakeSocket } from '../../test/fake-socket';
import { renderRoutes, Route } from '../../test/render';
import { bindTaskAlerts, type TaskEventSource } from './tasks.events';

import { taskFixture } from '../../test/fixtures';
const stamp = '2025-01-01T00:00:00.000Z';
const task = (overrides: Partial<Task> = {}): Task =>
  taskFixture({ title: 'Post the morning reel', type: 'post', priority: 'high', assignedToId: 'u1', createdAt: stamp, updatedAt: stamp, ...overrides });

/** A WebAudio stand-in that counts the tones played. */
function stubAudio() {
  const started = vi.fn();
  const node = () => ({
    connect: (next: unknown) => next,
    start: started,
    stop: vi.fn(),
    type: 'sine',
    frequency: { setValueAtTime: vi.fn() },
    gain: { setValueAtTime: vi.fn(), exponentialRampToValueAtTime: vi.fn() },
  });
  class FakeAudioContext {
    state = 'running';
    currentTime = 0;
    destination = {};
    createOscillator = node;
    createGain = node;
    resume = () => Promise.resolve();
  }
  vi.stubGlobal('AudioContext', FakeAudioContext);
  return started;
}

describe('task alerts', () => {
  it("shows 'New Task Assigned' with the task's title at once, and View opens My Tasks", async () => {
    renderRoutes(<Route path="*" element={<p>console</p>} />);
    const socket = new FakeSocket();
    const onView = vi.fn();
    const started = stubAudio();
    const unbind = bindTaskAlerts(socket as unknown as TaskEventSource, { onView });

    act(() => socket.push('task.assigned', task()));

    expect(await screen.findByText('New Task Assigned')).toBeTruthy();
    expect(screen.getByText('Post the morning reel')).toBeTruthy();
    // Sound is off unless the person turned it on.
    expect(started).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'View' }));
    expect(onView).toHaveBeenCalledOnce();
    unbind();
    expect(socket.listenerCount).toBe(0);
  });

  it('beeps too when the sound is turned on in Settings', async () => {
    renderRoutes(<Route path="*" element={<p>console</p>} />);
    window.localStorage.setItem(SOUND_STORAGE_KEY, 'on');
    const started = stubAudio();
    const socket = new FakeSocket();
    bindTaskAlerts(socket as unknown as TaskEventSource, { onView: vi.fn() });

    act(() => socket.push('task.assigned', task({ id: 't2', title: 'Engage with comments' })));

    expect(await screen.findByText('Engage with comments')).toBeTruthy();
    expect(started).toHaveBeenCalled();
  });

  it('does not announce finished tasks or payloads that fail their schema', () => {
    const socket = new FakeSocket();
    const announce = vi.fn();
    bindTaskAlerts(socket as unknown as TaskEventSource, { onView: vi.fn(), announce });

    socket.push('task.assigned', task({ status: 'completed' }));
    socket.push('task.assigned', { id: 't3', title: 42 });
    socket.push('task.assigned', task({ status: 'in-progress' }));

    expect(announce).toHaveBeenCalledOnce();
    expect(announce.mock.calls[0]?.[0]).toMatchObject({ status: 'in-progress' });
  });

  it('announces each task of a batch the server sent together, and nothing else in it', () => {
    const socket = new FakeSocket();
    const announce = vi.fn();
    const unbind = bindTaskAlerts(socket as unknown as TaskEventSource, { onView: vi.fn(), announce });

    socket.push(BATCH_EVENT, {
      changes: [
        { event: 'task.assigned', payload: task({ id: 't4', title: 'First' }) },
        { event: 'task.updated', payload: task({ id: 't5', title: 'Not for the alert' }) },
        { event: 'task.assigned', payload: task({ id: 't6', title: 'Second' }) },
      ],
    });

    expect(announce.mock.calls.map(([given]) => given.title)).toEqual(['First', 'Second']);
    unbind();
    expect(socket.listenerCount).toBe(0);
  });
});
