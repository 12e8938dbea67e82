/** The only file that listens: configuration, database, demo data, the app, and a clean shutdown. */
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openProductDatabase } from './db/database.ts';
import { startDemoPhones } from './demo/phones.ts';
import { DEMO_CREDENTIALS } from './shared/demo-credentials.ts';
import { seedDemo } from './demo/seed.ts';
import { createStorage } from './storage/storage.ts';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const database = await openProductDatabase(config);
const storage = createStorage(config);
if (config.demo) await seedDemo(database.db, storage, { password: config.demoPassword });
const app = await buildApp({ config, database, storage });
if (config.env === 'production' && !config.publicUrl) {
  app.log.warn(
    'PUBLIC_URL is not set: the session cookie is made Secure (__Host-sid) because NODE_ENV=production; set PUBLIC_URL to the console’s public address',
  );
}

let stopPhones: () => Promise<void> = async () => undefined;
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    // Readiness turns 503 first, the listener stops taking connections, requests in flight finish, browsers and
    // phones are disconnected (they reconnect to another instance), then the jobs and the database close.
    // Leased tasks stay leased: a phone that reconnects elsewhere still holds its attempt, and the lease watchdog
    // frees what is not confirmed in time, so nothing is lost or sent twice.
    app.log.info(`${signal}: closing (at most ${config.shutdownMs} ms)`);
    const force = setTimeout(() => {
      app.log.warn(`still closing after ${config.shutdownMs} ms; leaving`);
      process.exit(1);
    }, config.shutdownMs);
    force.unref();
    void stopPhones()
      .then(() => app.close())
      .then(() => database.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'closing failed');
          process.exit(1);
        },
      );
  });
}

await app.listen({ port: config.port, host: config.host });
const { port } = app.server.address() as { port: number };
if (config.demo && !config.databaseUrl) {
  stopPhones = await startDemoPhones(database.db, { port, dataDir: config.dataDir, count: config.demoPhones, log: app.log });
}
const where = `http://localhost:${port}`;
// A password of the farm's own (DEMO_PASSWORD) is never written to the log.
const demo =
  config.demo && config.env !== 'production'
    ? ` — demo operator ${DEMO_CREDENTIALS.email} / ${config.demoPassword ? 'the password in DEMO_PASSWORD' : DEMO_CREDENTIALS.password}`
    : '';
app.log.info(`Console ready on ${where} (${database.kind === 'pglite' ? 'embedded database' : 'PostgreSQL'}${config.redisUrl ? ' + Redis' : ''})${demo}`);
