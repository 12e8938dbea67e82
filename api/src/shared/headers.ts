/**
 * Security headers on every page and API answer (@fastify/helmet): a Content-Security-Policy the built console
 * satisfies (its own scripts only; Mantine sets inline styles; images may be data: URLs, like the two-factor QR
 * code), no framing except the wall screen (a TV page others may embed), no MIME sniffing, and no referrer sent
 * to other sites (wall and reset links carry tokens in their URLs).
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';

const directives = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  workerSrc: ["'self'", 'blob:'],
  manifestSrc: ["'self'"],
  objectSrc: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // The console may be served over plain HTTP on a farm's LAN: asking browsers to upgrade would break it there.
  upgradeInsecureRequests: null,
};

/** The wall screen's page: the one page another site may frame (a dashboard or signage player). */
export const WALL_PAGE = '/monitor/wall';

export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { directives },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  });
}

/** Lets the wall page be framed by any site, as its own CSP says; other answers keep frame-ancestors 'none'. */
export function allowFraming(reply: FastifyReply): void {
  const policy = String(reply.getHeader('content-security-policy') ?? '');
  void reply.header('content-security-policy', policy.replace(/frame-ancestors 'none'/, 'frame-ancestors *'));
  void reply.removeHeader('x-frame-options');
}
