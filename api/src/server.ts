/** The only file that listens: configuration, database, demo data, the app, and a clean shutdown. */
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openProductDatabase } from './db/database.ts';
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
if (config.demo) await seedDemo(database.db, storage);
const app = await buildApp({ config, database, storage });

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal}: closing`);
    void app
      .close()
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
}

await app.listen({ port: config.port, host: config.host });
app.log.info(`Console ready on http://localhost:${config.port} (${database.kind}${config.demo ? ', demo data' : ''})`);
