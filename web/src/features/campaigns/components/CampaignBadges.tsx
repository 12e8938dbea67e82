import { Badge, ThemeIcon } from '@mantine/core';
import { IconBrandInstagram, IconBrandTiktok, IconBrandTinder } from '@tabler/icons-react';
import type { Campaign, CampaignStatus } from '@farm/contracts';
import { platformLabels } from '../campaigns.form';

/** SPEC §4: active green, paused yellow, completed blue, others grey. */
export const campaignStatusColors: Record<CampaignStatus, string> = {
  active: 'green',
  paused: 'yellow',
  completed: 'blue',
  draft: 'gray',
};

export const campaignStatusLabels: Record<CampaignStatus, string> = {
  draft: 'Draft',
  active: 'Active',
  paused: 'Paused',
  completed: 'Completed',
};

export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return (
    <Badge color={campaignStatusColors[status]} variant="light">
      {campaignStatusLabels[status]}
    </Badge>
  );
}

const platformIcons = {
  instagram: { Icon: IconBrandInstagram, color: 'pink' },
  tiktok: { Icon: IconBrandTiktok, color: 'dark' },
  tinder: { Icon: IconBrandTinder, color: 'red' },
} as const;

export function PlatformIcon({ platform, size = 32 }: { platform: Campaign['platform']; size?: number }) {
  const { Icon, color } = platformIcons[platform];
  return (
    <ThemeIcon color={color} variant="light" size={size} radius="md" aria-label={platformLabels[platform]} role="img">
      <Icon size={Math.round(size * 0.6)} aria-hidden />
    </ThemeIcon>
  );
}
