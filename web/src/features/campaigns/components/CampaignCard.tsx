import { ActionIcon, Badge, Card, Group, Menu, Stack, Text } from '@mantine/core';
import { IconDots, IconPlayerPause, IconPlayerPlay } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Campaign, CampaignStatus } from '@farm/contracts';
import { platformLabels } from '../campaigns.form';
import { CampaignStatusBadge, PlatformIcon } from './CampaignBadges';

/** SPEC §9: a card shows the first 3 keywords. */
export const CARD_KEYWORDS = 3;

export interface CampaignCardProps {
  campaign: Campaign;
  /** Without it the status menu is hidden (people who may not manage campaigns). */
  onSetStatus?: (status: CampaignStatus) => void;
}

export function CampaignCard({ campaign, onSetStatus }: CampaignCardProps) {
  const keywords = campaign.keywords.slice(0, CARD_KEYWORDS);
  return (
    <Card withBorder radius="md" padding="lg" pos="relative">
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <PlatformIcon platform={campaign.platform} />
            <Stack gap={0} miw={0}>
              {/* The name is the card's link; its overlay makes the whole card clickable while the menu stays reachable. */}
              <Text component={Link} to={`/campaigns/${campaign.id}`} fw={600} truncate c="inherit" td="none" style={{ position: 'static' }}>
                <span style={{ position: 'absolute', inset: 0, zIndex: 0 }} aria-hidden />
                {campaign.name}
              </Text>
              <Text size="sm" c="dimmed" truncate>
                {platformLabels[campaign.platform]} · {campaign.niche}
              </Text>
            </Stack>
          </Group>
          {onSetStatus && (
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${campaign.name}`} pos="relative" style={{ zIndex: 1 }}>
                  <IconDots size={18} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item leftSection={<IconPlayerPlay size={14} />} disabled={campaign.status === 'active'} onClick={() => onSetStatus('active')}>
                  Activate
                </Menu.Item>
                <Menu.Item leftSection={<IconPlayerPause size={14} />} disabled={campaign.status === 'paused'} onClick={() => onSetStatus('paused')}>
                  Pause
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          )}
        </Group>
        <Group gap="xs">
          <CampaignStatusBadge status={campaign.status} />
        </Group>
        <Group gap={6} mih={22}>
          {keywords.length > 0 ? (
            keywords.map((keyword) => (
              <Badge key={keyword} variant="outline" color="gray" size="sm" maw="100%" style={{ textTransform: 'none' }}>
                {keyword}
              </Badge>
            ))
          ) : (
            <Text size="xs" c="dimmed">
              No keywords
            </Text>
          )}
        </Group>
        <Text size="sm">
          Daily target: <b>{campaign.engagementTarget}</b>
        </Text>
      </Stack>
    </Card>
  );
}
