/**
 * Security headers on every page and API answer (helmet's, worked out once: they are the same for every answer, and
 * building them per request cost a tenth of a small read's time): a Content-Security-Policy the built console
 * satisfies (its own scripts only; Mantine sets inline styles; images may be data: URLs, like the two-factor QR
 * code), no framing except the wall screen (a TV page others may embed), no MIME sniffing, and no referrer sent
 * to other sites (wall and reset links carry tokens in their URLs).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
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

const options: HelmetOptions = {
  contentSecurityPolicy: { directives },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
};

/** The headers helmet sets with these options (it decides nothing per request with them). */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error('helmet did not set its headers at once');
  return headers;
}

export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  const headers = securityHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
  });
}

/** Lets the wall page be framed by any site, as its own CSP says; other answers keep frame-ancestors 'none'. */
export function allowFraming(reply: FastifyReply): void {
  const policy = String(reply.getHeader('content-security-policy') ?? '');
  void reply.header('content-security-policy', policy.replace(/frame-ancestors 'none'/, 'frame-ancestors *'));
  void reply.removeHeader('x-frame-options');
}
