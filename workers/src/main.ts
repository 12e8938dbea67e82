/** The workers process of the distributed mode: `pnpm --filter @farm/workers start` with DATABASE_URL and REDIS_URL. */
import { openDatabase } from '@farm/sql';
import { startBullmq } from './bullmq.ts';

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!databaseUrl || !redisUrl) {
  console.error('Invalid configuration: workers need DATABASE_URL and REDIS_URL');
  process.exit(1);
}
const database = await openDatabase({ kind: 'postgres', url: databaseUrl });
const running = await startBullmq(redisUrl, { db: database.db });
console.log('workers: running');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void running
      .close()
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
}
