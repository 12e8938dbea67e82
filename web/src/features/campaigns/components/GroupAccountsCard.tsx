/**
 * A campaign's group of phones (issue #42): which group it takes, and the accounts on its phones now, for whom its
 * group routines run. Who is in the group is read when the day is planned and when each run falls due, so this list
 * is what the next run will see.
 */
import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { Campaign } from '@farm/contracts';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useGroups } from '../../groups/groups.api';
import { useCampaignGroupAccounts } from '../campaigns.api';

export function GroupAccountsCard({ campaign }: { campaign: Campaign }) {
  const groups = useGroups();
  const accounts = useCampaignGroupAccounts(campaign.id, campaign.groupId !== null);
  if (!campaign.groupId) return null;
  const group = groups.data?.find((item) => item.id === campaign.groupId);
  const rows = accounts.data ?? [];
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="campaign-group-title">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} fz="lg" id="campaign-group-title">
            Group of phones
          </Title>
          <Badge variant="light">{group ? `${group.kind === 'tag' ? '#' : ''}${group.name} · ${group.deviceIds.length} phones` : 'Group'}</Badge>
        </Group>
        <Text size="sm" c="dimmed">
          Its group routines run for every {campaign.platform} account on these phones, following phones as they join or leave the group.
        </Text>
        {accounts.isPending ? (
          <LoadingState label="Loading the group's accounts..." />
        ) : rows.length === 0 ? (
          <Text size="sm">No {campaign.platform} account is on the group's phones now.</Text>
        ) : (
          <Group gap={6} aria-label="Accounts on the group's phones">
            {rows.map((account) => (
              <Badge key={account.id} variant="outline" tt="none">
                @{account.username}
              </Badge>
            ))}
          </Group>
        )}
      </Stack>
    </Card>
  );
}
