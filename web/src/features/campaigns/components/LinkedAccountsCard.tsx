import { useState } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { ActionIcon, Alert, Badge, Button, Card, Group, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconLinkOff, IconPlus, IconSearch } from '@tabler/icons-react';
import { accountStatusLabels, type Account, type Campaign } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useLinkAccount, useUnlinkAccount } from '../campaigns.api';

/** SPEC §9: account and post dialog lists are at most 300 px high. */
export const DIALOG_LIST_MAX_HEIGHT = 300;

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
    <FormModal opened={opened} onClose={onClose} title="Add Account">
      <Stack gap="sm">
        <TextInput
          label="Search accounts"
          placeholder="Search by username..."
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          data-autofocus
        />
        <ScrollArea.Autosize mah={DIALOG_LIST_MAX_HEIGHT} type="auto">
          {candidates.length === 0 ? (
            <Text size="sm" c="dimmed" py="sm">
              No {campaign.platform} accounts available to link.
            </Text>
          ) : (
            <Stack gap={6} component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
              {candidates.map((account) => (
                <Group key={account.id} component="li" justify="space-between" wrap="nowrap" gap="sm" py={4}>
                  <Stack gap={0} miw={0}>
                    <Text fw={500} truncate>
                      @{account.username}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {accountStatusLabels[account.status]}
                    </Text>
                  </Stack>
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={`Link @${account.username}`}
                    loading={link.isPending && link.variables === account.id}
                    disabled={link.isPending}
                    onClick={() => choose(account)}
                  >
                    Link
                  </Button>
                </Group>
              ))}
            </Stack>
          )}
        </ScrollArea.Autosize>
      </Stack>
    </FormModal>
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
    <Card withBorder radius="md" padding="lg">
      <Stack gap="md">
        <Group justify="space-between" gap="sm">
          <Title order={2} fz="lg">
            Linked Accounts
          </Title>
          {canManage && (
            <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => setAdding(true)}>
              Add Account
            </Button>
          )}
        </Group>
        {loading ? (
          <LoadingState label="Loading accounts..." />
        ) : failed ? (
          <Alert color="red" title="Failed to fetch campaign accounts" />
        ) : linkedAccounts.length === 0 ? (
          <Text size="sm" c="dimmed">
            No accounts linked yet.
          </Text>
        ) : (
          <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Linked accounts">
            {linkedAccounts.map((account) => (
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
            ))}
          </Stack>
        )}
      </Stack>
      <LinkAccountModal opened={adding} onClose={() => setAdding(false)} campaign={campaign} accounts={accounts} linkedIds={linkedIds} />
    </Card>
  );
}
