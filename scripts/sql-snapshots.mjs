#!/usr/bin/env node
/**
 * The SQL snapshots (`sql/queries/*.sql`): for each `<package>/test/queries/<name>.cases.ts`, the statements of the
 * module it names, compiled by Kysely from the real query functions called with the file's fixed arguments on a
 * database that only compiles (`sql/src/snapshot.ts`), written to `sql/queries/<name>.sql`.
 *
 *   pnpm sql:snapshots   writes the files (and removes one no cases file makes any more)
 *   pnpm check:sql       fails, naming the file and showing the lines, when a committed file differs (run by CI)
 *
 * Both fail when an exported function of a module has no case and is not named as running no SQL. Run with tsx (the
 * cases are TypeScript). The clock and Math.random are fixed first, so a window's bounds or a retry's jitter are the
 * same on every run.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const NOW = Date.parse('2025-01-15T12:00:00.000Z');
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...args) {
    super(...(args.length === 0 ? [NOW] : args));
  }
  static now() {
    return NOW;
  }
};
Math.random = () => 0.5;
const fixed = [`The clock stands at ${new Date().toISOString()}; Math.random() answers ${Math.random()} (a retry's jitter at its middle).`];

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'sql', 'queries');
const check = process.argv.includes('--check');

/** The `packages:` list of pnpm-workspace.yaml (plain entries, as scripts/check-cycles.mjs reads it). */
function workspacePackages() {
  const lines = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').split('\n');
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line));
  const found = [];
  for (const line of lines.slice(start + 1)) {
    const entry = /^\s+-\s+['"]?([^'"#\s]+)['"]?\s*$/.exec(line);
    if (!entry) break;
    found.push(entry[1]);
  }
  return found;
}

const caseFiles = workspacePackages()
  .map((dir) => join(root, dir, 'test', 'queries'))
  .filter((dir) => existsSync(dir))
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.cases.ts'))
      .map((name) => join(dir, name)),
  )
  .sort();

const { gaps, renderSnapshot } = await import(pathToFileURL(join(root, 'sql', 'src', 'snapshot.ts')).href);

const started = performance.now();
const problems = [];
/** File name → its text. */
const written = new Map();
let functions = 0;
let cases = 0;
let statements = 0;
for (const file of caseFiles) {
  const name = `${basename(file, '.cases.ts')}.sql`;
  const from = relative(root, file);
  if (written.has(name)) {
    problems.push(`${from}: another cases file already makes sql/queries/${name}`);
    continue;
  }
  const { snapshot } = await import(pathToFileURL(file).href);
  if (!snapshot) {
    problems.push(`${from}: exports no snapshot (defineSnapshot from @farm/sql/snapshot)`);
    continue;
  }
  problems.push(...gaps(snapshot));
  const rendered = await renderSnapshot(snapshot, from, fixed);
  written.set(name, rendered.text);
  functions += rendered.functions;
  cases += snapshot.cases.length;
  statements += rendered.statements;
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}

/** The lines that differ, with two lines around each change, as a unified diff would show them. */
function diff(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  // Longest common subsequence over the lines (the files are a few thousand lines at most).
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) ops.push({ kind: ' ', text: a[i++], line: j++ + 1 });
    else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ kind: '-', text: a[i++], line: j + 1 });
    else ops.push({ kind: '+', text: b[j], line: ++j });
  }
  const near = (k) => ops.slice(Math.max(0, k - 2), k + 3).some((op) => op.kind !== ' ');
  const shown = [];
  let gap = false;
  ops.forEach((op, k) => {
    if (!near(k)) {
      gap = true;
      return;
    }
    if (gap || shown.length === 0) shown.push(`@@ line ${op.line} @@`);
    gap = false;
    shown.push(`${op.kind}${op.text}`);
  });
  return shown;
}

const MAX_LINES = 80;
const stale = existsSync(out) ? readdirSync(out).filter((name) => name.endsWith('.sql') && !written.has(name)) : [];
if (check) {
  let failed = false;
  for (const [name, text] of written) {
    const path = join(out, name);
    const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (committed === text) continue;
    failed = true;
    const lines = diff(committed, text);
    console.error(`sql/queries/${name} differs from what the queries compile to (- committed, + now):`);
    console.error(lines.slice(0, MAX_LINES).join('\n'));
    if (lines.length > MAX_LINES) console.error(`… and ${lines.length - MAX_LINES} more lines`);
  }
  for (const name of stale) {
    failed = true;
    console.error(`sql/queries/${name}: no cases file makes it any more`);
  }
  if (failed) {
    console.error('Review the change, then run `pnpm sql:snapshots` and commit sql/queries/.');
    process.exit(1);
  }
} else {
  mkdirSync(out, { recursive: true });
  for (const [name, text] of written) writeFileSync(join(out, name), text);
  for (const name of stale) rmSync(join(out, name));
}
console.log(
  `${check ? 'checked' : 'wrote'} sql/queries/{${[...written.keys()].join(',')}}: ${functions} functions, ${cases} calls, ${statements} statements, in ${Math.round(performance.now() - started)} ms`,
);
