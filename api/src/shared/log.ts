/**
 * What the logs may hold: never a secret. Wall-link, invitation and password-reset tokens, upload signatures,
 * login steps and codes are masked in every logged URL (query values and token path segments); cookies,
 * authorization headers, passwords, codes, device credentials and token fields are redacted wherever they appear.
 */
import type { FastifyServerOptions } from 'fastify';

/** Query parameters whose values are secrets (wall links, invitations, resets, signed uploads, login steps). */
const SECRET_PARAMS = new Set(['token', 'invite', 'signature', 'wall', 'code', 'challenge', 'secret', 'password', 'credential', 'sid']);
/** Routes whose last path segment is a token. */
const TOKEN_PATHS = [/^(\/api\/invitations\/lookup\/)[^/?#]+/, /^(\/api\/password-resets\/lookup\/)[^/?#]+/];
export const MASK = '[redacted]';

/** The URL as it may be logged: token path segments and secret query values masked. */
export function maskUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const bare = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = bare.indexOf('?');
  let path = queryAt === -1 ? bare : bare.slice(0, queryAt);
  for (const pattern of TOKEN_PATHS) path = path.replace(pattern, `$1${MASK}`);
  if (queryAt === -1) return path;
  const query = bare
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: judge the name as written.
      }
      return eq !== -1 && SECRET_PARAMS.has(name.toLowerCase()) ? `${rawName}=${MASK}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Fields never written to a log, wherever an object carrying them is logged. */
const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-device-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  'handshake.auth',
  'handshake.headers.cookie',
  'auth',
  ...[
    'password',
    'currentPassword',
    'passwordHash',
    'token',
    'tokenHash',
    'inviteToken',
    'wallToken',
    'deviceToken',
    'credential',
    'challenge',
    'secret',
    'totpSecret',
    'totpPendingSecret',
    'recoveryCodes',
    'signature',
    'cookie',
    'authorization',
  ].flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
];

type LoggerOptions = Exclude<NonNullable<FastifyServerOptions['logger']>, boolean>;

/** Fastify's logger at `level`, with the request serializer and redaction above; `stream` replaces stdout (tests). */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: MASK },
    serializers: {
      req(request: { method: string; url: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }) {
        return { method: request.method, url: maskUrl(request.url), host: request.hostname, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
      },
    },
    ...(stream ? { stream } : {}),
  } as LoggerOptions;
}
