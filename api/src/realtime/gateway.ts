/**
 * The browser side of Socket.IO, on the API's own port: a session cookie opens the socket, which joins its
 * workspace's room, its person's room and its session's room; committed changes are relayed to those rooms.
 * With REDIS_URL, the Redis streams adapter carries events between API instances and lets a browser that
 * dropped for a moment recover what it missed.
 */
import type { FastifyInstance } from 'fastify';
import { Server } from 'socket.io';
import { isInternalEvent, serverEvents, statsAffecting, type ServerEventName } from '@farm/contracts';
import { computeStats } from '../modules/analytics/analytics.queries.ts';
import type { Change } from '../events/changes.ts';
import { type AgentFeaturesOf, attachAgents } from '../agents/agents.socket.ts';
import { attachLive } from './live.ts';
import { crossSite, personOf, unavailable } from './handshake.ts';
import { findWallLink } from '../modules/wall/wall.queries.ts';
import { logDroppedFailures, logDroppedFailuresOfCopies } from '../shared/redis.ts';
import { Outgoing } from './outgoing.ts';
import type { RealtimeServer } from '../shared/sockets.types.ts';

export const rooms = {
  workspace: (id: string) => `workspace:${id}`,
  user: (id: string) => `user:${id}`,
  session: (id: string) => `session:${id}`,
  wall: (workspaceId: string) => `wall:${workspaceId}`,
  wallLink: (id: string) => `wall-link:${id}`,
};

/**
 * What a wall screen hears: the phones and their sessions, and the groups (a wall showing one group follows its phones
 * joining and leaving it), nothing else of the workspace.
 */
const wallEvents: ReadonlySet<string> = new Set([
  'devices.pulse',
  'device.created',
  'device.updated',
  'device.deleted',
  'device.assigned',
  'session.started',
  'session.updated',
  'session.ended',
  'screenshot.added',
  'group.created',
  'group.updated',
  'group.deleted',
]);

/** Stats are recomputed at most this often per workspace, however many changes arrive. */
const STATS_DEBOUNCE_MS = 1000;
const RECOVERY_WINDOW_MS = 2 * 60_000;

export async function attachRealtime(
  app: FastifyInstance,
  options: { redisUrl?: string | undefined; phoneMessages: AgentFeaturesOf },
): Promise<RealtimeServer> {
  const io: RealtimeServer = new Server(app.server, {
    serveClient: false,
    connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_WINDOW_MS, skipMiddlewares: false },
  });
  const redis = options.redisUrl ? await adaptToRedis(app, io, options.redisUrl) : undefined;
  admitSockets(app, io);
  const stopRelay = relayChanges(app, io, Boolean(options.redisUrl));

  const live = await attachLive(app, io, options);
  app.ctx.agents = attachAgents(app, io, live, options.phoneMessages);

  // The HTTP server closes only once its connections have: sockets are let go first, so a stop never hangs. Their
  // connections are closed under them (not a server disconnect), so browsers and phones reconnect at once, through
  // the load balancer to another instance, and a browser recovers there what it missed meanwhile.
  app.addHook('preClose', async () => {
    io.engine.close();
  });

  app.addHook('onClose', async () => {
    // What the phones had sent before their connections closed is handled and announced, then the adapter goes.
    await app.ctx.agents?.drain(3000);
    await live.close();
    stopRelay();
    await io.close();
    await redis?.quit().catch(() => undefined);
  });
  return io;
}

/** Carries events between API instances through Redis streams; the client is returned to be closed with the server. */
async function adaptToRedis(app: FastifyInstance, io: RealtimeServer, redisUrl: string): Promise<{ quit(): Promise<unknown> }> {
  const { Redis } = await import('ioredis');
  const { createAdapter } = await import('@socket.io/redis-streams-adapter');
  // What one turn broadcasts goes to the stream in one write; the stream's reader (a copy of this client) blocks on
  // XREAD alone on its connection, so that command goes out as it is.
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true, enableAutoPipelining: true, autoPipeliningIgnoredCommands: ['xread'] });
  client.on('error', (error: Error) => app.log.warn({ err: error }, 'redis (socket adapter) error'));
  // The adapter keeps a closing socket's session (for connection-state recovery) with a SET and sends its
  // short-lived messages with a PUBLISH, waiting for neither; its subscriber, a copy of this client, is subscribed
  // again by ioredis after a reconnect.
  const dropped = (error: unknown, command: string) => app.log.warn({ err: error, command }, 'redis (socket adapter): a command failed unanswered');
  logDroppedFailures(client, ['set', 'publish'], dropped);
  logDroppedFailuresOfCopies(client, ['subscribe'], dropped);
  await client.connect();
  io.adapter(createAdapter(client, { streamName: 'farm:socket.io', maxLen: 20_000, onlyPlaintext: true }));
  return client;
}

/** Who may open a browser socket (a person's session, or a wall link), and the rooms each joins. */
function admitSockets(app: FastifyInstance, io: RealtimeServer): void {
  const { db } = app.ctx;
  // Every (re)connection is checked against the live session: a logged-out or expired session cannot come back.
  io.use((socket, next) => {
    const refused = crossSite(app, socket.handshake.headers);
    if (refused) return next(refused);
    const wallToken: unknown = socket.handshake.auth?.wallToken;
    if (typeof wallToken === 'string') {
      findWallLink(db, wallToken)
        .then((link) => {
          if (!link) return next(new Error('unauthorized'));
          socket.data = { kind: 'wall', wallLinkId: link.id, workspaceId: link.workspaceId };
          next();
        })
        .catch((error: unknown) => next(unavailable(app, error)));
      return;
    }
    personOf(app, socket.handshake.headers.cookie).then(
      (person) => {
        if (person instanceof Error) return next(person);
        socket.data = { kind: 'person', userId: person.userId, sessionId: person.sessionId, workspaceId: person.workspaceId, role: person.role };
        next();
      },
      (error: unknown) => next(unavailable(app, error)),
    );
  });

  io.on('connection', (socket) => {
    // A recovered socket gets its rooms back from the adapter; a new one joins them.
    if (socket.recovered) return;
    const data = socket.data;
    void socket.join(
      data.kind === 'wall'
        ? [rooms.wall(data.workspaceId), rooms.wallLink(data.wallLinkId)]
        : [rooms.workspace(data.workspaceId), rooms.user(data.userId), rooms.session(data.sessionId)],
    );
  });
}

/** Relays committed changes to their rooms (and stats after them); returns how to stop, flushing what is queued. */
function relayChanges(app: FastifyInstance, io: RealtimeServer, clustered: boolean): () => void {
  const { db, changes } = app.ctx;
  const statsTimers = new Map<string, NodeJS.Timeout>();
  const scheduleStats = (workspaceId: string) => {
    if (statsTimers.has(workspaceId)) return;
    statsTimers.set(
      workspaceId,
      setTimeout(() => {
        statsTimers.delete(workspaceId);
        computeStats(db, workspaceId, undefined)
          .then((stats) => io.to(rooms.workspace(workspaceId)).emit('stats.changed', stats))
          .catch((error: unknown) => app.log.warn({ err: error }, 'stats for realtime failed'));
      }, STATS_DEBOUNCE_MS),
    );
  };

  const cutEverywhere = (room: string) => {
    io.local.in(room).disconnectSockets(true);
    if (clustered) io.in(room).disconnectSockets(true);
  };

  const outgoing = new Outgoing((local, room, event, payload) => {
    ((local ? io.local : io).to(room).emit as (event: string, payload: unknown) => boolean)(event, payload);
  });
  const relay = (change: Change) => {
    // A revocation takes effect here at once, then is passed to the other instances: with the Redis adapter a
    // cluster-wide disconnect waits for Redis, which may be slow or down, and must not hold this instance's sockets.
    if (change.event === 'auth.revoked') {
      for (const sessionId of change.payload.sessionIds) cutEverywhere(rooms.session(sessionId));
      return;
    }
    if (change.event === 'wall.revoked') {
      cutEverywhere(rooms.wallLink(change.payload.wallLinkId));
      return;
    }
    // The dispatcher's own facts, and workers' changes another instance relays: nothing for browsers from here.
    if (isInternalEvent(change.event) || change.quiet) return;
    const event: ServerEventName = change.event;
    // What arrived from another process was parsed on arrival (parseChange); what this process wrote is parsed here.
    const parsed = change.checked ? { success: true as const, data: change.payload } : serverEvents[event].safeParse(change.payload);
    if (!parsed.success) {
      app.log.error({ event: change.event, issues: parsed.error.issues }, 'refused to push an event that does not match its schema');
      return;
    }
    const room = change.userId ? rooms.user(change.userId) : rooms.workspace(change.workspaceId);
    outgoing.send(change.local === true, room, event, parsed.data, !change.userId && wallEvents.has(event) ? rooms.wall(change.workspaceId) : undefined);
    if (statsAffecting.has(event)) scheduleStats(change.workspaceId);
  };
  const unsubscribe = changes.subscribe(relay);
  return () => {
    unsubscribe();
    outgoing.flush();
    for (const timer of statsTimers.values()) clearTimeout(timer);
  };
}
