import { defineConfig } from 'vitest/config';

// `test/` holds the tests that run the host against outside programs (Google's adb server) and the per-case tests.
export default defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } });
