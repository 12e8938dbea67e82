#!/usr/bin/env node
/**
 * Compiles the server packages (sql, agent-protocol, workers, api) to JavaScript for a production start: every
 * src/**\/*.ts except tests becomes dist/**\/*.js beside it, with the TypeScript compiler's own transpiler and
 * `rewriteRelativeImportExtensions` (the code imports `.ts` paths). Types are checked by `pnpm typecheck`; every
 * module is isolated (isolatedModules, verbatimModuleSyntax), so a file compiles on its own. Packages resolve one
 * another's compiled files through the `compiled` export condition: `node --conditions=compiled api/dist/server.js`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const packages = ['sql', 'agent-protocol', 'api/contracts', 'workers', 'api'];
const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  rewriteRelativeImportExtensions: true,
  allowImportingTsExtensions: true,
  sourceMap: false,
  inlineSourceMap: true,
  inlineSources: false,
};

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
const isSource = (path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts');

let files = 0;
for (const name of packages) {
  const src = join(root, name, 'src');
  const dist = join(root, name, 'dist');
  const written = new Set();
  for (const file of [...walk(src)].filter(isSource)) {
    const out = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: options,
      fileName: file,
      reportDiagnostics: true,
    });
    if (diagnostics?.length) {
      console.error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
      process.exit(1);
    }
    mkdirSync(dirname(out), { recursive: true });
    // Each file is replaced whole (written aside, then renamed), so a process starting meanwhile never reads half of one.
    const aside = `${out}.${process.pid}.tmp`;
    writeFileSync(aside, outputText);
    renameSync(aside, out);
    written.add(out);
    files += 1;
  }
  // What no source produces any more goes.
  if (existsSync(dist)) for (const file of walk(dist)) if (!written.has(file) && !file.endsWith('.tmp')) rmSync(file);
}
console.log(`build: ${files} files compiled into ${packages.map((name) => `${name}/dist`).join(', ')}`);
