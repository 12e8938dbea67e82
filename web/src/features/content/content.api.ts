/** Server state of the Content screen. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Account, Campaign, CreatePostBody, Post, UpdatePostBody } from '@farm/contracts';
import { apiRequest } from '../../shared/api';

export const POSTS_KEY = ['/api/posts'] as const;

export function usePosts() {
  return useQuery<Post[]>({ queryKey: POSTS_KEY });
}

export function useAccountsList() {
  return useQuery<Account[]>({ queryKey: ['/api/accounts'] });
}

export function useCampaignsList() {
  return useQuery<Campaign[]>({ queryKey: ['/api/campaigns'] });
}

/** Every post list (all, per campaign, unassigned) shares the '/api/posts' prefix, so one invalidation refreshes them all. */
function useInvalidatePosts() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: POSTS_KEY });
}

export function useCreatePost() {
  const invalidate = useInvalidatePosts();
  return useMutation({
    mutationFn: (body: CreatePostBody) => apiRequest<Post>('/api/posts', { method: 'POST', body }),
    onSuccess: invalidate,
  });
}

export function useUpdatePost() {
  const invalidate = useInvalidatePosts();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdatePostBody }) => apiRequest<Post>(`/api/posts/${id}`, { method: 'PATCH', body }),
    onSuccess: invalidate,
  });
}

export function useDeletePost() {
  const invalidate = useInvalidatePosts();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/posts/${id}`, { method: 'DELETE' }),
    onSuccess: invalidate,
  });
}
