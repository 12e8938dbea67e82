/** Campaigns' and routines' pushed changes: rows patched where they are cached, lists that may change refetched. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

type CampaignEvents = Pick<
  LiveHandlers,
  'campaign.created' | 'campaign.updated' | 'campaign.deleted' | 'routine.created' | 'routine.updated' | 'routine.deleted'
>;

export function bindCampaignEvents(live: LiveCache): CampaignEvents {
  const campaigns = live.entity('/api/campaigns');
  const routines = live.entity('/api/routines');
  // A routine's change moves the campaign sessions computed from it.
  const routineChanged = () => live.refresh('/api/campaign-sessions');
  return {
    'campaign.created': campaigns.created,
    'campaign.updated': (campaign) => {
      campaigns.updated(campaign);
      // Linking or unlinking an account announces the campaign; its detail screen lists the accounts separately.
      live.later(
        `campaign-accounts:${campaign.id}`,
        () => void live.queryClient.invalidateQueries({ queryKey: ['/api/campaigns', campaign.id, 'accounts'], exact: true }),
      );
    },
    'campaign.deleted': campaigns.deleted,
    'routine.created': (routine) => {
      routines.created(routine);
      routineChanged();
    },
    'routine.updated': (routine) => {
      routines.updated(routine);
      routineChanged();
    },
    'routine.deleted': (routine) => {
      routines.deleted(routine);
      routineChanged();
    },
  };
}
