import { describe, expect, it } from 'vitest';
import type { AppRollout } from '@farm/contracts';
import { withRollout } from './apps.events';
import { versionLabel } from './apps.format';

const rollout = (id: string, status: AppRollout['status']): AppRollout => ({
  id,
  action: 'install',
  package: 'com.example.app',
  versionId: 'v',
  versionCode: 1,
  versionName: '1.0',
  firstStageSize: 2,
  allowDowngrade: false,
  status,
  createdAt: '2026-11-27T00:00:00.000Z',
  finishedAt: null,
  phones: [],
});

describe('the app library on screen', () => {
  it('names a version by its name and code, or its code alone', () => {
    expect(versionLabel({ versionName: '38.5.3', versionCode: 2023805030 })).toBe('38.5.3 (2023805030)');
    expect(versionLabel({ versionName: null, versionCode: 7 })).toBe('version code 7');
  });

  it('puts a pushed rollout in its place, or first when new', () => {
    const list = [rollout('a', 'first_stage'), rollout('b', 'done')];
    expect(withRollout(list, rollout('a', 'rest')).map((row) => `${row.id}:${row.status}`)).toEqual(['a:rest', 'b:done']);
    expect(withRollout(list, rollout('c', 'first_stage')).map((row) => row.id)).toEqual(['c', 'a', 'b']);
    expect(withRollout(undefined, rollout('c', 'first_stage'))).toHaveLength(1);
  });
});
