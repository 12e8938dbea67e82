import { useState } from 'react';
import { refusalMessage } from '../../shared/refusal';
import { Alert, Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconPencil, IconPlayerPause, IconPlayerPlay, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Campaign } from '@farm/contracts';
import { errorToast, toast } from '../../shared/toast';
import { LoadingState } from '../../shared/ui/LoadingState';
import {
  resolveLinkedAccounts,
  useAccounts,
  useCampaign,
  useCampaignAccounts,
  useCanManageCampaigns,
  useDeleteCampaign,
  useUpdateCampaign,
} from './campaigns.api';
import { platformLabels } from './campaigns.form';
import { CampaignStatusBadge, PlatformIcon } from './components/CampaignBadges';
import { CampaignFormModal } from './components/CampaignFormModal';
import { CampaignScheduleCard } from './components/CampaignScheduleCard';
import { CampaignSessionsCard } from './components/CampaignSessionsCard';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { GroupAccountsCard } from './components/GroupAccountsCard';
import { LinkedAccountsCard } from './components/LinkedAccountsCard';
import { RoutinesCard } from './components/RoutinesCard';
import { ScheduledContentCard } from './components/ScheduledContentCard';

/** Scheduled content exists only where posts exist: instagram and tiktok. */
export function hasScheduledContent(platform: Campaign['platform']): boolean {
  return platform === 'instagram' || platform === 'tiktok';
}

function BackButton() {
  return (
    <Button component={Link} to="/campaigns" variant="subtle" leftSection={<IconArrowLeft size={16} />} px={0} w="fit-content">
      Back to Campaigns
    </Button>
  );
}

function ListCard({ title, items }: { title: string; items: readonly string[] }) {
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="sm">
        <Title order={2} fz="lg">
          {title}
        </Title>
        {items.length === 0 ? (
          <Text size="sm" c="dimmed">
            None
          </Text>
        ) : (
          <Group gap={6}>
            {items.map((item) => (
              <Badge key={item} variant="light" color="gray" maw="100%" style={{ textTransform: 'none' }}>
                {item}
              </Badge>
            ))}
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** Campaign detail (/campaigns/{id}). */
export function CampaignDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const campaign = useCampaign(id);
  const accounts = useAccounts();
  const linked = useCampaignAccounts(id);
  const canManage = useCanManageCampaigns();
  const update = useUpdateCampaign();
  const remove = useDeleteCampaign();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  if (campaign.isPending) {
    return (
      <Stack gap="md">
        <BackButton />
        <LoadingState label="Loading campaign..." />
      </Stack>
    );
  }
  if (campaign.isError) {
    return (
      <Stack gap="md">
        <BackButton />
        <Alert color="red" title="Failed to fetch campaign">
          {campaign.error.message}
        </Alert>
      </Stack>
    );
  }

  const current = campaign.data;
  const allAccounts = accounts.data ?? [];
  const linkedAccounts = resolveLinkedAccounts(linked.data ?? [], allAccounts);
  const nextStatus = current.status === 'active' ? 'paused' : 'active';

  function toggleStatus(): void {
    update.mutate(
      { id: current.id, body: { status: nextStatus } },
      {
        onSuccess: () => toast('Campaign Updated', `${current.name} is now ${nextStatus}.`),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update campaign. Please try again.')),
      },
    );
  }

  function confirmDelete(): void {
    remove.mutate(current.id, {
      onSuccess: () => {
        toast('Campaign Deleted', `${current.name} was deleted.`);
        void navigate('/campaigns');
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to delete campaign. Please try again.')),
    });
  }

  return (
    <Stack gap="lg">
      <BackButton />
      <Group justify="space-between" align="flex-start" gap="md">
        <Group gap="md" wrap="nowrap" align="flex-start" miw={0}>
          <PlatformIcon platform={current.platform} size={44} />
          <Stack gap={4} miw={0}>
            <Group gap="sm">
              <Title order={1} fz={{ base: 22, sm: 28 }} style={{ overflowWrap: 'anywhere' }}>
                {current.name}
              </Title>
              <CampaignStatusBadge status={current.status} />
            </Group>
            <Text c="dimmed">
              {platformLabels[current.platform]} · {current.niche}
            </Text>
            <Text size="sm">
              Daily target: <b>{current.engagementTarget}</b> engagements
            </Text>
          </Stack>
        </Group>
        {canManage && (
          <Group gap="xs">
            <Button
              variant={nextStatus === 'active' ? 'filled' : 'light'}
              color={nextStatus === 'active' ? 'green' : 'yellow'}
              leftSection={nextStatus === 'active' ? <IconPlayerPlay size={16} /> : <IconPlayerPause size={16} />}
              loading={update.isPending}
              onClick={toggleStatus}
            >
              {nextStatus === 'active' ? 'Activate' : 'Pause'}
            </Button>
            <Button variant="default" leftSection={<IconPencil size={16} />} onClick={() => setEditing(true)}>
              Edit
            </Button>
            <Button variant="light" color="red" leftSection={<IconTrash size={16} />} onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </Group>
        )}
      </Group>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ListCard title="Keywords" items={current.keywords} />
        <ListCard title="Reference Accounts" items={current.referenceAccounts} />
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <RoutinesCard campaign={current} linkedAccounts={linkedAccounts} accounts={allAccounts} canManage={canManage} />
        <LinkedAccountsCard
          campaign={current}
          linkedAccounts={linkedAccounts}
          accounts={allAccounts}
          loading={linked.isPending || accounts.isPending}
          failed={linked.isError || accounts.isError}
          canManage={canManage}
        />
      </SimpleGrid>

      <GroupAccountsCard campaign={current} />

      {hasScheduledContent(current.platform) && <ScheduledContentCard campaign={current} accounts={allAccounts} />}

      <CampaignScheduleCard campaign={current} canManage={canManage} />
      <CampaignSessionsCard campaignId={current.id} accounts={allAccounts} />

      {canManage && (
        <>
          <CampaignFormModal opened={editing} onClose={() => setEditing(false)} campaign={current} />
          <ConfirmModal
            opened={deleting}
            title="Delete Campaign"
            message={`Delete ${current.name}? This cannot be undone.`}
            confirmLabel="Delete Campaign"
            loading={remove.isPending}
            onConfirm={confirmDelete}
            onClose={() => setDeleting(false)}
          />
        </>
      )}
    </Stack>
  );
}
