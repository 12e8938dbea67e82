import type { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../shared/api';
import { ME_KEY } from '../features/auth/auth.api';

function isUnauthorized(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/**
 * When any call answers 401 the session has ended (expiry, logout elsewhere): ask /me again so the
 * protected route sees the 401 and sends the person to /login instead of leaving broken screens up.
 */
export function watchSessionExpiry(queryClient: QueryClient): () => void {
  const recheck = () => {
    void queryClient.invalidateQueries({ queryKey: ME_KEY, refetchType: 'all' });
  };
  const unsubscribeQueries = queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'error') return;
    if (event.query.queryKey[0] === ME_KEY[0]) return;
    if (isUnauthorized(event.action.error)) recheck();
  });
  const unsubscribeMutations = queryClient.getMutationCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'error') return;
    if (isUnauthorized(event.action.error)) recheck();
  });
  return () => {
    unsubscribeQueries();
    unsubscribeMutations();
  };
}
