/**
 * The console's agent namespace as far as a farm host and its phones need one, in process: the host's control
 * connection is welcomed, each phone's connection is answered hello (as the console's `agents.socket.ts` does) and
 * kept by serial, so a test can send it what a person at the console sends (`live.input`, `inspect.capture`,
 * `live.start`) and read what it answers and the live frames it sends.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import type { Ack } from '../src/messages.ts';

export interface FakeConsole {
  url: string;
  /** Every phone connection made, by serial, oldest first. */
  connections: Map<string, ServerSocket[]>;
  /** Live frames each phone sent (`live.frame`), answered "keep going". */
  frames: Map<string, { seq: number; source: string }[]>;
  /** What the host said on its control connection (`host.app`, `host.app-progress`, `host.health`, …), in order. */
  hostSaid: { name: string; message: unknown }[];
  /** The host's control connection now, if one is open (the console sends it `app.run` and `host.settings` there). */
  host(): ServerSocket | undefined;
  /** H.264 packets each phone sent (`live.video`), answered at once; `at` counts every packet the console got. */
  videos: Map<string, { stream: string; seq: number; config: boolean; keyFrame: boolean; at: number }[]>;
  /** What each phone's agent said of its transport (`phone.away`, `phone.back`), by serial, in order. */
  transport: Map<string, { name: 'phone.away' | 'phone.back'; message: Record<string, unknown> }[]>;
  /** The phone's connection now, if one is open. */
  phone(serial: string): ServerSocket | undefined;
  /** Sends a message to the phone's connection and answers its acknowledgement (or the timeout's error). */
  ask(serial: string, name: string, message: unknown, timeoutMs?: number): Promise<Ack>;
  close(): Promise<void>;
}

/**
 * `appFiles`: the app library's stored APKs by key, served to the host at `/api/agent/apps/<key>` as the console
 * serves them (the host's credential is not checked here).
 */
export async function fakeConsole(options: { appFiles?: ReadonlyMap<string, Buffer> } = {}): Promise<FakeConsole> {
  const http = createServer((request, response) => {
    const key = /^\/api\/agent\/apps\/([\w-]+)$/.exec(request.url ?? '')?.[1];
    const file = key ? options.appFiles?.get(key) : undefined;
    if (!file) {
      // socket.io answers its own path; anything else is not here.
      if (!request.url?.startsWith('/socket.io')) response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/vnd.android.package-archive', 'content-length': String(file.length) }).end(file);
  });
  const hostSaid: { name: string; message: unknown }[] = [];
  let control: ServerSocket | undefined;
  const io = new Server(http, { maxHttpBufferSize: 16 * 1024 * 1024 });
  const connections = new Map<string, ServerSocket[]>();
  const frames = new Map<string, { seq: number; source: string }[]>();
  const transport: FakeConsole['transport'] = new Map();
  const videos: FakeConsole['videos'] = new Map();
  let videoCount = 0;
  io.of('/agent').on('connection', (socket) => {
    const auth = socket.handshake.auth as { hostToken?: string; serial?: string };
    if (auth.hostToken && !auth.serial) {
      control = socket;
      socket.on('host.hello', (_message: unknown, ack: (answer: Ack) => void) => ack({ ok: true, hostName: 'Desk host' }));
      socket.onAny((name: string, message: unknown) => name !== 'host.hello' && hostSaid.push({ name, message }));
      return;
    }
    const serial = auth.serial ?? '';
    connections.set(serial, [...(connections.get(serial) ?? []), socket]);
    socket.on('agent.hello', (_message: unknown, ack: (answer: unknown) => void) =>
      ack({ ok: true, protocol: 2, heartbeatMs: 1000, deviceId: `device-${serial}`, deviceName: serial }),
    );
    for (const name of ['phone.away', 'phone.back'] as const)
      socket.on(name, (message: Record<string, unknown>) => transport.set(serial, [...(transport.get(serial) ?? []), { name, message }]));
    socket.on('live.video', (packet: { stream: string; seq: number; config: boolean; keyFrame: boolean }, ack: (answer: Ack) => void) => {
      const { stream, seq, config, keyFrame } = packet;
      videos.set(serial, [...(videos.get(serial) ?? []), { stream, seq, config, keyFrame, at: videoCount++ }]);
      ack({ ok: true });
    });
    socket.on('live.frame', (frame: { seq: number; source: string }, ack: (answer: Ack) => void) => {
      frames.set(serial, [...(frames.get(serial) ?? []), { seq: frame.seq, source: frame.source }]);
      ack({ ok: true, slow: false });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const phone = (serial: string) => connections.get(serial)?.findLast((socket) => socket.connected);
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    frames,
    hostSaid,
    host: () => (control?.connected ? control : undefined),
    videos,
    transport,
    phone,
    ask: async (serial, name, message, timeoutMs = 8000) => {
      const socket = phone(serial);
      if (!socket) throw new Error(`${serial} has no connection to the console`);
      return (await socket.timeout(timeoutMs).emitWithAck(name, message)) as Ack;
    },
    close: async () => {
      await io.close();
    },
  };
}
