/** Recipes' pushed changes: a recipe paused for an app version or turned back on refreshes Campaigns → Recipes (its health board too) and the Tasks banner. */
import type { LiveCache, LiveHandlers } from '../../shared/realtime/live-cache';

export function bindRecipeEvents(live: LiveCache): Pick<LiveHandlers, 'recipe.breaker'> {
  return {
    'recipe.breaker': () => {
      live.refresh('/api/recipes');
      live.refresh('/api/recipes/health');
    },
  };
}
