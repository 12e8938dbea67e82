/**
 * Reads the session cookie of every /api request, enforces the route's access rule from the policy table,
 * and refuses cookie-authenticated writes that come from another site.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messages } from '@farm/contracts';
import { AppError } from '../errors.ts';
import { isUuid } from '@farm/sql';
import type { Actor, Db } from '../shared/types.ts';
import type { ChangeFeed } from '../events/changes.ts';
import { findSession, type SessionUser } from './auth.queries.ts';
import { policy, roleMay, type Access } from './policy.ts';

export const SESSION_COOKIE = 'sid';
/**
 * The session cookie's name over HTTPS: the `__Host-` prefix makes the browser refuse it unless it is Secure, for
 * this host only (no Domain) and for the whole site, so no sibling subdomain or plain-HTTP page can plant or
 * shadow it.
 */
export const SECURE_SESSION_COOKIE = '__Host-sid';

/**
 * The session token a request carries. Both names are read for one release, so nobody is signed out by the upgrade
 * that moved HTTPS consoles to the prefixed name; the prefixed one wins where both are sent.
 */
export function sessionToken(cookies: Record<string, string | undefined>): string | undefined {
  return cookies[SECURE_SESSION_COOKIE] ?? cookies[SESSION_COOKIE];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** What a signed-out caller is told, where the spec words it for that action. */
    signedOutMessage?: string;
  }
  interface FastifyRequest {
    session: SessionUser | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function installAuth(app: FastifyInstance, db: Db, options: { publicUrl?: string | undefined; changes: ChangeFeed; sessionCacheMs: number }): void {
  app.decorateRequest('session', null);
  const sessions = new SessionCache(options.sessionCacheMs);
  const unfollow = options.changes.subscribe((change) => {
    if (change.event === 'auth.revoked') sessions.forget(change.payload.sessionIds);
  });
  app.addHook('onClose', async () => unfollow());

  // Deny by default: an /api route that names no access rule cannot be registered.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const access = (route.config as { access?: Access } | undefined)?.access;
    if (!access || !(access in policy)) throw new Error(`Route ${String(route.method)} ${route.url} declares no access rule`);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return;
    const token = sessionToken(request.cookies);
    if (token && !SAFE_METHODS.has(request.method)) refuseCrossSite(request, options.publicUrl);
    if (!token) return;
    // Reads may reuse a lookup of the last moment (or one in flight); every write checks the session afresh.
    if (SAFE_METHODS.has(request.method)) {
      const cached = sessions.get(token);
      request.session = cached !== undefined ? cached : await sessions.load(token, () => findSession(db, token));
    } else {
      request.session = (await findSession(db, token)) ?? null;
      sessions.set(token, request.session);
    }
    nameTheCaller(request, reply);
  });

  app.addHook('preValidation', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access) return;
    // An id that cannot exist answers as an unknown id does.
    for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
      if ((name === 'id' || name.endsWith('Id')) && typeof value === 'string' && !isUuid(value)) {
        throw new AppError(404, messages.notFound);
      }
    }
    const rule = policy[access];
    if (rule === 'anyone') return;
    const session = request.session;
    if (!session) throw new AppError(401, request.routeOptions.config.signedOutMessage ?? messages.notSignedIn);
    if (rule === 'signed-in') return;
    if (!session.workspaceId || session.deactivatedAt) throw new AppError(403, messages.noWorkspace);
    if (!roleMay(access, session.role)) throw new AppError(403, messages.forbidden);
  });
}

/**
 * Every line a signed-in request logs from here on (its errors, its access line) carries the workspace and the
 * person, beside the request id.
 */
function nameTheCaller(request: FastifyRequest, reply: FastifyReply): void {
  const session = request.session;
  if (!session) return;
  request.log = request.log.child({ workspaceId: session.workspaceId, userId: session.id });
  reply.log = request.log;
}

/** Session lookups of the last moment, by cookie token; a logout or deactivation here drops them at once. */
export class SessionCache {
  private readonly entries = new Map<string, { session: SessionUser | null; expires: number }>();
  /** Lookups under way: reads arriving meanwhile share them, so an expiry under load costs one query, not one per request. */
  private readonly pending = new Map<string, Promise<SessionUser | null>>();
  /** Moves on every forget(), so a lookup begun before a logout is not remembered after it. */
  private generation = 0;

  constructor(private readonly ttlMs: number) {}

  /** Looks the token up, sharing a lookup already under way, and remembers the answer. */
  load(token: string, find: () => Promise<SessionUser | undefined>): Promise<SessionUser | null> {
    if (this.ttlMs <= 0) return find().then((session) => session ?? null);
    const running = this.pending.get(token);
    if (running) return running;
    const generation = this.generation;
    const lookup = find()
      .then((found) => {
        const session = found ?? null;
        if (this.generation === generation) this.set(token, session);
        return session;
      })
      .finally(() => {
        if (this.pending.get(token) === lookup) this.pending.delete(token);
      });
    this.pending.set(token, lookup);
    return lookup;
  }

  get(token: string, now = Date.now()): SessionUser | null | undefined {
    const entry = this.entries.get(token);
    if (!entry || entry.expires <= now) return undefined;
    return entry.session;
  }

  set(token: string, session: SessionUser | null, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size > 50_000) this.entries.clear();
    this.entries.set(token, { session, expires: now + this.ttlMs });
  }

  forget(sessionIds: readonly string[]): void {
    this.generation += 1;
    this.pending.clear();
    const ids = new Set(sessionIds);
    for (const [token, entry] of this.entries) if (entry.session && ids.has(entry.session.sessionId)) this.entries.delete(token);
  }
}

function refuseCrossSite(request: FastifyRequest, publicUrl: string | undefined): void {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site') throw new AppError(403, 'Cross-site request refused');
  const origin = request.headers.origin;
  if (!origin) return;
  const allowed = new Set<string>([`${request.protocol}://${request.headers.host ?? ''}`]);
  if (publicUrl) allowed.add(new URL(publicUrl).origin);
  if (!allowed.has(origin)) throw new AppError(403, 'Cross-site request refused');
}

/** The signed-in person inside their workspace; routes behind a workspace rule always have one. */
export function actorOf(request: FastifyRequest): Actor {
  const session = request.session;
  if (!session?.workspaceId) throw new AppError(401, messages.notSignedIn);
  return { userId: session.id, workspaceId: session.workspaceId, role: session.role };
}

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  // The unprefixed cookie of before the upgrade goes, or it would outlive a logout of the prefixed one.
  if (secure) void reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  void reply.setCookie(secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: 30 * 24 * 3600,
  });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  void reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  if (secure) void reply.clearCookie(SECURE_SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}

/**
 * The `onRequest` hook of /api/docs where the document is not public: a signed-in person (any role) reads it;
 * anyone else gets the 401 every signed-out API call gets. It runs before the auth hook, so it looks the session up.
 */
export function docsForTheSignedIn(db: Db): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  // The plugin's hooks take the callback form: `done` lets the request through; a 401 answered here ends it.
  return (request, reply, done) => {
    const token = sessionToken(request.cookies);
    (token ? findSession(db, token) : Promise.resolve(undefined)).then(
      (session) => {
        if (session) done();
        else void reply.code(401).send({ error: messages.notSignedIn });
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  };
}
