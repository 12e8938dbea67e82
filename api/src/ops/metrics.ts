/**
 * GET /metrics in Prometheus text: the process registry of @farm/workers (Node defaults, jobs, tasks by state, queue
 * depth, database pool) plus this API's HTTP latency by route and status, Socket.IO connections by namespace,
 * connected phone agents and events pushed. With METRICS_TOKEN it is served on the main port behind
 * `Authorization: Bearer <token>`; without it, only on the internal METRICS_PORT, or not at all.
 */
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram } from 'prom-client';
import { AGENT_NAMESPACE } from '@farm/agent-protocol';
import { bearerMatches, metricsText, registry, startHealthServer, watchForMetrics } from '@farm/workers';

const httpDuration = new Histogram({
  name: 'farm_http_request_duration_seconds',
  help: 'HTTP request latency by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const eventsPushed = new Counter({
  name: 'farm_events_pushed_total',
  help: 'Changes announced to browsers and phones, by event',
  labelNames: ['event'] as const,
  registers: [registry],
});

let sockets: (() => Record<string, number>) | undefined;

new Gauge({
  name: 'farm_socket_connections',
  help: 'Open Socket.IO connections by namespace',
  labelNames: ['namespace'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [namespace, count] of Object.entries(sockets?.() ?? {})) this.set({ namespace }, count);
  },
});

new Gauge({
  name: 'farm_agents_connected',
  help: 'Phone agent connections open on this API process',
  registers: [registry],
  collect() {
    this.set(sockets?.()[AGENT_NAMESPACE] ?? 0);
  },
});

export async function installMetrics(app: FastifyInstance, options: { token?: string | undefined; port?: number | undefined }): Promise<void> {
  const { database, changes } = app.ctx;
  watchForMetrics({ database });
  app.addHook('onResponse', async (request, reply) => {
    // The route's pattern, never the raw URL, so ids do not make a series each.
    const route = request.routeOptions.url ?? 'unmatched';
    httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  const unfollow = changes.subscribe((change) => {
    if (!change.quiet) eventsPushed.inc({ event: change.event });
  });
  app.addHook('onReady', async () => {
    const io = app.ctx.io;
    if (!io) return;
    sockets = () => Object.fromEntries([...io._nsps.entries()].map(([name, nsp]) => [name, nsp.sockets.size]));
  });
  let internal: Server | undefined;
  app.addHook('onClose', async () => {
    unfollow();
    sockets = undefined;
    if (internal) await new Promise<void>((resolve) => internal!.close(() => resolve()));
  });

  if (options.token) {
    const token = options.token;
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) return reply.code(401).send({ error: 'Metrics need the metrics token' });
      const { contentType, body } = await metricsText();
      return reply.type(contentType).header('cache-control', 'no-store').send(body);
    });
  } else if (options.port !== undefined) {
    // Internal port: health and metrics only, for the scraper inside the network.
    internal = await startHealthServer({ port: options.port, host: '0.0.0.0', database, metrics: metricsText });
  }
}
