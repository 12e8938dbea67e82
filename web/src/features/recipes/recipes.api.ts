/**
 * Recipes' reads and writes: the workspace's list (with the shipped templates and paused recipes), the health board,
 * adding, turning on and off and removing one; and the editor's: a recipe's document, its versions, a save, a restore
 * and a compare.
 */
import type {
  LanguageHeldPhones,
  Range,
  RecipeBreaker,
  RecipeDiff,
  RecipeHealth,
  RecipeList,
  RecipeSettings,
  RecipeVersionList,
  SaveRecipeVersionBody,
  ShippedRecipeDetail,
  WorkspaceRecipe,
  WorkspaceRecipeDetail,
} from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';
import { listKey, withQuery } from '../../shared/query';

export type RecipeDetail = WorkspaceRecipeDetail;

export function useRecipe(id: string) {
  return useQuery<RecipeDetail>({ queryKey: ['/api/recipes', id] });
}

export function useRecipeVersions(id: string) {
  return useQuery<RecipeVersionList>({ queryKey: ['/api/recipes', id, 'versions'] });
}

/** The compare of version `id` against another version's id or "shipped"; nothing asked while `against` is null. */
export function useRecipeDiff(id: string, against: string | null) {
  return useQuery<RecipeDiff>({
    queryKey: ['/api/recipes', id, `diff?against=${encodeURIComponent(against ?? '')}`],
    enabled: against !== null,
  });
}

export function useSaveVersion(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: SaveRecipeVersionBody) => apiRequest<RecipeDetail>(`/api/recipes/${id}/versions`, { method: 'POST', body }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}

export function useRestoreVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<RecipeDetail>(`/api/recipes/${id}/restore`, { method: 'POST' }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}

export function useRecipes(enabled: boolean) {
  return useQuery<RecipeList>({ queryKey: ['/api/recipes'], enabled });
}

/** Campaigns → Recipes, the health board: each recipe by app version over a range of workspace days. */
export function useRecipeHealth(range: Range) {
  return useQuery<RecipeHealth>({
    queryKey: listKey('/api/recipes/health', { range }),
    queryFn: ({ signal }) => apiRequest<RecipeHealth>(withQuery('/api/recipes/health', { range }), { signal }),
  });
}

/** Campaigns → Recipes: the phones held back by their language, with what to do (operators). */
export function useLanguageHeldPhones(enabled: boolean) {
  return useQuery<LanguageHeldPhones>({ queryKey: ['/api/recipes/held-by-language'], enabled });
}

/** A recipe's document: a shipped template (by its recipe id) or one of the workspace's (by its row id). */
export function fetchRecipeDocument(from: { shipped: string } | { id: string }): Promise<{ body: Record<string, unknown> }> {
  return apiRequest('shipped' in from ? `/api/recipes/shipped/${encodeURIComponent(from.shipped)}` : `/api/recipes/${from.id}`);
}

/** A shipped template with each selector's evidence (verified or not, and from where), read when it is opened. */
export function useShippedRecipe(recipeId: string | null) {
  return useQuery<ShippedRecipeDetail>({
    queryKey: ['/api/recipes/shipped', recipeId],
    queryFn: ({ signal }) => apiRequest<ShippedRecipeDetail>(`/api/recipes/shipped/${encodeURIComponent(recipeId ?? '')}`, { signal }),
    enabled: recipeId !== null,
  });
}

export function useAddRecipe() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (recipe: Record<string, unknown>) => apiRequest<WorkspaceRecipe>('/api/recipes', { method: 'POST', body: { recipe } }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}

export function useSetRecipeEnabled() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      apiRequest<WorkspaceRecipe>(`/api/recipes/${id}`, { method: 'PATCH', body: { enabled } }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}

export function useRemoveRecipe() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/recipes/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}

/** Whether shipped templates may run on app versions no one verified. */
export function useSetRecipeSettings() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (settings: RecipeSettings) => apiRequest<RecipeSettings>('/api/recipes/settings', { method: 'PUT', body: settings }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}

/** "Turn it back on": the paused recipe dispatches again on that app version. */
export function useResumeRecipe() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<RecipeBreaker>(`/api/recipes/breakers/${id}/resume`, { method: 'POST' }),
    onSuccess: () => invalidate('/api/recipes', '/api/recipes/health'),
  });
}

/** "Send this work to VAs by hand": the paused recipe's waiting tasks become their phones' VAs'. */
export function useSendPausedWorkToVAs() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<{ tasks: number }>(`/api/recipes/breakers/${id}/by-hand`, { method: 'POST' }),
    onSuccess: () => invalidate('/api/recipes', '/api/tasks'),
  });
}
