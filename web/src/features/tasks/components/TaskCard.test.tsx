import type { Task } from '@farm/contracts';
import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { taskFixture } from '../../../test/fixtures';
import { TaskCard, type TaskCardProps } from './TaskCard';

const buildTask = (overrides: Partial<Task> = {}): Task =>
  taskFixture({ title: 'Post the launch reel', priority: 'high', createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z', ...overrides });

function renderCard(props: Partial<TaskCardProps> = {}) {
  const onStatus = vi.fn();
  render(
    <MantineProvider env="test">
      <TaskCard
        task={buildTask()}
        deviceLabel="Unassigned"
        canChangeStatus
        canManage
        busy={false}
        onStatus={onStatus}
        onEdit={vi.fn()}
        onDelete={vi.fn()}
        {...props}
      />
    </MantineProvider>,
  );
  return { onStatus };
}

const button = (name: string) => screen.queryByRole('button', { name });

describe('TaskCard', () => {
  it('shows labels, badges and the empty deadline', () => {
    renderCard();
    expect(screen.getByText('Warm-up')).toBeTruthy();
    expect(screen.getByText('High')).toBeTruthy();
    expect(screen.getByText('Unassigned')).toBeTruthy();
    expect(screen.getByText('No deadline')).toBeTruthy();
  });

  it('shows a long description in two lines, and all of it on demand', () => {
    const description = 'No recipe automates posts on YouTube: do this on the phone by hand, then mark the task done.\n\nFive study habits\n\n#study #learn';
    renderCard({ task: buildTask({ description }) });
    const more = screen.getByRole('button', { name: 'Show more' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(more);
    expect(screen.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
    renderCard({ task: buildTask({ description: 'Follow the warmup playbook for this account.' }) });
    expect(screen.queryAllByRole('button', { name: /Show (more|less)/ })).toHaveLength(1);
  });

  it("shows a VA the post a phone handed over: its link, the author's profile and the frame", () => {
    const handOver = {
      kind: 'comment',
      author: 'sunny.trails',
      account: 'acme',
      platform: 'instagram',
      link: 'https://www.instagram.com/p/C0ffee/',
      profileUrl: 'https://www.instagram.com/sunny.trails/',
      frame: { url: '/api/objects/f1', width: 720, height: 1440 },
    } as const;
    renderCard({ task: buildTask({ title: "Comment on @sunny.trails's post from @acme", type: 'engage', handOver }) });
    expect(screen.getByRole('link', { name: 'Open the post' }).getAttribute('href')).toBe('https://www.instagram.com/p/C0ffee/');
    expect(screen.getByRole('link', { name: "@sunny.trails's profile" }).getAttribute('href')).toBe('https://www.instagram.com/sunny.trails/');
    expect(screen.getByRole('img', { name: "@sunny.trails's post as the phone saw it" }).getAttribute('src')).toBe('/api/objects/f1');
    renderCard({ task: buildTask({ handOver: { ...handOver, link: null, frame: null } }) });
    expect(screen.getByText("The phone could not read the post's address: find it by the frame.")).toBeTruthy();
  });

  it('offers the moves taskTransitions allows from pending', () => {
    const { onStatus } = renderCard();
    expect(button('Start')).toBeTruthy();
    expect(button('Complete')).toBeTruthy();
    expect(button('Fail')).toBeTruthy();
    expect(button('Retry')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Start' }));
    expect(onStatus).toHaveBeenCalledWith('in-progress');
  });

  it('offers nothing but edit and delete on a completed task, with its icon', () => {
    renderCard({ task: buildTask({ status: 'completed' }) });
    expect(screen.getByRole('img', { name: 'Completed' })).toBeTruthy();
    expect(button('Start')).toBeNull();
    expect(button('Complete')).toBeNull();
    expect(button('Fail')).toBeNull();
    expect(button('Edit')).toBeTruthy();
    expect(button('Delete')).toBeTruthy();
  });

  it('lets a failed task be retried, and marks it failed', () => {
    const { onStatus } = renderCard({ task: buildTask({ status: 'failed' }) });
    expect(screen.getByRole('img', { name: 'Failed' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onStatus).toHaveBeenCalledWith('pending');
  });

  it('gives a VA who may not touch the task no controls at all', () => {
    renderCard({ canChangeStatus: false, canManage: false });
    expect(screen.queryAllByRole('button')).toHaveLength(0);
  });
});
