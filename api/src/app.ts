/**
 * Builds the Fastify instance: the REST contract under /api, its OpenAPI document at /api/docs,
 * and the built web console with its client-side routes. Only server.ts listens; tests build it too.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '@farm/sql';
import { installAuth } from './auth/auth.plugin.ts';
import type { Config } from './config.ts';
import { installErrorHandler, installNotFound } from './errors.ts';
import { routes } from './routes.ts';
import { createStorage, type Storage } from './storage/storage.ts';
import { createChangeFeed, type ChangeFeed } from './realtime/changes.ts';
import { attachRealtime, type RealtimeServer } from './realtime/gateway.ts';
import type { Agents } from './realtime/agents.ts';
import { startJobs } from './realtime/jobs.ts';
import type { Runner } from '@farm/workers';
import { ReadCache } from './shared/read-cache.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  /** Where a change is announced after commit; the realtime gateway listens to it. */
  changes?: ChangeFeed;
  storage?: Storage;
}

export interface AppContext {
  config: Config;
  database: Database;
  db: Database['db'];
  changes: ChangeFeed;
  storage: Storage;
  io?: RealtimeServer;
  agents?: Agents;
  /** The in-process job runner of the embedded mode. */
  jobs?: Runner;
  reads: ReadCache;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

const defaultWebDist = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    bodyLimit: 1_048_576,
    trustProxy: config.trustProxy,
    ajv: undefined,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    changes: deps.changes ?? createChangeFeed(),
    storage: deps.storage ?? createStorage(config),
    reads: new ReadCache(config.readCacheMs),
  };
  const unfollow = ctx.reads.follow(ctx.changes);
  app.addHook('onClose', async () => unfollow());
  app.decorate('ctx', ctx);

  installErrorHandler(app);
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Phone farm console API', version: '1.0.0' },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'sid' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  installAuth(app, database.db, { publicUrl: config.publicUrl, changes: ctx.changes, sessionCacheMs: config.readCacheMs });

  await app.register(routes, { prefix: '/api' });
  ctx.io = await attachRealtime(app, { redisUrl: config.redisUrl });
  ctx.jobs = await startJobs(app, { redisUrl: config.redisUrl, runWorkers: config.runWorkers });

  const webDist = config.webDist ?? defaultWebDist;
  if (existsSync(webDist)) {
    // Files are looked up per request, so a new build is served without a restart.
    await app.register(fastifyStatic, { root: webDist, index: 'index.html' });
  }
  installNotFound(app, existsSync(webDist));
  return app;
}
