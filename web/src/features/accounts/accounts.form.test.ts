import { describe, expect, it } from 'vitest';
import type { Account } from '@farm/contracts';
import { buildAccount } from '../../test/fixtures';
import { accountChanges, accountDraft, accountFieldErrors, buildAccountPayload, emptyAccountForm, hasChanges, type AccountFormValues } from './accounts.form';

function form(overrides: Partial<AccountFormValues> = {}): AccountFormValues {
  return { ...emptyAccountForm(), username: 'alpha', ...overrides };
}

const stored: Account = buildAccount({ status: 'warmup', deviceId: 'd1', followers: 10, following: 5, updatedAt: '2025-01-02T00:00:00.000Z' });

describe('buildAccountPayload', () => {
  it('starts a new account pending creation with no followers', () => {
    expect(buildAccountPayload(form({ username: ' @alpha ', deviceId: 'd1', bio: '  ' }))).toEqual({
      username: 'alpha',
      platform: 'instagram',
      status: 'creation_pending',
      deviceId: 'd1',
      bio: null,
      followers: 0,
      following: 0,
    });
  });

  it('adds the tinder profile only for tinder', () => {
    const body = buildAccountPayload(
      form({
        platform: 'tinder',
        gender: 'woman',
        age: '29',
        birthday: '1996-04-02',
        sexualOrientation: 'bisexual',
        relationshipGoal: 'long-term',
        interests: 'hiking, , coffee',
        profileImages: ['/api/objects/1', '/api/objects/2'],
      }),
    );
    expect(body).toMatchObject({
      gender: 'woman',
      age: 29,
      birthday: '1996-04-02',
      sexualOrientation: 'bisexual',
      relationshipGoal: 'long-term',
      interests: ['hiking', 'coffee'],
      profileImages: ['/api/objects/1', '/api/objects/2'],
    });
    expect(buildAccountPayload(form({ gender: 'woman' }))).not.toHaveProperty('gender');
  });
});

describe('accountFieldErrors', () => {
  it("says 'Username is required'", () => {
    expect(accountFieldErrors(buildAccountPayload(form({ username: '  ' })))).toEqual({ username: 'Username is required' });
  });

  it('asks tinder accounts for 2 to 6 images', () => {
    const errors = accountFieldErrors(buildAccountPayload(form({ platform: 'tinder', profileImages: ['/api/objects/1'] })));
    expect(errors.profileImages).toBe('Tinder accounts need 2 to 6 profile images.');
  });

  it('accepts a complete form', () => {
    expect(accountFieldErrors(buildAccountPayload(form()))).toEqual({});
  });
});

describe('accountChanges', () => {
  it('is empty until something differs', () => {
    expect(hasChanges(accountChanges(stored, accountDraft(stored)))).toBe(false);
    expect(hasChanges(accountChanges(stored, { ...accountDraft(stored), bio: '   ' }))).toBe(false);
  });

  it('holds only the changed fields', () => {
    const draft = { ...accountDraft(stored), status: 'active' as const, followers: '25', bio: 'Hi' };
    expect(accountChanges(stored, draft)).toEqual({ status: 'active', followers: 25, bio: 'Hi' });
  });

  it('keeps a blank count as it was', () => {
    expect(accountChanges(stored, { ...accountDraft(stored), following: '' })).toEqual({});
  });
});
