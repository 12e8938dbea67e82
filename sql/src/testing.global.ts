/** The test run's global setup for the packages whose tests open databases: the PostgreSQL template (testing.ts). */
export { postgresTemplateSetup as default } from './testing.ts';
