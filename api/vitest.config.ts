import { defineConfig } from 'vitest/config';

/**
 * The integration suite runs on PGlite always, and again on PostgreSQL when DATABASE_URL is set
 * (CI sets it): the same tests, two databases.
 *
 * Files share their worker's modules (`isolate: false`): importing the app once per worker rather than once per
 * file is most of the suite's time. Each file still has its own database and app. The files that replace modules
 * (`vi.mock`) and the farm-host files (real farm processes and their timers) keep a fresh module graph each, in a
 * project of their own per database.
 */
const ownModules = ['src/agents/dispatcher.test.ts', 'src/realtime/live.rules.test.ts', 'test/farm/**/*.test.ts'];
const faults = 'test/faults/**';

const everyFile = ['src/**/*.test.ts', 'test/**/*.test.ts'];

const onDatabase = (name: 'pglite' | 'postgres', exclude: string[]) => [
  {
    extends: true as const,
    test: { name, env: { TEST_DB: name }, isolate: false, include: everyFile, exclude: [...exclude, ...ownModules, 'node_modules/**'] },
  },
  { extends: true as const, test: { name: `${name}-own-modules`, env: { TEST_DB: name }, include: ownModules, exclude: [...exclude, 'node_modules/**'] } },
];

// Fault tests need real processes around PostgreSQL and Redis: they run in the postgres project only.
const projects = [...onDatabase('pglite', [faults]), ...(process.env.DATABASE_URL ? onDatabase('postgres', []) : [])];

export default defineConfig({
  test: {
    pool: 'forks',
    // One migrated PostgreSQL template for the run: each test file's database is a copy of it.
    globalSetup: ['../sql/src/testing.global.ts'],
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects,
  },
});
