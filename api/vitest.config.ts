import { defineConfig } from 'vitest/config';

/**
 * The integration suite runs on PGlite always, and again on PostgreSQL when DATABASE_URL is set
 * (CI sets it): the same tests, two databases.
 */
const projects = [
  { extends: true as const, test: { name: 'pglite', env: { TEST_DB: 'pglite' } } },
  ...(process.env.DATABASE_URL
    ? [{ extends: true as const, test: { name: 'postgres', env: { TEST_DB: 'postgres' } } }]
    : []),
];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects,
  },
});
