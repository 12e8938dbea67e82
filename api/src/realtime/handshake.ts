/**
 * Who a browser socket speaks for: the signed-in person its session cookie names, checked against the live session at
 * every (re)connection, so a logged-out or expired session cannot come back. Shared by the console's namespaces.
 */
import type { FastifyInstance } from 'fastify';
import { sessionToken } from '../auth/auth.plugin.ts';
import { findSession } from '../auth/auth.queries.ts';

export interface SocketPerson {
  userId: string;
  sessionId: string;
  workspaceId: string;
  role: 'operator' | 'va';
  name: string;
}

/** The person, or the handshake error to refuse with ('unauthorized', 'no workspace'). */
export async function personOf(app: FastifyInstance, cookieHeader: string | undefined): Promise<SocketPerson | Error> {
  const token = sessionToken(app.parseCookie(cookieHeader ?? ''));
  if (!token) return new Error('unauthorized');
  const session = await findSession(app.ctx.db, token);
  if (!session) return new Error('unauthorized');
  if (!session.workspaceId || session.deactivatedAt) return new Error('no workspace');
  return { userId: session.id, sessionId: session.sessionId, workspaceId: session.workspaceId, role: session.role, name: session.name };
}

/**
 * A Socket.IO middleware's answer to a handshake check that failed to run (the database away): the client, who may
 * not be signed in, hears only "unavailable"; the cause (which may name an address inside the network, such as
 * `ECONNREFUSED 10.0.3.4:5432`) goes to the log.
 */
export function unavailable(app: FastifyInstance, error: unknown): Error {
  app.log.error({ err: error }, 'socket handshake: the check could not run');
  return new Error('unavailable');
}

/**
 * Browser sockets (`/`, `/live`) carry the cookie of whoever opens them, so a page of another site could open one in
 * a signed-in person's browser: a handshake whose Origin is neither this console's public origin nor the host it
 * was sent to is refused ('cross-site'). No Origin at all is no browser (a script, a test): the cookie still has to
 * be right. Phone agents on `/agent` are never checked for it.
 */
export function crossSite(app: FastifyInstance, headers: Record<string, string | string[] | undefined>): Error | null {
  const origin = headers.origin;
  if (origin === undefined) return null;
  const host = typeof headers.host === 'string' ? headers.host : '';
  const allowed = new Set([`http://${host}`, `https://${host}`]);
  const publicUrl = app.ctx.config.publicUrl;
  if (publicUrl) allowed.add(new URL(publicUrl).origin);
  return typeof origin === 'string' && allowed.has(origin) ? null : new Error('cross-site');
}
