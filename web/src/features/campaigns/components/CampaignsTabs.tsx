/** Campaigns' tabs: the campaigns (/campaigns) and the step recipes their routines run, with their health (/campaigns/recipes). */
import { SubNav } from '../../../shared/ui/SubNav';

export function CampaignsTabs() {
  return (
    <SubNav
      label="Campaigns"
      items={[
        { label: 'Campaigns', to: '/campaigns' },
        { label: 'Recipes', to: '/campaigns/recipes' },
      ]}
    />
  );
}
