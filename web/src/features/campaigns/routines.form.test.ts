import { describe, expect, it } from 'vitest';
import { createRoutineBody } from '@farm/contracts';
import {
  buildRoutinePayload,
  bySequence,
  emptyRoutineForm,
  formDuration,
  routineFormProblem,
  routineMinutes,
  routineSettingsFor,
  type AddableRoutineType,
  type RoutineFormValues,
} from './routines.form';

const context = { campaignId: 'c1', platform: 'instagram' };

function values(overrides: Partial<RoutineFormValues>): RoutineFormValues {
  return { ...emptyRoutineForm(), ...overrides };
}

/** A form ready to send: a type and an account chosen. */
function ready(type: AddableRoutineType, overrides: Partial<RoutineFormValues> = {}) {
  return { ...emptyRoutineForm(), ...overrides, type, accountId: 'a1' };
}

describe('routine defaults (SPEC §9)', () => {
  it('derives each type’s duration from its defaults', () => {
    expect(formDuration(values({ type: 'warmup' }))).toBe(5);
    expect(formDuration(values({ type: 'doom_scroll' }))).toBe(10);
    expect(formDuration(values({ type: 'basic_scroll' }))).toBe(3);
    expect(formDuration(values({ type: 'create_post' }))).toBe(10);
    expect(formDuration(values({ type: 'branch_from_account' }))).toBe(10);
    expect(formDuration(values({ type: 'engage_comments' }))).toBe(10);
    expect(formDuration(values({ type: null }))).toBeNull();
  });

  it('follows the settings as they change', () => {
    expect(formDuration(values({ type: 'branch_from_account', branchDepth: 4 }))).toBe(20);
    expect(formDuration(values({ type: 'engage_comments', targetPosts: 7 }))).toBe(14);
    expect(formDuration(values({ type: 'doom_scroll', doomScrollMinutes: 25 }))).toBe(25);
    expect(formDuration(values({ type: 'warmup', warmupMinutes: '' }))).toBe(5);
  });

  it('keeps only the settings of the chosen type', () => {
    expect(routineSettingsFor('warmup', emptyRoutineForm())).toEqual({ duration: 5, actionCount: 10 });
    expect(routineSettingsFor('doom_scroll', emptyRoutineForm())).toEqual({ duration: 10, speed: 'medium' });
    expect(routineSettingsFor('create_post', emptyRoutineForm())).toEqual({ contentType: 'video' });
    expect(routineSettingsFor('branch_from_account', values({ sourceAccount: ' @coach ' }))).toEqual({
      branchDepth: 2,
      engagementRate: 50,
      sourceAccount: 'coach',
    });
  });
});

describe('routineFormProblem', () => {
  it('needs a type, then an account', () => {
    expect(routineFormProblem(values({ type: null, accountId: 'a1' }))).toBe('type');
    expect(routineFormProblem(values({ type: 'warmup', accountId: null }))).toBe('account');
    expect(routineFormProblem(values({ type: 'warmup', accountId: 'a1' }))).toBeNull();
  });
});

describe('buildRoutinePayload', () => {
  it('sends what the API expects, named after the type', () => {
    const body = buildRoutinePayload(ready('doom_scroll', { speed: 'fast', intensity: 7 }), context);
    expect(body).toMatchObject({
      campaignId: 'c1',
      type: 'doom_scroll',
      platform: 'instagram',
      accountId: 'a1',
      name: 'Doom Scroll',
      intensity: 7,
      duration: 10,
      settings: { duration: 10, speed: 'fast' },
    });
    expect(createRoutineBody.safeParse(body).success).toBe(true);
  });

  it('leaves duration to the server where it is derived from other settings', () => {
    const body = buildRoutinePayload(ready('engage_comments'), context);
    expect(body).not.toHaveProperty('duration');
    expect(body.settings).toEqual({ targetPosts: 5, engagementRate: 50 });
  });

  it('falls back to intensity 5 when the input is blank', () => {
    expect(buildRoutinePayload(ready('warmup', { intensity: '' }), context).intensity).toBe(5);
  });
});

describe('stored routines', () => {
  it('shows the derived minutes and runs in sequence order', () => {
    expect(routineMinutes({ type: 'branch_from_account', settings: { branchDepth: 3 }, duration: 0 })).toBe(15);
    expect(routineMinutes({ type: 'basic', settings: {}, duration: 12 })).toBe(12);
    expect(bySequence([{ sequence: 3 }, { sequence: 1 }, { sequence: 2 }]).map((r) => r.sequence)).toEqual([1, 2, 3]);
  });
});
