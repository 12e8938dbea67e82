import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useSelection } from './selection';

describe('useSelection', () => {
  it('toggles rows, selects a run with shift-click, the loaded page, or everything matching', () => {
    const order = ['a', 'b', 'c', 'd', 'e'];
    const { result } = renderHook(() => useSelection(order));
    act(() => result.current.toggle('b', false));
    act(() => result.current.toggle('d', true));
    expect([...result.current.ids].sort()).toEqual(['b', 'c', 'd']);
    act(() => result.current.toggle('c', false));
    expect([...result.current.ids].sort()).toEqual(['b', 'd']);
    act(() => result.current.setPage(order, true));
    expect(result.current.ids.size).toBe(5);
    act(() => result.current.selectAllMatching());
    expect(result.current.allMatching).toBe(true);
    expect(result.current.has('zzz')).toBe(true);
    act(() => result.current.toggle('a', false));
    expect(result.current.allMatching).toBe(false);
    act(() => result.current.clear());
    expect(result.current.ids.size).toBe(0);
  });
});
