/** Server state of the campaigns screens: queries keyed by API path parts, mutations that invalidate them. */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type {
  Account,
  Campaign,
  CampaignSession,
  CampaignStatus,
  CreateCampaignBody,
  CreateRoutineBody,
  Post,
  Routine,
  UpdateCampaignBody,
} from '@farm/contracts';
import { apiRequest } from '../../shared/api';
import { listKey, withQuery } from '../../shared/query';
import { useCurrentUser } from '../auth/auth.api';

export const campaignKeys = {
  all: ['/api/campaigns'] as const,
  one: (id: string) => ['/api/campaigns', id] as const,
  accounts: (id: string) => ['/api/campaigns', id, 'accounts'] as const,
  groupAccounts: (id: string) => ['/api/campaigns', id, 'group-accounts'] as const,
};

/** Operators manage campaigns, routines and account links; VAs only read them (the server answers them 403). */
export function useCanManageCampaigns(): boolean {
  return useCurrentUser()?.role === 'operator';
}

export function useCampaigns() {
  return useQuery<Campaign[]>({ queryKey: campaignKeys.all });
}

export function useCampaign(id: string) {
  return useQuery<Campaign>({ queryKey: campaignKeys.one(id) });
}

export function useAccounts() {
  return useQuery<Account[]>({ queryKey: ['/api/accounts'] });
}

/**
 * The linked accounts answer is read tolerantly: whole accounts are used as they are,
 * link rows ({accountId}) are resolved against the workspace's accounts.
 */
export function resolveLinkedAccounts(items: readonly unknown[], all: readonly Account[]): Account[] {
  const byId = new Map(all.map((account) => [account.id, account]));
  const out: Account[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Partial<Account> & { accountId?: unknown };
    if (typeof record.username === 'string' && typeof record.id === 'string') {
      out.push(byId.get(record.id) ?? (record as Account));
    } else if (typeof record.accountId === 'string') {
      const found = byId.get(record.accountId);
      if (found) out.push(found);
    }
  }
  return out;
}

export function useCampaignAccounts(id: string) {
  return useQuery<unknown[]>({ queryKey: campaignKeys.accounts(id) });
}

/** The accounts on the phones of the campaign's group now (read again when a group or the campaign changes). */
export function useCampaignGroupAccounts(id: string, enabled: boolean) {
  return useQuery<Account[]>({ queryKey: campaignKeys.groupAccounts(id), enabled });
}

export function useRoutines(campaignId: string) {
  return useQuery<Routine[]>({
    queryKey: listKey('/api/routines', { campaignId }),
    queryFn: ({ signal }) => apiRequest(withQuery('/api/routines', { campaignId }), { signal }),
  });
}

export function useCampaignSessions(campaignId: string) {
  return useQuery<CampaignSession[]>({
    queryKey: listKey('/api/campaign-sessions', { campaignId }),
    queryFn: ({ signal }) => apiRequest(withQuery('/api/campaign-sessions', { campaignId }), { signal }),
  });
}

/** Posts of one campaign, or with campaignId 'none' the posts that belong to no campaign. */
export function useCampaignPosts(campaignId: string, enabled = true) {
  return useQuery<Post[]>({
    queryKey: listKey('/api/posts', { campaignId }),
    queryFn: ({ signal }) => apiRequest(withQuery('/api/posts', { campaignId }), { signal }),
    enabled,
  });
}

export function useCreateCampaign() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateCampaignBody) => apiRequest<Campaign>('/api/campaigns', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: campaignKeys.all }),
  });
}

export function useUpdateCampaign() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateCampaignBody & { status?: CampaignStatus } }) =>
      apiRequest<Campaign>(`/api/campaigns/${id}`, { method: 'PATCH', body }),
    onSuccess: (updated, { id }) => {
      if (updated) client.setQueryData(campaignKeys.one(id), updated);
      // Activating or pausing may plan or cancel runs.
      void client.invalidateQueries({ queryKey: ['/api/campaign-sessions'] });
      return client.invalidateQueries({ queryKey: campaignKeys.all });
    },
  });
}

export function useDeleteCampaign() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/campaigns/${id}`, { method: 'DELETE' }),
    onSuccess: (_void, id) => {
      client.removeQueries({ queryKey: campaignKeys.one(id) });
      return client.invalidateQueries({ queryKey: campaignKeys.all });
    },
  });
}

export function useLinkAccount(campaignId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (accountId: string) => apiRequest<unknown>(`/api/campaigns/${campaignId}/accounts`, { method: 'POST', body: { accountId } }),
    onSuccess: () => client.invalidateQueries({ queryKey: campaignKeys.one(campaignId) }),
  });
}

export function useUnlinkAccount(campaignId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (accountId: string) => apiRequest<void>(`/api/campaigns/${campaignId}/accounts/${accountId}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: campaignKeys.one(campaignId) }),
  });
}

/** Routines and the runs planned from them change together. */
function invalidateRoutines(client: QueryClient): Promise<unknown> {
  return Promise.all([client.invalidateQueries({ queryKey: ['/api/routines'] }), client.invalidateQueries({ queryKey: ['/api/campaign-sessions'] })]);
}

export function useCreateRoutine() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateRoutineBody) => apiRequest<Routine>('/api/routines', { method: 'POST', body }),
    onSuccess: () => invalidateRoutines(client),
  });
}

export function useDeleteRoutine() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/routines/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidateRoutines(client),
  });
}

/** Attaches a post that has no campaign yet. */
export function useAttachPost(campaignId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (postId: string) => apiRequest<Post>(`/api/posts/${postId}`, { method: 'PATCH', body: { campaignId } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['/api/posts'] }),
  });
}
