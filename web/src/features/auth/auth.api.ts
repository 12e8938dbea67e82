import type {
  AppConfig,
  InvitationPreview,
  LoginBody,
  LoginResponse,
  Me,
  PasswordResetBody,
  PasswordResetPreview,
  SignupBody,
  SignupResponse,
  TwoFactorSetup,
} from '@farm/contracts';
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
    // The login answer carries no notices: /me is asked once more for what the person must be told.
    void queryClient.invalidateQueries({ queryKey: ME_KEY });
  };
}

/** The password step: signs in, or answers the second step that is due (a code, or setting two-factor up). */
export function useLogin() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: LoginBody) => apiRequest<LoginResponse>('/api/auth/login', { method: 'POST', body }),
    onSuccess: (answer) => {
      if ('user' in answer) signedIn(answer);
    },
  });
}

/** The second step of a login: a code from the authenticator app or a recovery code. */
export function useLoginCode() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: { challenge: string; code: string }) =>
      apiRequest<UserResponse & { recoveryCodes?: string[] }>('/api/auth/login/two-factor', { method: 'POST', body }),
    onSuccess: signedIn,
  });
}

/** For a login whose workspace requires two-factor sign-in: the secret and QR code to set it up with. */
export function useLoginSetup() {
  return useMutation({
    mutationFn: (challenge: string) => apiRequest<TwoFactorSetup>('/api/auth/login/two-factor/setup', { method: 'POST', body: { challenge } }),
  });
}

export function usePasswordResetPreview(token: string | null) {
  return useQuery<PasswordResetPreview>({
    queryKey: ['/api/password-resets/lookup', token ?? ''],
    enabled: Boolean(token),
  });
}

export function useResetPassword() {
  return useMutation({
    mutationFn: (body: PasswordResetBody) => apiRequest<{ ok: true }>('/api/auth/password-reset', { method: 'POST', body }),
  });
}

export function useSignup() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (body: SignupBody) => apiRequest<SignupResponse>('/api/auth/signup', { method: 'POST', body }),
    onSuccess: (answer) => {
      if ('user' in answer) signedIn(answer);
    },
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
