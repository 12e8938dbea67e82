import { describe, expect, it, vi } from 'vitest';
import type { DeviceGroup } from '@farm/contracts';
import { ALL_GROUPS, groupFilter } from './group-filter';

const group = (id: string, name: string, kind: 'group' | 'tag', deviceIds: string[]): DeviceGroup => ({
  id,
  name,
  kind,
  deviceIds,
  createdAt: '2026-11-26T00:00:00.000Z',
  updatedAt: '2026-11-26T00:00:00.000Z',
});

describe('the group filter of a phones list', () => {
  const groups = [group('g1', 'Client Acme', 'group', ['d1', 'd2']), group('g2', 'aged', 'tag', [])];

  it('offers all groups, then each group and tag with its phone count', () => {
    const filter = groupFilter(groups, 'g1', () => undefined);
    expect(filter.label).toBe('Filter by group');
    expect(filter.data).toEqual([
      { value: ALL_GROUPS, label: 'All groups' },
      { value: 'g1', label: 'Client Acme (2)' },
      { value: 'g2', label: '#aged (0)' },
    ]);
    expect(filter.value).toBe('g1');
  });

  it('reads a group that no longer exists (or none) as all groups, and clears the address for all groups', () => {
    expect(groupFilter(groups, 'gone', () => undefined).value).toBe(ALL_GROUPS);
    expect(groupFilter(undefined, '', () => undefined).value).toBe(ALL_GROUPS);
    const onChange = vi.fn();
    const filter = groupFilter(groups, '', onChange);
    filter.onChange('g2');
    filter.onChange(ALL_GROUPS);
    filter.onChange(null);
    expect(onChange.mock.calls).toEqual([['g2'], [null], [null]]);
  });
});
