/**
 * The signed-in person as the browser remembers them (SPEC §3: key auth_user with email, name and role).
 * The session cookie is the authority; this record only lets the screens greet the user before /me answers.
 */
import type { Me, Role } from '@farm/contracts';
import { create } from 'zustand';

export const AUTH_STORAGE_KEY = 'auth_user';

export interface AuthUser {
  email: string;
  name: string;
  role: Role;
}

function isAuthUser(value: unknown): value is AuthUser {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.email === 'string' && typeof record.name === 'string' && (record.role === 'operator' || record.role === 'va');
}

function readStored(): AuthUser | null {
  try {
    const raw = window.localStorage.getItem(AUTH_STORAGE_KEY);
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    return isAuthUser(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

interface AuthState {
  user: AuthUser | null;
  setUser: (user: Pick<Me, 'email' | 'name' | 'role'>) => void;
  clear: () => void;
}

export const useAuthStore = create<AuthState>()((set) => ({
  user: readStored(),
  setUser: ({ email, name, role }) => {
    const user: AuthUser = { email, name, role };
    window.localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify(user));
    set({ user });
  },
  clear: () => {
    window.localStorage.removeItem(AUTH_STORAGE_KEY);
    set({ user: null });
  },
}));
