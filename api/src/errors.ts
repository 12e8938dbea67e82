/**
 * One error type for refusals the product means to give, and one handler that turns every failure
 * into the JSON error body: 4xx for the caller's mistakes (naming the field), a logged 500 otherwise.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { catalogue, messages, type ErrorBody } from './contracts/index.ts';

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: ErrorBody['details'],
  ) {
    super(message);
  }
}

export const notFound = (): AppError => new AppError(404, messages.notFound);
export const forbidden = (): AppError => new AppError(403, messages.forbidden);
export const conflict = (message: string): AppError => new AppError(409, message);
export const badRequest = (field: string, message: string): AppError =>
  new AppError(400, message, [{ field, message }]);

/** A validation text as a person reads it: the spec's own sentence, or the message with its field named. */
export function describeIssue(field: string, message: string): string {
  if (catalogue.has(message) || message.startsWith(field)) return message;
  return `${field}: ${message}`;
}

const PG_CODES: Record<string, { status: number; message: string }> = {
  '23505': { status: 409, message: 'That already exists' },
  '23503': { status: 400, message: 'A referenced item does not exist' },
  '23514': { status: 400, message: 'A value is out of range' },
  '22P02': { status: 400, message: 'A value has the wrong format' },
};

/**
 * Unknown /api routes answer a JSON 404; any other GET answers the console's index.html (its client-side
 * routes, including its own 'Page Not Found'), except a missing asset, which stays a 404.
 */
export function installNotFound(app: FastifyInstance, serveWeb: boolean): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const isPage = request.method === 'GET' && !path.startsWith('/api/') && !path.startsWith('/assets/') && !/\.[a-z0-9]+$/i.test(path);
    if (serveWeb && isPage) return reply.type('text/html').sendFile('index.html');
    return reply.code(404).send({ error: `Route ${request.method} ${path} not found` });
  });
}

export function installErrorHandler(app: FastifyInstance): void {

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return reply.code(error.status).send({ error: error.message, ...(error.details ? { details: error.details } : {}) });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = error.validationContext ?? 'body';
      const details = error.validation.map((issue) => {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        const field = path || context;
        return { field, message: describeIssue(field, issue.message ?? 'is invalid') };
      });
      return reply.code(400).send({ error: details[0]?.message ?? 'Invalid input', details });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own refusals: malformed JSON, unsupported media type, oversize body.
      const message =
        error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && request.url.startsWith('/api/objects/')
          ? 'You can only upload: image/*'
          : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
          ? 'body: is not valid JSON'
          : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 'body: is too large'
            : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
              ? 'body: must not be empty when Content-Type is application/json'
              : error.message;
      return reply.code(status).send({ error: message });
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
