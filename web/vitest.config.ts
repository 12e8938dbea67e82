import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    // Only unit and component tests: the Playwright specs in e2e/ run under their own runner.
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    css: false,
    restoreMocks: true,
    // A file's first test pays for its page's first render (lazy routes, styles): up to 5 s on a loaded 2-core
    // machine, where one took 5.1 s and failed the default limit of 5 s. A hang still fails, at 15 s.
    testTimeout: 15_000,
  },
});
