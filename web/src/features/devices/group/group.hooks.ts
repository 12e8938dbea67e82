/** The group control session as the page holds it: opened with the page's phones, closed (every phone handed back) with it. */
import { useEffect, useState } from 'react';
import { openLiveSocket } from '../../../app/realtime/socket';
import { watchConnection, type ConnectionStatus } from '../../../shared/realtime/connection';
import { errorToast } from '../../../shared/toast';
import { canDecodeH264 } from '../devices.video';
import { toastAskSent } from '../devices.ask';
import { GroupSession, type GroupSessionView, type GroupSocket } from './group.session';

export interface GroupSessionHandle {
  session: GroupSession | null;
  view: GroupSessionView | null;
  connection: ConnectionStatus;
  h264: boolean;
}

/**
 * Opens a session for these phones (null: not known yet) and `run` (a new number starts it again after Stop all).
 * The phones are read when the session opens: later changes of the list come from the session itself.
 */
export function useGroupSession(deviceIds: readonly string[] | null, leaderId: string | null, run: number): GroupSessionHandle {
  const [session, setSession] = useState<GroupSession | null>(null);
  const [view, setView] = useState<GroupSessionView | null>(null);
  const [connection, setConnection] = useState<ConnectionStatus>('connecting');
  const [h264] = useState(canDecodeH264);
  const key = deviceIds ? `${deviceIds.join(',')}|${leaderId ?? ''}|${run}` : null;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the session opens once per phones' list and run (its key).
  useEffect(() => {
    if (!deviceIds || deviceIds.length === 0 || !leaderId) return;
    const { socket, close } = openLiveSocket();
    const opened = new GroupSession(socket as unknown as GroupSocket, {
      deviceIds,
      leaderId,
      h264,
      changed: setView,
      refused: (error) => errorToast('Error', error),
      asked: toastAskSent,
    });
    const stopWatching = watchConnection(socket, ({ status }) => setConnection(status));
    setSession(opened);
    setView(opened.state);
    return () => {
      stopWatching();
      opened.close();
      close();
      setSession(null);
    };
  }, [key]);

  return { session, view, connection, h264 };
}
