/**
 * Every write leaves an audit entry. Routes record theirs through recordActivity / recordAudit, inside their
 * transaction; a successful workspace write that recorded none gets one here, named after its route
 * (`post.deleted`, `session.stop`), so nothing a person changes goes unlogged. The request's address is
 * carried to the writer through the request context.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit } from '../../events/write.ts';
import { requestContext, runInRequestContext } from '../../shared/request-context.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const VERBS: Record<string, string> = { POST: 'created', PUT: 'updated', PATCH: 'updated', DELETE: 'deleted' };

/** `/api/posts/:id` → post.deleted; `/api/sessions/:id/stop` → session.stop; `/api/campaigns/:id/accounts` → campaign.accounts.created. */
export function auditActionOf(method: string, url: string): { action: string; entityType: string } {
  const segments = url
    .replace(/^\/api\//, '')
    .split('/')
    .filter(Boolean);
  const entityType = (segments[0] ?? 'workspace').replace(/-/g, '_').replace(/ies$/, 'y').replace(/s$/, '');
  const rest = segments
    .slice(1)
    .filter((segment) => !segment.startsWith(':'))
    .map((segment) => segment.replace(/-/g, '_'));
  const endsWithAction = method === 'POST' && rest.length > 0 && !(segments.at(-1) ?? '').startsWith(':') && segments.some((s) => s.startsWith(':'));
  const parts = [entityType, ...rest];
  if (!endsWithAction) parts.push(VERBS[method] ?? method.toLowerCase());
  return { action: parts.join('.'), entityType };
}

function entityIdOf(request: FastifyRequest, payload: unknown): string | null {
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (typeof params.id === 'string') return params.id;
  if (typeof payload === 'string' && payload.startsWith('{')) {
    try {
      const body = JSON.parse(payload) as { id?: unknown };
      if (typeof body.id === 'string') return body.id;
    } catch {
      // not JSON: no id to name
    }
  }
  return null;
}

export function installAudit(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    runInRequestContext({ ip: request.ip, audited: false }, done);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const context = requestContext();
    const session = request.session;
    const url = request.routeOptions.url ?? '';
    if (!context || context.audited || !WRITES.has(request.method) || reply.statusCode >= 400) return payload;
    if (!session?.workspaceId || !url.startsWith('/api/') || url.startsWith('/api/auth/')) return payload;
    const { action, entityType } = auditActionOf(request.method, url);
    await recordAudit(app.ctx.db, session.workspaceId, session.id, { action, entityType, entityId: entityIdOf(request, payload) });
    return payload;
  });
}
