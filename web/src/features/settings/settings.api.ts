import type {
  AuthSession,
  PasswordResetRequest,
  CreatedPasswordReset,
  TwoFactorSetup,
  TwoFactorStatus,
  createdWallLink,
  createdInvitation,
  createInvitationBody,
  Invitation,
  Me,
  RetentionSettings,
  StorageUsage,
  updateMeBody,
  updateUserBody,
  User,
  WallLink,
  workspace,
} from '@farm/contracts';
import type { z } from 'zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';
import { ME_KEY } from '../auth/auth.api';
import { useAuthStore } from '../auth/auth.store';

export { useUsers } from '../../shared/resources';

type Workspace = z.infer<typeof workspace>;
type CreatedInvitation = z.infer<typeof createdInvitation>;
type UpdateMeBody = z.input<typeof updateMeBody>;
type UpdateUserBody = z.input<typeof updateUserBody>;
type CreateInvitationBody = z.input<typeof createInvitationBody>;
export type CreatedWallLink = z.infer<typeof createdWallLink>;
/** A wall link's create body: an optional name. */
type NamedBody = { name?: string | undefined };

/** The workspace's stored bytes against its quota (operators). */
export function useStorageUsage(enabled: boolean) {
  return useQuery<StorageUsage>({ queryKey: ['/api/storage'], enabled });
}

export function useWorkspace(enabled: boolean) {
  return useQuery<Workspace>({ queryKey: ['/api/workspace'], enabled });
}

export function useUpdateWorkspace() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: string | { name: string; timeZone?: string }) =>
      apiRequest<Workspace>('/api/workspace', { method: 'PATCH', body: typeof body === 'string' ? { name: body } : body }),
    onSuccess: () => invalidate('/api/workspace', ME_KEY[0]),
  });
}

export function useUpdateRetention() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: RetentionSettings) => apiRequest<Workspace>('/api/workspace/retention', { method: 'PUT', body }),
    onSuccess: () => invalidate('/api/workspace'),
  });
}

export function useUpdateMe() {
  const queryClient = useQueryClient();
  const setUser = useAuthStore((state) => state.setUser);
  return useMutation({
    mutationFn: (body: UpdateMeBody) => apiRequest<{ user: Me }>('/api/users/me', { method: 'PATCH', body }),
    onSuccess: ({ user }) => {
      setUser(user);
      queryClient.setQueryData(ME_KEY, { user });
      void queryClient.invalidateQueries({ queryKey: ['/api/users'] });
    },
  });
}

export function useUpdateMember() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateUserBody }) => apiRequest<User>(`/api/users/${id}`, { method: 'PATCH', body }),
    onSuccess: () => invalidate('/api/users'),
  });
}

export function useInvitations(enabled: boolean) {
  return useQuery<Invitation[]>({ queryKey: ['/api/invitations'], enabled });
}

export function useCreateInvitation() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateInvitationBody) => apiRequest<CreatedInvitation>('/api/invitations', { method: 'POST', body }),
    onSuccess: () => invalidate('/api/invitations'),
  });
}

export function useRevokeInvitation() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/invitations/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate('/api/invitations'),
  });
}

/** The full address of an invitation link the server gave as a path. */
export function invitationLink(url: string): string {
  return new URL(url, window.location.origin).toString();
}

export function useWallLinks(enabled: boolean) {
  return useQuery<WallLink[]>({ queryKey: ['/api/wall-links'], enabled });
}

/** A read-only wall screen link; its token (in `url`) is shown once. */
export function useCreateWallLink() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ name }: NamedBody) => apiRequest<CreatedWallLink>('/api/wall-links', { method: 'POST', body: name ? { name } : {} }),
    onSuccess: () => invalidate('/api/wall-links'),
  });
}

export function useRevokeWallLink() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/wall-links/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate('/api/wall-links'),
  });
}

export const TWO_FACTOR_KEY = ['/api/auth/two-factor'] as const;

export function useTwoFactor() {
  return useQuery<TwoFactorStatus>({ queryKey: TWO_FACTOR_KEY });
}

/** Starts setting two-factor sign-in up: a fresh secret and its QR code, confirmed by the first code. */
export function useStartTwoFactor() {
  return useMutation({ mutationFn: () => apiRequest<TwoFactorSetup>('/api/auth/two-factor/setup', { method: 'POST' }) });
}

export function useEnableTwoFactor() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (code: string) => apiRequest<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', { method: 'POST', body: { code } }),
    onSuccess: () => invalidate(TWO_FACTOR_KEY[0]),
  });
}

export function useNewRecoveryCodes() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (code: string) => apiRequest<{ recoveryCodes: string[] }>('/api/auth/two-factor/recovery-codes', { method: 'POST', body: { code } }),
    onSuccess: () => invalidate(TWO_FACTOR_KEY[0]),
  });
}

export function useDisableTwoFactor() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: { password: string; code: string }) => apiRequest<TwoFactorStatus>('/api/auth/two-factor/disable', { method: 'POST', body }),
    onSuccess: () => invalidate(TWO_FACTOR_KEY[0]),
  });
}

/** The workspace's rule that its operators use two-factor sign-in. */
export function useRequireTwoFactor() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (required: boolean) => apiRequest<{ required: boolean }>('/api/workspace/two-factor', { method: 'PUT', body: { required } }),
    onSuccess: () => invalidate('/api/workspace', TWO_FACTOR_KEY[0]),
  });
}

/** A one-time link, valid an hour, for a member to choose a new password; its token is shown once. */
export function useCreatePasswordReset() {
  return useMutation({
    mutationFn: (userId: string) => apiRequest<CreatedPasswordReset>(`/api/users/${userId}/password-reset`, { method: 'POST' }),
  });
}

/** Resets of operators waiting for a second operator's approval. */
export function useResetRequests(enabled: boolean) {
  return useQuery<PasswordResetRequest[]>({ queryKey: ['/api/reset-requests'], enabled });
}

export function useRequestReset() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (userId: string) => apiRequest<PasswordResetRequest>(`/api/users/${userId}/reset-requests`, { method: 'POST' }),
    onSuccess: () => invalidate('/api/reset-requests'),
  });
}

export function useApproveReset() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (requestId: string) => apiRequest<CreatedPasswordReset>(`/api/reset-requests/${requestId}/approve`, { method: 'POST' }),
    onSettled: () => invalidate('/api/reset-requests'),
  });
}

/** The signed-in person's own sessions (browsers signed in), and ending one. */
export function useAuthSessions() {
  return useQuery<AuthSession[]>({ queryKey: ['/api/auth/sessions'] });
}

export function useEndSession() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (sessionId: string) => apiRequest<void>(`/api/auth/sessions/${sessionId}`, { method: 'DELETE' }),
    onSuccess: () => invalidate('/api/auth/sessions'),
  });
}

/** An operator ends every session of a member. */
export function useEndMemberSessions() {
  return useMutation({
    mutationFn: (userId: string) => apiRequest<void>(`/api/users/${userId}/sessions`, { method: 'DELETE' }),
  });
}
