/** The recipe editor's reads and writes: a recipe's document, its versions, a save, a restore and a compare. */
import type { RecipeDiff, RecipeVersionList, SaveRecipeVersionBody, WorkspaceRecipeDetail } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';

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
