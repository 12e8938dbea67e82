import type { Task } from '@farm/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderRoutes, Route, stubApi } from '../../test/render';
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
});
