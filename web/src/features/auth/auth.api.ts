import type { AppConfig, InvitationPreview, LoginBody, Me, SignupBody } from '@farm/api/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../shared/api';
import { useAuthStore } from './auth.store';

export const ME_KEY = ['/api/auth/me'] as const;

interface UserResponse {
  user: Me;
}

/** The signed-in person from the session cookie; a 401 means nobody is signed in. */
export function useMe() {
  return useQuery<UserResponse>({ queryKey: ME_KEY });
}

/** The signed-in person, for screens that only render inside the protected shell. */
export function useCurrentUser(): Me | undefined {
  return useMe().data?.user;
}

export function useAppConfig() {
  return useQuery<AppConfig>({ queryKey: ['/api/config'] });
}

export function useInvitationPreview(token: string | null) {
  return useQuery<InvitationPreview>({
    queryKey: ['/api/invitations/lookup', token ?? ''],
    enabled: Boolean(token),
  });
}

/** After login or signup: remember the person and seed /me so the shell does not ask again. */
function useSignedIn() {
  const queryClient = useQueryClient();
  const setUser = useAuthStore((state) => state.setUser);
  return ({ user }: UserResponse) => {
    setUser(user);
    queryClient.setQueryData<UserResponse>(ME_KEY, { user });
  };
}

export function useLogin() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: LoginBody) => apiRequest<UserResponse>('/api/auth/login', { method: 'POST', body }),
    onSuccess: signedIn,
  });
}

export function useSignup() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: SignupBody) => apiRequest<UserResponse>('/api/auth/signup', { method: 'POST', body }),
    onSuccess: signedIn,
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  const clear = useAuthStore((state) => state.clear);
  return useMutation({
    mutationFn: () => apiRequest<void>('/api/auth/logout', { method: 'POST' }),
    // Signed out locally even if the server call fails: the cookie may already be gone.
    onSettled: () => {
      clear();
      queryClient.clear();
    },
  });
}
