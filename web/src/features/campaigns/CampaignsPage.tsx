import { useState } from 'react';
import { refusalMessage } from '../../shared/refusal';
import { Alert, Button, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus, IconTargetArrow } from '@tabler/icons-react';
import type { Campaign, CampaignStatus } from '@farm/contracts';
import { errorToast, toast } from '../../shared/toast';
import { LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCampaigns, useCanManageCampaigns, useUpdateCampaign } from './campaigns.api';
import { CampaignCard } from './components/CampaignCard';
import { CampaignsTabs } from './components/CampaignsTabs';
import { campaignStatusLabels } from './components/CampaignBadges';
import { CampaignFormModal } from './components/CampaignFormModal';

/** Campaigns list (/campaigns). */
export function CampaignsPage() {
  const campaigns = useCampaigns();
  const canManage = useCanManageCampaigns();
  const update = useUpdateCampaign();
  const [creating, setCreating] = useState(false);

  function setStatus(campaign: Campaign, status: CampaignStatus): void {
    update.mutate(
      { id: campaign.id, body: { status } },
      {
        onSuccess: () => toast('Campaign Updated', `${campaign.name} is now ${campaignStatusLabels[status].toLowerCase()}.`),
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update campaign. Please try again.')),
      },
    );
  }

  const list = campaigns.data ?? [];

  return (
    <Stack gap={0}>
      <CampaignsTabs />
      <PageHeader
        title="Campaign Engine"
        subtitle="Automate engagement and content across your social accounts"
        actions={
          canManage && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New Campaign
            </Button>
          )
        }
      />

      {campaigns.isPending ? (
        <LoadingState label="Loading campaigns..." />
      ) : campaigns.isError ? (
        <Alert color="red" title="Failed to fetch campaigns">
          {campaigns.error.message}
        </Alert>
      ) : list.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="sm">
            <IconTargetArrow size={40} stroke={1.5} aria-hidden />
            <Text fw={600}>No campaigns yet</Text>
            <Text c="dimmed" ta="center" size="sm">
              Create a campaign to start automating engagement on your accounts.
            </Text>
            {canManage && (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                Create First Campaign
              </Button>
            )}
          </Stack>
        </Paper>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {list.map((campaign) => (
            <CampaignCard key={campaign.id} campaign={campaign} onSetStatus={canManage ? (status) => setStatus(campaign, status) : undefined} />
          ))}
        </SimpleGrid>
      )}

      <CampaignFormModal opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
