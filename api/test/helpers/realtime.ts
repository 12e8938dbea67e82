/**
 * The app of a test file that speaks over sockets: built, listening on a port of its own, with the three people of
 * `people` signed in. The sockets it opens, and whatever the file hands to `closers`, end after the file's last test
 * (closers last first), then the app closes. A file's own `afterAll`, registered after this, runs before it.
 */
import { afterAll } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import type { Config } from '../../src/config.ts';
import { Client } from './app.ts';
import { appWithPeople } from './file-app.ts';
import { connect, listen } from '../realtime/sockets.ts';

/** Built and signed in at the file's top (`await realtimeApp()`): the tests use its names as the file's own. */
export async function realtimeApp(overrides: Partial<Config> = {}) {
  const { t, operator, va, stranger } = await appWithPeople(overrides);
  const sockets: Socket[] = [];
  const closers: (() => unknown)[] = [];
  // Registered after the app's own: runs before it closes.
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    for (const close of closers.reverse()) await close();
  });
  const url = await listen(t.app);

  /** A socket on the phones' namespace with this handshake (a phone's or a host's credential), not reconnecting. */
  function agentSocket(auth: Record<string, string>): Socket {
    const socket = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth, reconnection: false });
    sockets.push(socket);
    return socket;
  }

  /** A browser's socket on the console's namespace, signed in as `client` (or as nobody). */
  function browserSocket(client?: Client): Socket {
    const socket = connect(url, client);
    sockets.push(socket);
    return socket;
  }

  /** A socket on the live screens' namespace, signed in as `client`, not reconnecting. */
  function liveSocket(client: Client): Socket {
    const socket = io(`${url}/live`, { forceNew: true, transports: ['websocket'], reconnection: false, extraHeaders: { cookie: `sid=${client.cookie}` } });
    sockets.push(socket);
    return socket;
  }

  /** A farm host enrolled through the console by the operator: its id, and its credential for `agentSocket({ hostToken })`. */
  async function enrollHost(name: string): Promise<{ hostId: string; token: string }> {
    const created = await operator.post('/api/hosts', { name });
    const enrolled = await new Client(t.app).post<{ token: string }>('/api/agent/enroll', { code: created.body.code });
    return { hostId: created.body.host.id, token: enrolled.body.token };
  }

  return { t, url, operator, va, stranger, sockets, closers, agentSocket, browserSocket, liveSocket, enrollHost };
}
