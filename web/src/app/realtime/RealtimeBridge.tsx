import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { ME_KEY } from '../../features/auth/auth.api';
import { bindTaskAlerts } from '../../features/tasks/tasks.events';
import { watchConnection } from '../../shared/realtime/connection';
import { createCacheSync } from './cache-sync';
import { useConnectionStore } from './connection.store';
import { getSocket } from './socket';

/**
 * Keeps the signed-in console live while it is mounted: pushed events patch the cache, the connection state
 * feeds the header's indicator, work pushed to this person is announced, and a reconnect that could not
 * recover what was missed takes a fresh snapshot of every read.
 */
export function RealtimeBridge() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);

  useEffect(() => {
    navigateRef.current = navigate;
  }, [navigate]);

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
    const stopWatching = watchConnection(socket, useConnectionStore.getState().report, {
      onUnauthorized: () => void queryClient.invalidateQueries({ queryKey: ME_KEY }),
    });
    const unbindTasks = bindTaskAlerts(socket, { onView: () => void navigateRef.current('/tasks/mine') });

    socket.onAny(onEvent);
    socket.on('connect', onConnect);
    socket.connect();
    return () => {
      socket.offAny(onEvent);
      socket.off('connect', onConnect);
      unbindTasks();
      stopWatching();
      socket.disconnect();
      sync.dispose();
    };
  }, [queryClient]);

  return null;
}
