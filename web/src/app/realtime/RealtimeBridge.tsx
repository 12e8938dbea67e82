import { useQueryClient } from '@tanstack/react-query';
import { eachServerEvent } from '@farm/contracts';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { ME_KEY } from '../../features/auth/auth.api';
import { bindTaskAlerts } from '../../features/tasks/tasks.events';
import { watchConnection } from '../../shared/realtime/connection';
import { createCacheSync } from './cache-sync';
import { useConnectionStore } from './connection.store';
import { getSocket } from './socket';

/** How long after a recovered reconnect the console checks its reads against the server. */
const RECOVERED_RESYNC_MS = 2000;

/**
 * Keeps the signed-in console live while it is mounted: pushed events patch the cache, the connection state
 * feeds the header's indicator, work pushed to this person is announced, and a reconnect takes a fresh snapshot
 * of every read (at once when it could not recover what was missed, a moment later when it could).
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

    // A batch of events the server sent together is applied event by event, in order.
    const onEvent = (name: string, payload: unknown) => eachServerEvent(name, payload, sync.apply);
    let settle: ReturnType<typeof setTimeout> | undefined;
    const onConnect = () => {
      if (connectedBefore) {
        clearTimeout(settle);
        // Not recovered: what was missed is lost, so a fresh snapshot now. Recovered: the server replayed what was
        // missed; a snapshot a moment later also covers the one change a move to another instance can drop in the
        // instant the session is restored there.
        if (socket.recovered) settle = setTimeout(() => sync.resync(), RECOVERED_RESYNC_MS);
        else sync.resync();
      }
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
      clearTimeout(settle);
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
