import { defineConfig } from 'vitest/config';

/** The workers' tests run on PGlite always, and again on PostgreSQL (real concurrency) when DATABASE_URL is set. */
const projects = [
  { extends: true as const, test: { name: 'pglite', env: { TEST_DB: 'pglite' } } },
  ...(process.env.DATABASE_URL ? [{ extends: true as const, test: { name: 'postgres', env: { TEST_DB: 'postgres' } } }] : []),
];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['../sql/src/testing.global.ts'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects,
  },
});
