#!/usr/bin/env node
/**
 * Import cycles between source files: reads every .ts/.tsx file under each package's src/, follows its relative
 * imports and its imports of the workspace packages (@farm/…, through their package.json exports), and fails
 * naming each cycle. Type-only imports (`import type`, `export type`) vanish at run time and are left out.
 * Run by `.ci/run`; `node scripts/check-cycles.mjs` prints the cycles it finds.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packages = ['sql', 'agent-protocol', 'api/contracts', 'workers', 'api', 'web'];

/** The workspace packages' exports: `@farm/name/sub` → the source file it maps to. */
const exportsOf = new Map();
for (const dir of packages) {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const entries = typeof manifest.exports === 'object' && manifest.exports ? manifest.exports : {};
  for (const [sub, target] of Object.entries(entries)) {
    const file = typeof target === 'string' ? target : (target.default ?? target.import);
    if (typeof file === 'string') exportsOf.set(`${manifest.name}${sub === '.' ? '' : sub.slice(1)}`, resolve(root, dir, file));
  }
}

function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist') out.push(...sources(path));
    } else if (/\.tsx?$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name) && !name.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

/** The run-time imports of a file (type-only ones dropped), resolved to files. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(pattern)) {
    if (match[2]) continue;
    // `import { type A, type B } from` is type-only too.
    const clause = /\{([^}]*)\}/.exec(match[0])?.[1];
    if (clause?.split(',').every((part) => !part.trim() || part.trim().startsWith('type '))) continue;
    const spec = match[3];
    let target;
    if (spec.startsWith('.')) {
      target = resolve(dirname(file), spec);
      if (!existsSync(target)) target = [`${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find(existsSync);
    } else if (exportsOf.has(spec)) {
      target = exportsOf.get(spec);
    }
    if (target && existsSync(target) && statSync(target).isFile()) found.push(target);
  }
  return found;
}

const graph = new Map();
for (const dir of packages)
  for (const file of sources(join(root, dir, 'src')))
    graph.set(
      file,
      importsOf(file).filter((target) => /\.tsx?$/.test(target)),
    );
for (const targets of [...graph.values()]) for (const target of targets) if (!graph.has(target)) graph.set(target, importsOf(target));

// Tarjan's strongly connected components: every component of more than one file (or a file importing itself) is a cycle.
let index = 0;
const indices = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function visit(node) {
  indices.set(node, index);
  low.set(node, index);
  index += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of graph.get(node) ?? []) {
    if (!indices.has(next)) {
      visit(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) {
      low.set(node, Math.min(low.get(node), indices.get(next)));
    }
  }
  if (low.get(node) === indices.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component);
  }
}
for (const node of graph.keys()) if (!indices.has(node)) visit(node);

if (cycles.length === 0) {
  console.log(`check-cycles: no import cycles among ${graph.size} files`);
} else {
  for (const cycle of cycles)
    console.error(
      `import cycle: ${cycle
        .map((file) => relative(root, file))
        .sort()
        .join(' ↔ ')}`,
    );
  console.error(`check-cycles: ${cycles.length} import cycle${cycles.length === 1 ? '' : 's'}`);
  process.exit(1);
}
