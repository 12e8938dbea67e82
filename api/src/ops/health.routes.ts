/**
 * GET /healthz (the process is alive) and GET /readyz (the database answers, its migrations are applied, and Redis
 * answers where it is configured): a load balancer sends traffic only to a ready instance. 503 names the failing part.
 */
import type { FastifyInstance } from 'fastify';
import { readiness, redisPinger } from '@farm/workers';

export async function installHealth(app: FastifyInstance): Promise<void> {
  const { config, database } = app.ctx;
  const redis = config.redisUrl ? await redisPinger(config.redisUrl) : undefined;
  if (redis) app.addHook('onClose', async () => redis.disconnect());
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });

  const noStore = { 'cache-control': 'no-store' };
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => reply.headers(noStore).send({ status: 'alive' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (draining) return reply.code(503).headers(noStore).send({ ready: false, checks: {}, error: 'Not ready: this instance is shutting down' });
    const result = await readiness({ database, redis });
    return reply
      .code(result.ready ? 200 : 503)
      .headers(noStore)
      .send(result);
  });
}
