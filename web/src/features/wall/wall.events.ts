/**
 * Feeds the wall's store: the REST snapshot first, then pushed events. Phone events patch tiles; events that
 * change what only the snapshot knows (a tile's VA, a session's task) ask for a new snapshot, coalesced. The
 * feed recovers by itself: Socket.IO reconnects, a reconnect that did not recover missed events takes a fresh
 * snapshot, and a failed snapshot read is retried with backoff until the server answers.
 */
import { eachServerEvent, serverEvents, type ServerEventName, type ServerEventPayload, type WallSnapshot } from '@farm/contracts';
import type { Socket } from 'socket.io-client';
import { ApiError } from '../../shared/api';
import { retryDelay, watchConnection } from '../../shared/realtime/connection';
import {
  vaMayHaveChanged,
  withDevice,
  withoutDevice,
  withPulse,
  withScreenshot,
  withSession,
  withSnapshot,
  type WallState,
  type WallStore,
} from './wall.store';

/** Snapshot requests closer together than this become one read. */
export const SNAPSHOT_DELAY_MS = 500;

/** The part of a socket the wall needs (events arrive by name through onAny, parsed here). */
export type WallFeedSocket = Pick<Socket, 'connected' | 'active' | 'recovered' | 'connect' | 'disconnect' | 'on' | 'off' | 'onAny' | 'offAny'>;

export interface WallFeedOptions {
  store: WallStore;
  socket: WallFeedSocket;
  fetchSnapshot: (signal: AbortSignal) => Promise<WallSnapshot>;
  /** The snapshot read answered 401: the link was revoked, or the signed-in session ended. */
  onUnauthorized: () => void;
  snapshotDelayMs?: number;
}

type Patch = Partial<WallState> | null;

/** Starts the feed; returns the function that stops it and closes the socket. */
export function startWallFeed({ store, socket, fetchSnapshot, onUnauthorized, snapshotDelayMs = SNAPSHOT_DELAY_MS }: WallFeedOptions): () => void {
  let stopped = false;
  let inFlight: AbortController | undefined;
  let again = false;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let connectedBefore = false;

  const update = (patch: (state: WallState) => Patch) => {
    const next = patch(store.getState());
    if (next) store.setState(next);
  };

  const schedule = (delay: number) => {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      load();
    }, delay);
  };

  const load = () => {
    if (stopped) return;
    if (inFlight) {
      // Changes happened while reading: read again once this one lands.
      again = true;
      return;
    }
    const controller = new AbortController();
    inFlight = controller;
    fetchSnapshot(controller.signal)
      .then((snapshot) => {
        if (stopped) return;
        failures = 0;
        update((state) => withSnapshot(state, snapshot));
      })
      .catch((error: unknown) => {
        if (stopped) return;
        if (error instanceof ApiError && error.status === 401) {
          store.setState({ load: 'unauthorized' });
          onUnauthorized();
          return;
        }
        // The server is restarting or the network is down: try again, more slowly each time.
        schedule(retryDelay(failures++));
      })
      .finally(() => {
        if (inFlight === controller) inFlight = undefined;
        if (again && !stopped) {
          again = false;
          schedule(snapshotDelayMs);
        }
      });
  };

  const requestSnapshot = () => schedule(snapshotDelayMs);

  const handlers: Partial<{ [E in ServerEventName]: (payload: ServerEventPayload<E>) => void }> = {
    'devices.pulse': ({ devices }) => update((state) => withPulse(state, devices)),
    'device.created': (device) => {
      if (device.assignedToId !== null) requestSnapshot();
      update((state) => withDevice(state, device));
    },
    'device.updated': (device) => {
      if (vaMayHaveChanged(store.getState(), device)) requestSnapshot();
      update((state) => withDevice(state, device));
    },
    'device.assigned': (device) => {
      requestSnapshot();
      update((state) => withDevice(state, device));
    },
    'device.deleted': ({ id }) => update((state) => withoutDevice(state, id)),
    'screenshot.added': (shot) => update((state) => withScreenshot(state, shot)),
    'session.started': requestSnapshot,
    'session.ended': requestSnapshot,
    'session.updated': (session) => update((state) => withSession(state, session)),
    // A group renamed, made or removed, or phones joining or leaving one: the filter's names and the tiles of a
    // wall showing one group come from the snapshot.
    'group.created': requestSnapshot,
    'group.updated': requestSnapshot,
    'group.deleted': requestSnapshot,
  };

  const onEvent = (name: string, payload: unknown) => eachServerEvent(name, payload, onOne);
  const onOne = (name: string, payload: unknown) => {
    if (!Object.hasOwn(handlers, name)) return;
    const event = name as ServerEventName;
    const parsed = serverEvents[event].safeParse(payload);
    if (!parsed.success) return;
    (handlers[event] as ((data: unknown) => void) | undefined)?.(parsed.data);
  };

  const onConnect = () => {
    // Missed events are lost unless the server replayed them: take the whole picture again.
    if (connectedBefore && !socket.recovered) load();
    connectedBefore = true;
  };

  const stopWatching = watchConnection(socket, (connection) => store.setState({ connection }), {
    // The socket was refused: the REST read says whether the link (or session) is gone for good.
    onUnauthorized: load,
  });
  socket.onAny(onEvent);
  socket.on('connect', onConnect);
  socket.connect();
  load();

  return () => {
    stopped = true;
    clearTimeout(timer);
    inFlight?.abort();
    stopWatching();
    socket.offAny(onEvent);
    socket.off('connect', onConnect);
    socket.disconnect();
  };
}
