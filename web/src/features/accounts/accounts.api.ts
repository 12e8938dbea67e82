/** Server state of the Accounts screens. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Account, CreateAccountBody, Device, UpdateAccountBody } from '@farm/contracts';
import { apiRequest } from '../../shared/api';
import { useCurrentUser } from '../auth/auth.api';

export const ACCOUNTS_KEY = ['/api/accounts'] as const;
export const accountKey = (id: string) => ['/api/accounts', id] as const;

/** Creating, editing and deleting accounts is an operator's call; a VA may only update followers and following. */
export function useCanManageAccounts(): boolean {
  return useCurrentUser()?.role === 'operator';
}

export function useAccounts() {
  return useQuery<Account[]>({ queryKey: ACCOUNTS_KEY });
}

export function useAccount(id: string) {
  return useQuery<Account>({ queryKey: accountKey(id) });
}

export function useDevices() {
  return useQuery<Device[]>({ queryKey: ['/api/devices'] });
}

export function useCreateAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateAccountBody) => apiRequest<Account>('/api/accounts', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ACCOUNTS_KEY }),
  });
}

export function useUpdateAccount(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateAccountBody) => apiRequest<Account>(`/api/accounts/${id}`, { method: 'PATCH', body }),
    onSuccess: (updated) => {
      if (updated) client.setQueryData(accountKey(id), updated);
      return client.invalidateQueries({ queryKey: ACCOUNTS_KEY, exact: true });
    },
  });
}

export function useDeleteAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`/api/accounts/${id}`, { method: 'DELETE' }),
    onSuccess: (_void, id) => {
      client.removeQueries({ queryKey: accountKey(id) });
      return client.invalidateQueries({ queryKey: ACCOUNTS_KEY });
    },
  });
}
