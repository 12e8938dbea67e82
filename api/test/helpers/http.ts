/**
 * Real HTTP against a listening app, for tests where requests must truly run side by side (races): each call is
 * its own request on its own connection, and the database serves them on several connections at once.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Answer } from './app.ts';

export async function serve(app: FastifyInstance): Promise<string> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function http<T = any>(
  base: string,
  method: string,
  path: string,
  options: { cookie?: string | undefined; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const raw = options.body !== undefined && (typeof options.body === 'string' || Buffer.isBuffer(options.body));
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.cookie ? { cookie: `sid=${options.cookie}` } : {}),
      ...(options.body !== undefined && !raw ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: raw ? (options.body as string | Buffer) : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: response.status, body: body as T, headers: Object.fromEntries(response.headers.entries()) };
}

/** Runs `count` calls at once and answers their results in order. */
export function together<T>(count: number, call: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => call(index)));
}

/** How many answers had each status, e.g. { 201: 1, 400: 5 }. */
export function statuses(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}
