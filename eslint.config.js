// Type-aware lint, beside Biome: Biome formats and lints everything else; this config turns on only the rules
// that need the type checker (a promise nobody awaits or catches, a promise handed where a plain callback is
// expected, a switch over a union that misses a member). One project service reads each package's tsconfig.json,
// so a new package is linted with no change here. It costs less than `pnpm typecheck` (each package's program
// infers the shared contracts and schema types again): about 85 s of CPU and 3 GB for the whole workspace;
// one program for every Node package (a root tsconfig for linting) measured 66 s and 2.3 GB.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'web/e2e/screenshots/**', '**/test-results/**', '**/playwright-report/**'],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union names every member, or says with a `default` what the rest do: a member added to the
      // union then breaks each switch that had not decided about it.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
);
