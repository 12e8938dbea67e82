import { Button, Center, Stack, Text } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { Navigate } from 'react-router';
import { ApiError } from '../../shared/api';
import { useMe } from './auth.api';
import { useAuthStore } from './auth.store';

/** Renders its children only for a signed-in visitor; anyone else goes to /login and sees nothing meanwhile. */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const me = useMe();
  const setUser = useAuthStore((state) => state.setUser);
  const clear = useAuthStore((state) => state.clear);
  const user = me.data?.user;
  const signedOut = me.error instanceof ApiError && me.error.status === 401;

  useEffect(() => {
    if (user) setUser(user);
  }, [user, setUser]);
  useEffect(() => {
    if (signedOut) clear();
  }, [signedOut, clear]);

  if (me.isPending) return null;
  if (signedOut || (me.isSuccess && !user)) return <Navigate to="/login" replace />;
  if (me.isError) {
    return (
      <Center h="100dvh" p="md">
        <Stack align="center" gap="sm">
          <Text>The console could not reach the server.</Text>
          <Button onClick={() => void me.refetch()}>Try again</Button>
        </Stack>
      </Center>
    );
  }
  return <>{children}</>;
}
