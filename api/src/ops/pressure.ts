/**
 * Overload: while the event loop lags more than OVERLOAD_EVENT_LOOP_DELAY_MS, or the heap nears its limit, requests
 * are answered 503 with Retry-After at once instead of queueing behind the backlog, so a load balancer or a client
 * tries again later or elsewhere. /healthz keeps answering: a busy process is alive.
 */
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';

export const OVERLOAD_RETRY_AFTER_S = 5;

export async function installPressure(app: FastifyInstance, options: { eventLoopDelayMs: number; sampleIntervalMs?: number }): Promise<void> {
  if (options.eventLoopDelayMs <= 0) return;
  await app.register(underPressure, {
    maxEventLoopDelay: options.eventLoopDelayMs,
    // Above 95% of the heap's limit, the next allocation may end the process.
    maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.95),
    sampleInterval: options.sampleIntervalMs ?? 1000,
    retryAfter: OVERLOAD_RETRY_AFTER_S,
    exposeStatusRoute: false,
    // Nothing returned lets the request through; a body returned is sent as the answer (the plugin does so, though
    // its types admit only void).
    pressureHandler: (request, reply) => {
      if (request.url === '/healthz') return;
      reply.code(503).header('retry-after', String(OVERLOAD_RETRY_AFTER_S));
      return { error: `The server is busy; try again in ${OVERLOAD_RETRY_AFTER_S} seconds` } as never;
    },
  });
}
