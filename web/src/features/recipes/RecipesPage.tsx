/**
 * Campaigns → Recipes (/campaigns/recipes): the step recipes campaigns' routines run on the phones (operators), the
 * phones held back by their language (operators), and their health board by app version (VAs read it too).
 */
import { Stack } from '@mantine/core';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { CampaignsTabs } from '../campaigns/components/CampaignsTabs';
import { LanguageHeldSection } from './components/LanguageHeldSection';
import { RecipeHealthSection } from './components/RecipeHealthSection';
import { RecipesSection } from './components/RecipesSection';

export function RecipesPage() {
  const me = useCurrentUser();
  if (!me) return null;
  return (
    <>
      <CampaignsTabs />
      <PageHeader title="Recipes" subtitle="The steps phones follow for each routine, and how they fare on each app version" />
      <Stack gap="lg" maw={1200}>
        {me.role === 'operator' ? <RecipesSection /> : null}
        {me.role === 'operator' ? <LanguageHeldSection /> : null}
        <RecipeHealthSection />
      </Stack>
    </>
  );
}
