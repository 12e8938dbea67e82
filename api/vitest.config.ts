import { defineConfig } from 'vitest/config';

/**
 * The integration suite runs on PGlite always, and again on PostgreSQL when DATABASE_URL is set
 * (CI sets it): the same tests, two databases.
 */
const projects = [
  // Fault tests need real processes around PostgreSQL and Redis: they run in the postgres project only.
  { extends: true as const, test: { name: 'pglite', env: { TEST_DB: 'pglite' }, exclude: ['test/faults/**', 'node_modules/**'] } },
  ...(process.env.DATABASE_URL ? [{ extends: true as const, test: { name: 'postgres', env: { TEST_DB: 'postgres' } } }] : []),
];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // One migrated PostgreSQL template for the run: each test file's database is a copy of it.
    globalSetup: ['../sql/src/testing.global.ts'],
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects,
  },
});
