import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ME_KEY } from '../../features/auth/auth.api';
import { createCacheSync } from './cache-sync';
import { getSocket } from './socket';

/**
 * Keeps the signed-in console live while it is mounted: pushed events patch the cache, and a reconnect
 * that could not recover what was missed takes a fresh snapshot of every read.
 */
export function RealtimeBridge() {
  const queryClient = useQueryClient();

  useEffect(() => {
    const socket = getSocket();
    const sync = createCacheSync(queryClient);
    let connectedBefore = false;

    const onEvent = (name: string, payload: unknown) => sync.apply(name, payload);
    const onConnect = () => {
      if (connectedBefore && !socket.recovered) sync.resync();
      connectedBefore = true;
    };
    // A refused handshake usually means the session ended: ask /me, which sends the person to /login.
    const onConnectError = (error: Error) => {
      if (error.message === 'unauthorized') void queryClient.invalidateQueries({ queryKey: ME_KEY });
    };

    socket.onAny(onEvent);
    socket.on('connect', onConnect);
    socket.on('connect_error', onConnectError);
    socket.connect();
    return () => {
      socket.offAny(onEvent);
      socket.off('connect', onConnect);
      socket.off('connect_error', onConnectError);
      socket.disconnect();
      sync.dispose();
    };
  }, [queryClient]);

  return null;
}
