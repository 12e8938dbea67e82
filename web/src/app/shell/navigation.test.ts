import { describe, expect, it } from 'vitest';
import { isActivePath, navigation } from './navigation';

describe('navigation', () => {
  it('offers My Tasks next to Tasks, for both roles', () => {
    const labels = navigation.flatMap((group) => group.items.map((item) => item.label));
    expect(labels.slice(labels.indexOf('Tasks'), labels.indexOf('Tasks') + 2)).toEqual(['Tasks', 'My Tasks']);
  });

  it('highlights the most specific entry', () => {
    expect(isActivePath('/tasks', '/tasks')).toBe(true);
    expect(isActivePath('/tasks/mine', '/tasks')).toBe(false);
    expect(isActivePath('/tasks/mine', '/tasks/mine')).toBe(true);
    expect(isActivePath('/campaigns/c1', '/campaigns')).toBe(true);
    expect(isActivePath('/monitor/wall', '/monitor')).toBe(true);
  });
});
