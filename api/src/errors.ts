/**
 * One error type for refusals the product means to give, and one handler that turns every failure
 * into the JSON error body: 4xx for the caller's mistakes (naming the field), a logged 500 otherwise.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { catalogue, fieldLabel, messages, type ErrorBody } from '@farm/contracts';
import { allowFraming, WALL_PAGE } from './shared/headers.ts';
import { isRetryableConflict } from '@farm/workers';

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: ErrorBody['details'],
    /** Headers the refusal carries, like Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = (): AppError => new AppError(404, messages.notFound);
export const forbidden = (): AppError => new AppError(403, messages.forbidden);
export const conflict = (message: string): AppError => new AppError(409, message);
export const badRequest = (field: string, message: string): AppError => new AppError(400, message, [{ field, message }]);

/**
 * A validation text as a person reads it: the spec's own sentence and every text already written as a
 * sentence stay as they are; a bare predicate ("must be an id") gets its field's name in front.
 */
export function describeIssue(field: string, message: string): string {
  if (catalogue.has(message) || /^[A-Z]/.test(message)) return message;
  return `${fieldLabel(field)} ${message}`;
}

/**
 * Backstops for what validation should already have refused: a database refusal is the caller's 4xx, never a
 * 500. Validation names the field; these cannot, so the fuzz test checks that none of them is ever answered.
 */
export const PG_CODES: Record<string, { status: number; message: string }> = {
  '23505': { status: 409, message: 'That already exists' },
  '23503': { status: 400, message: 'A referenced item does not exist' },
  '23514': { status: 400, message: 'A value is out of range' },
  '22P02': { status: 400, message: 'A value has the wrong format' },
  '22001': { status: 400, message: 'A text is longer than can be stored' },
  '22003': { status: 400, message: 'A number is out of range' },
  '22007': { status: 400, message: 'A date has the wrong format' },
  '22008': { status: 400, message: 'A date is out of range' },
  '22021': { status: 400, message: 'A text holds a character that cannot be stored' },
  '22P05': { status: 400, message: 'A text holds a character that cannot be stored' },
  '54000': { status: 400, message: 'A value is larger than can be stored' },
};

/** The answer when others were changing the same rows at that moment, each time the request was tried. */
export const CONFLICT_MESSAGE = 'Others were changing the same items at that moment; nothing was changed. Try again.';

/** How deep a JSON body may nest; the product's deepest shape is three levels. */
const MAX_DEPTH = 32;

/**
 * A UTF-16 surrogate without its pair: JSON can carry one (`"\udfff"`), but it is no character, and PostgreSQL's
 * jsonb refuses its escape ("Unicode low surrogate must follow a high surrogate").
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * PostgreSQL refuses NUL (U+0000) in text and JSON, and a lone surrogate in JSON, so a string carrying one would fail
 * in the database: refused here instead, for every body, query and path value, naming the field. Also refuses absurd
 * nesting.
 */
export function findNul(value: unknown, root: string): AppError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return badRequest(path || root, `${fieldLabel(path)} must not contain null (U+0000) characters`);
      if (LONE_SURROGATE.test(current))
        return badRequest(path || root, `${fieldLabel(path)} has a broken character (half of a surrogate pair): send it as UTF-8 text`);
      continue;
    }
    if (current === null || typeof current !== 'object' || Buffer.isBuffer(current)) continue;
    // A body kept as a stream (an APK upload) is bytes still to come, not fields to look through.
    if (typeof (current as { pipe?: unknown }).pipe === 'function') continue;
    if (depth >= MAX_DEPTH) return badRequest(path || root, `${fieldLabel(path)} is nested too deeply`);
    for (const [key, item] of Object.entries(current)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return badRequest(path || root, `${fieldLabel(path)} has a field name with a null (U+0000) character`);
      if (LONE_SURROGATE.test(key)) return badRequest(path || root, `${fieldLabel(path)} has a field name with a broken character`);
      stack.push({ value: item, path: at, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Checks every body, query and path value before its schema does (after the access rule). */
export function installInputGuards(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [root, value] of [
      ['params', request.params],
      ['query', request.query],
      ['body', request.body],
    ] as const) {
      const refusal = findNul(value, root);
      if (refusal) throw refusal;
    }
  });
}

/** Bytes as people read a limit: "1 MB", "10 MB". */
function sizeText(bytes: number): string {
  return bytes >= 1_048_576 ? `${Math.round(bytes / 1_048_576)} MB` : `${Math.round(bytes / 1024)} KB`;
}

interface ValidationIssue {
  instancePath: string;
  message?: string | undefined;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A number's own type bound (the safe-integer range) says less than the field's bound: keep the field's. */
function isTypeBound(issue: ValidationIssue): boolean {
  const params = issue.params ?? {};
  return (
    (issue.keyword === 'too_big' && params.maximum === Number.MAX_SAFE_INTEGER) || (issue.keyword === 'too_small' && params.minimum === Number.MIN_SAFE_INTEGER)
  );
}

/** Zod's issues as the error body's details: one sentence per field, each naming the field. */
export function validationDetails(issues: readonly ValidationIssue[], context: string): { field: string; message: string }[] {
  const fieldOf = (issue: ValidationIssue) => issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || context;
  const details: { field: string; message: string }[] = [];
  for (const issue of issues) {
    const field = fieldOf(issue);
    if (isTypeBound(issue) && issues.some((other) => other !== issue && fieldOf(other) === field && !isTypeBound(other))) continue;
    const message = describeIssue(field, issue.message ?? 'is not valid');
    if (!details.some((detail) => detail.field === field && detail.message === message)) details.push({ field, message });
  }
  return details;
}

/**
 * Unknown /api routes answer a JSON 404; any other GET answers the console's index.html (its client-side
 * routes, including its own 'Page Not Found'), except a missing asset, which stays a 404.
 */
export function installNotFound(app: FastifyInstance, serveWeb: boolean): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const isPage = request.method === 'GET' && !path.startsWith('/api/') && !path.startsWith('/assets/') && !/\.[a-z0-9]+$/i.test(path);
    if (serveWeb && isPage) {
      if (path === WALL_PAGE || path === `${WALL_PAGE}/`) allowFraming(reply);
      return reply.type('text/html').sendFile('index.html');
    }
    return reply.code(404).send({ error: `Route ${request.method} ${path} not found` });
  });
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error.headers) void reply.headers(error.headers);
      return reply.code(error.status).send({ error: error.message, ...(error.details ? { details: error.details } : {}) });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details = validationDetails(error.validation as ValidationIssue[], error.validationContext ?? 'body');
      return reply.code(400).send({ error: details[0]?.message ?? 'The request is not valid', details });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own refusals: malformed JSON, unsupported media type, oversize body.
      const message =
        error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && request.url.startsWith('/api/objects/')
          ? 'You can only upload: image/*'
          : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'Request body must be sent as application/json'
            : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
              ? 'Request body is not valid JSON'
              : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
                ? `Request body is too large: the limit is ${sizeText(request.routeOptions.bodyLimit ?? 1_048_576)}`
                : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
                  ? 'Request body must not be empty when Content-Type is application/json'
                  : error.message;
      return reply.code(status).send({ error: message });
    }
    // A transaction PostgreSQL ended to break a deadlock, still meeting one after the tries a retrying transaction
    // makes (or in a route that makes none): nothing was written, and the same request a moment later will go through.
    if (isRetryableConflict(error)) {
      request.log.warn({ err: error }, 'transaction ended by a conflict');
      return reply.code(503).header('retry-after', '1').send({ error: CONFLICT_MESSAGE });
    }
    const code = (error as { code?: unknown }).code;
    const pg = typeof code === 'string' ? PG_CODES[code] : undefined;
    if (pg) {
      request.log.warn({ err: error }, 'database refused a write');
      return reply.code(pg.status).send({ error: pg.message });
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send({ error: 'Internal Server Error' });
  });
}
