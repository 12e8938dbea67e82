import type { Task } from '@farm/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { answer, renderRoutes, Route, stubApi } from '../../test/render';
import { MyTasksPage, splitMyTasks } from './MyTasksPage';

import { taskFixture } from '../../test/fixtures';
const stamp = '2025-01-01T00:00:00.000Z';
const task = (overrides: Partial<Task> = {}): Task =>
  taskFixture({ title: 'Post the morning reel', type: 'post', priority: 'high', assignedToId: 'u1', createdAt: stamp, updatedAt: stamp, ...overrides });

describe('My Tasks', () => {
  it('puts started work first, then waiting work, then finished tasks', () => {
    const { open, finished } = splitMyTasks([
      task({ id: 'a' }),
      task({ id: 'b', status: 'completed' }),
      task({ id: 'c', status: 'in-progress' }),
      task({ id: 'd', status: 'failed' }),
    ]);
    expect(open.map((row) => row.id)).toEqual(['c', 'a']);
    expect(finished.map((row) => row.id)).toEqual(['b', 'd']);
  });

  it("lists the person's own tasks and starts one with a status PATCH", async () => {
    const calls = stubApi({
      'GET /api/tasks?assignedToId=me': [task(), task({ id: 't2', title: 'Warm up account', status: 'completed' })],
      'GET /api/devices': [],
      'PATCH /api/tasks/t1': (body) => ({ ...task(), ...(body as object) }),
    });
    renderRoutes(<Route path="/tasks/mine" element={<MyTasksPage />} />, '/tasks/mine');

    const toDo = await screen.findByRole('region', { name: 'To Do' });
    const card = within(toDo).getByRole('article', { name: 'Post the morning reel' });
    expect(within(screen.getByRole('region', { name: 'Finished' })).getByText('Warm up account')).toBeTruthy();

    await userEvent.click(within(card).getByRole('button', { name: 'Start' }));
    expect(calls.find((call) => call.method === 'PATCH')).toMatchObject({ url: '/api/tasks/t1', body: { status: 'in-progress' } });
  });

  it('answers a post its phone could not confirm: "It is up" with the time given, "It is not" alone', async () => {
    const question = (id: string, title: string) =>
      task({ id, title, unconfirmedTaskId: `publish-${id}`, description: 'The phone published a post but the app never confirmed it.' });
    const calls = stubApi({
      'GET /api/tasks?assignedToId=me': [
        question('q1', 'Check whether the post of @reels went up on Pixel 1'),
        question('q2', 'Check whether the post of @shorts went up on Pixel 2'),
        task({ id: 't3', title: 'Warm up account' }),
        task({ id: 'q4', title: 'Check whether the post of @old went up', unconfirmedTaskId: 'publish-q4', status: 'completed' }),
      ],
      'GET /api/devices': [],
      'POST /api/tasks/q1/answer': { task: { ...question('q1', 'x'), status: 'completed' }, post: null },
      'POST /api/tasks/q2/answer': { task: { ...question('q2', 'x'), status: 'completed' }, post: null },
    });
    renderRoutes(<Route path="/tasks/mine" element={<MyTasksPage />} />, '/tasks/mine');

    const first = await screen.findByRole('article', { name: 'Check whether the post of @reels went up on Pixel 1' });
    const asked = within(first).getByRole('group', { name: 'Is the post up?' });
    await userEvent.type(within(asked).getByLabelText('Went up at (optional)'), '2025-01-01T09:30');
    await userEvent.click(within(asked).getByRole('button', { name: 'It is up' }));
    const up = calls.find((call) => call.url === '/api/tasks/q1/answer');
    expect(up).toMatchObject({ method: 'POST', body: { answer: 'up', publishedAt: new Date('2025-01-01T09:30').toISOString() } });

    const second = screen.getByRole('article', { name: 'Check whether the post of @shorts went up on Pixel 2' });
    await userEvent.click(within(second).getByRole('button', { name: 'It is not' }));
    expect(calls.find((call) => call.url === '/api/tasks/q2/answer')).toMatchObject({ method: 'POST', body: { answer: 'not' } });

    // Other tasks, and a question already answered, ask nothing.
    expect(within(screen.getByRole('article', { name: 'Warm up account' })).queryByRole('group', { name: 'Is the post up?' })).toBeNull();
    expect(
      within(screen.getByRole('article', { name: 'Check whether the post of @old went up' })).queryByRole('group', { name: 'Is the post up?' }),
    ).toBeNull();
  });

  it('shows the refusal beside the time when the server refuses it', async () => {
    stubApi({
      'GET /api/tasks?assignedToId=me': [task({ id: 'q1', title: 'Check whether the post of @reels went up', unconfirmedTaskId: 'p1' })],
      'GET /api/devices': [],
      'POST /api/tasks/q1/answer': answer(400, { error: 'The time it went up cannot be before the phone began publishing it (2025-01-01 10:00 UTC)' }),
    });
    renderRoutes(<Route path="/tasks/mine" element={<MyTasksPage />} />, '/tasks/mine');
    const card = await screen.findByRole('article', { name: 'Check whether the post of @reels went up' });
    await userEvent.type(within(card).getByLabelText('Went up at (optional)'), '2025-01-01T09:30');
    await userEvent.click(within(card).getByRole('button', { name: 'It is up' }));
    expect(await within(card).findByText('The time it went up cannot be before the phone began publishing it (2025-01-01 10:00 UTC)')).toBeTruthy();
  });
});
