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
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '@farm/sql';
import { docsForTheSignedIn, installAuth } from './auth/auth.plugin.ts';
import { installLimits } from './auth/limits.ts';
import { installAudit } from './modules/audit/audit.plugin.ts';
import type { Config } from './config.ts';
import { installErrorHandler, installInputGuards, installNotFound } from './errors.ts';
import { phoneMessages } from './phone-messages.ts';
import { routes } from './routes.ts';
import { createStorage, type Storage } from './storage/storage.ts';
import { createChangeFeed, type ChangeFeed } from './events/changes.ts';
import { attachRealtime } from './realtime/gateway.ts';
import type { Agents } from './agents/agents.socket.ts';
import type { RealtimeServer } from './shared/sockets.types.ts';
import { checkStoredRecipes } from './modules/recipes/recipes.service.ts';
import { startJobs } from './events/jobs.ts';
import { configureAutomation, type Runner } from '@farm/workers';
import { ReadCache } from './shared/read-cache.ts';
import { loggerOptions } from './shared/log.ts';
import { installSecurityHeaders } from './shared/headers.ts';
import { installHealth } from './ops/health.routes.ts';
import { installMetrics } from './ops/metrics.ts';
import { installPressure } from './ops/pressure.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  /** Where a change is announced after commit; the realtime gateway listens to it. */
  changes?: ChangeFeed;
  storage?: Storage;
  /** Where the log goes instead of stdout (the log-capture test). */
  logStream?: NodeJS.WritableStream;
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

/** Only the configured proxies are believed: a number of hops nearest the API, or their addresses. */
function proxyTrust(setting: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (Array.isArray(setting)) return setting;
  return setting > 0 ? (_address, hop) => hop < setting : false;
}

/**
 * One access line per request, when it completes, with its request, status and time: at debug outside production,
 * so a developer's console is not buried under them. Errors keep their own level.
 */
class AccessLog extends LogController {
  constructor(private readonly level: 'debug' | 'info') {
    super();
  }
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log[this.level]({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  configureAutomation(config.automation);
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : loggerOptions(config.logLevel, deps.logStream),
    bodyLimit: 1_048_576,
    trustProxy: proxyTrust(config.trustProxy),
    logController: new AccessLog(config.env === 'production' ? 'info' : 'debug'),
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
  await installHealth(app);
  await installMetrics(app, { token: config.metricsToken, port: config.metricsPort });
  await installPressure(app, { eventLoopDelayMs: config.overloadEventLoopDelayMs });
  await installSecurityHeaders(app);
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Phone farm console API', version: '1.0.0' },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'sid' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    // In production the map of every route is for the signed in, unless the farm publishes it (PUBLIC_API_DOCS=1).
    ...(config.publicApiDocs ? {} : { uiHooks: { onRequest: docsForTheSignedIn(database.db) } }),
  });
  installAuth(app, database.db, { publicUrl: config.publicUrl, changes: ctx.changes, sessionCacheMs: config.readCacheMs });
  installInputGuards(app);
  await installLimits(app, config);
  installAudit(app);

  await app.register(routes, { prefix: '/api' });
  // Stored workspace recipes the current schema refuses are turned off with the reason (Campaigns → Recipes).
  await checkStoredRecipes(ctx, app.log);
  // The phones' messages each feature answers (phone-messages.ts), as routes.ts gathers the REST modules.
  ctx.io = await attachRealtime(app, { redisUrl: config.redisUrl, phoneMessages: phoneMessages(ctx, app.log) });
  ctx.jobs = await startJobs(app, { redisUrl: config.redisUrl, runWorkers: config.runWorkers });

  const webDist = config.webDist ?? defaultWebDist;
  if (existsSync(webDist)) {
    // Files are looked up per request, so a new build is served without a restart.
    await app.register(fastifyStatic, { root: webDist, index: 'index.html' });
  }
  installNotFound(app, existsSync(webDist));
  return app;
}
