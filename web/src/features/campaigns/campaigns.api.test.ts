import { describe, expect, it } from 'vitest';
import type { Account } from '@farm/contracts';
import { resolveLinkedAccounts } from './campaigns.api';

function account(id: string, username: string): Account {
  return {
    id,
    username,
    platform: 'instagram',
    status: 'active',
    deviceId: null,
    profilePicture: null,
    bio: null,
    followers: 0,
    following: 0,
    warmupStartDate: null,
    warmupEndDate: null,
    gender: null,
    age: null,
    birthday: null,
    profileImages: [],
    interests: [],
    sexualOrientation: null,
    relationshipGoal: null,
    pausedCode: null,
    pausedMessage: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
}

describe('resolveLinkedAccounts', () => {
  const all = [account('a1', 'alpha'), account('a2', 'beta')];

  it('uses whole accounts as they come', () => {
    expect(resolveLinkedAccounts([account('a2', 'beta')], all).map((a) => a.username)).toEqual(['beta']);
  });

  it('resolves link rows against the known accounts and skips unknown ones', () => {
    const links = [{ id: 'l1', campaignId: 'c', accountId: 'a1' }, { id: 'l2', campaignId: 'c', accountId: 'zz' }, null];
    expect(resolveLinkedAccounts(links, all).map((a) => a.username)).toEqual(['alpha']);
  });
});
