import { useState } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { ActionIcon, Badge, Group, Text } from '@mantine/core';
import { IconLinkOff } from '@tabler/icons-react';
import { accountStatusLabels, type Account, type Campaign } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { useLinkAccount, useUnlinkAccount } from '../campaigns.api';
import { CampaignPanel, PanelAddButton, PanelList, PickerModal } from './CampaignPanel';

/** Accounts that may still be linked: same platform as the campaign, not linked yet, matching the search. */
export function linkCandidates(accounts: readonly Account[], campaign: Pick<Campaign, 'platform'>, linkedIds: ReadonlySet<string>, search: string): Account[] {
  const needle = search.trim().toLowerCase().replace(/^@/, '');
  return accounts.filter((account) => account.platform === campaign.platform && !linkedIds.has(account.id) && account.username.toLowerCase().includes(needle));
}

interface LinkAccountModalProps {
  opened: boolean;
  onClose: () => void;
  campaign: Campaign;
  accounts: readonly Account[];
  linkedIds: ReadonlySet<string>;
}

function LinkAccountModal({ opened, onClose, campaign, accounts, linkedIds }: LinkAccountModalProps) {
  const [search, setSearch] = useState('');
  const link = useLinkAccount(campaign.id);
  const candidates = linkCandidates(accounts, campaign, linkedIds, search);

  function choose(account: Account): void {
    link.mutate(account.id, {
      onSuccess: () => {
        toast('Account Linked', `@${account.username} is now part of ${campaign.name}.`);
        setSearch('');
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to link account. Please try again.')),
    });
  }

  return (
    <PickerModal
      opened={opened}
      onClose={onClose}
      title="Add Account"
      search={{ label: 'Search accounts', placeholder: 'Search by username...', value: search, onChange: setSearch }}
      items={candidates}
      empty={`No ${campaign.platform} accounts available to link.`}
      itemKey={(account) => account.id}
      describe={(account) => (
        <>
          <Text fw={500} truncate>
            @{account.username}
          </Text>
          <Text size="xs" c="dimmed">
            {accountStatusLabels[account.status]}
          </Text>
        </>
      )}
      pick={{
        label: 'Link',
        ariaLabel: (account) => `Link @${account.username}`,
        pending: link.isPending,
        pendingKey: link.variables,
        onPick: choose,
      }}
    />
  );
}

export interface LinkedAccountsCardProps {
  campaign: Campaign;
  linkedAccounts: readonly Account[];
  accounts: readonly Account[];
  loading: boolean;
  failed: boolean;
  canManage: boolean;
}

export function LinkedAccountsCard({ campaign, linkedAccounts, accounts, loading, failed, canManage }: LinkedAccountsCardProps) {
  const [adding, setAdding] = useState(false);
  const unlink = useUnlinkAccount(campaign.id);
  const linkedIds = new Set(linkedAccounts.map((account) => account.id));

  function unlinkAccount(account: Account): void {
    unlink.mutate(account.id, {
      onSuccess: () => toast('Account Unlinked', `@${account.username} was removed from ${campaign.name}.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to unlink account. Please try again.')),
    });
  }

  return (
    <CampaignPanel
      title="Linked Accounts"
      actions={canManage && <PanelAddButton label="Add Account" onClick={() => setAdding(true)} />}
      dialogs={<LinkAccountModal opened={adding} onClose={() => setAdding(false)} campaign={campaign} accounts={accounts} linkedIds={linkedIds} />}
    >
      <PanelList
        query={{ data: linkedAccounts, isPending: loading, isError: failed }}
        texts={{ loading: 'Loading accounts...', failed: 'Failed to fetch campaign accounts', empty: 'No accounts linked yet.', list: 'Linked accounts' }}
      >
        {(account) => (
          <Group key={account.id} component="li" justify="space-between" wrap="nowrap" gap="sm">
            <Group gap="xs" wrap="nowrap" miw={0}>
              <Text fw={500} truncate>
                @{account.username}
              </Text>
              <Badge size="sm" variant="light" color="gray">
                {accountStatusLabels[account.status]}
              </Badge>
            </Group>
            {canManage && (
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Unlink @${account.username}`}
                loading={unlink.isPending && unlink.variables === account.id}
                onClick={() => unlinkAccount(account)}
              >
                <IconLinkOff size={16} />
              </ActionIcon>
            )}
          </Group>
        )}
      </PanelList>
    </CampaignPanel>
  );
}
