import { describe, expect, it } from 'vitest';
import type { Account } from '@farm/contracts';
import { buildAccount } from '../../test/fixtures';
import { resolveLinkedAccounts } from './campaigns.api';

function account(id: string, username: string): Account {
  return buildAccount({ id, username });
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
