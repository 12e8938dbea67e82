#!/usr/bin/env node
// A route asks the policy, calls one query or service, and maps rows to the response: SQL lives in *.queries.ts
// (and services), and a write's transaction is opened by its service. This check fails naming each file and line where
// a *.routes.ts builds or runs a Kysely statement, or opens a write itself (write, writeAcross, writeStatement, runBulk).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const root = join(import.meta.dirname, '..');

const KYSELY = [
  /\.selectFrom\(/,
  /\.insertInto\(/,
  /\.updateTable\(/,
  /\.deleteFrom\(/,
  /\.replaceInto\(/,
  /\.mergeInto\(/,
  /\.selectNoFrom\(/,
  /\.with\(\s*['"]/,
  /\bsql(?:<[^>]*>)?`/,
  /\bsql\.(?:raw|ref|id|table|lit|join)\(/,
  /\.transaction\(/,
  /\.execute(?:TakeFirst(?:OrThrow)?)?\(\)/,
  // The write ceremony: one service function per write opens it (a CSV writer's `.write(` is not one).
  /(?<![.\w])write(?:Across|Statement)?\(/,
  /(?<![.\w])runBulk\(/,
];

function* routeFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* routeFiles(path);
    else if (entry.name.endsWith('.routes.ts')) yield path;
  }
}

const found = [];
let files = 0;
for (const file of routeFiles(join(root, 'api', 'src'))) {
  const name = relative(root, file).split(sep).join('/');
  files += 1;
  const hits = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, '');
      if (KYSELY.some((pattern) => pattern.test(code))) hits.push(`${name}:${index + 1}: ${line.trim()}`);
    });
  found.push(...hits);
}

if (found.length > 0) {
  console.error(`SQL in route files (${found.length} lines); move it into the feature's *.queries.ts or service (a write's transaction too):`);
  for (const line of found) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`No SQL in any of the ${files} *.routes.ts files.`);
