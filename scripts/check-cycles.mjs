#!/usr/bin/env node
/**
 * Import cycles and the api's floors. Reads every .ts/.tsx file under the src/ of each workspace package (the list in
 * pnpm-workspace.yaml), follows its relative imports and its imports of the workspace packages (@farm/…, through their
 * package.json exports), type-only and dynamic imports included: a cycle of types is still two rooms that cannot be
 * read apart. Fails naming each cycle, and each api import from a lower floor to a higher one.
 *
 * The api's floors, lowest first (a file may import its own floor and those below; the rooms are ARCHITECTURE's):
 *   ground    shared/ db/ storage/ config.ts errors.ts: helpers that know nothing of the product's flow (token hashing
 *             included), and the leaf of server types (shared/sockets.types.ts) the rooms above share
 *   events    events/: the change feed, the outbox and write(), the workers' announcements and their relay
 *   agents    agents/: the /agent transport (socket, dispatcher, pulse, progress), below every feature: it defines
 *             the answers and hooks features register (agents.features.ts) and calls them, importing none
 *   auth      auth/: sessions, passwords, the permission policy; it reads what it needs of members itself
 *   modules   modules/<feature>/: REST features and their answers to phone messages (`<feature>.agent.ts`)
 *   realtime  realtime/: the browser gateway and the live screens, which open the agents' namespace too
 *   outer     ops/ (health, metrics, load shedding) and demo/ (the demo farm): what the wiring starts beside the
 *             product. They may use any room below (demo uses the modules' queries), and no room uses them: only
 *             app.ts and server.ts import them, so they stand above every room and below the wiring
 *   top       app.ts routes.ts server.ts phone-messages.ts: the wiring, and the composition of the features' REST
 *             routes and phone answers
 * Run by `.ci/run` (`pnpm check:cycles`); prints the floors and what it counted.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const floors = [
  { name: 'ground', rooms: ['shared', 'db', 'storage', 'config.ts', 'errors.ts'] },
  { name: 'events', rooms: ['events'] },
  { name: 'agents', rooms: ['agents'] },
  { name: 'auth', rooms: ['auth'] },
  { name: 'modules', rooms: ['modules'] },
  { name: 'realtime', rooms: ['realtime'] },
  { name: 'outer', rooms: ['ops', 'demo'] },
  { name: 'top', rooms: ['app.ts', 'routes.ts', 'server.ts', 'phone-messages.ts'] },
];
const apiSrc = join(root, 'api', 'src');

/** The `packages:` list of pnpm-workspace.yaml (plain entries; a glob would need a YAML reader and a walk). */
function workspacePackages() {
  const lines = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').split('\n');
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line));
  if (start < 0) throw new Error('pnpm-workspace.yaml has no packages list');
  const out = [];
  for (const line of lines.slice(start + 1)) {
    const entry = /^\s+-\s+['"]?([^'"#\s]+)['"]?\s*$/.exec(line);
    if (!entry) break;
    if (/[*?]/.test(entry[1])) throw new Error(`check-cycles reads plain package paths; found the glob ${entry[1]}`);
    out.push(entry[1]);
  }
  return out;
}
const packages = workspacePackages();

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
  if (!existsSync(dir)) return [];
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

/** Every import of a file resolved to a file, each marked type-only or not. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  const add = (spec, typeOnly) => {
    let target;
    if (spec.startsWith('.')) {
      target = resolve(dirname(file), spec);
      if (!existsSync(target) || statSync(target).isDirectory()) target = [`${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find(existsSync);
    } else if (exportsOf.has(spec)) {
      target = exportsOf.get(spec);
    }
    if (target && existsSync(target) && statSync(target).isFile() && /\.tsx?$/.test(target)) found.push({ target, typeOnly });
  };
  const statement = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(statement)) {
    // `import { type A, type B } from` is type-only too.
    const clause = /\{([^}]*)\}/.exec(match[0])?.[1];
    const typeOnly = Boolean(match[2]) || Boolean(clause?.split(',').every((part) => !part.trim() || part.trim().startsWith('type ')));
    add(match[3], typeOnly);
  }
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) add(match[1], false);
  return found;
}

const graph = new Map();
for (const dir of packages) for (const file of sources(join(root, dir, 'src'))) graph.set(file, importsOf(file));
for (const edges of [...graph.values()]) for (const { target } of edges) if (!graph.has(target)) graph.set(target, importsOf(target));

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
  const nexts = (graph.get(node) ?? []).map((edge) => edge.target);
  for (const next of nexts) {
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
    if (component.length > 1 || nexts.includes(node)) cycles.push(component);
  }
}
for (const node of graph.keys()) if (!indices.has(node)) visit(node);

// The api's floors: which floor each file stands on, and every import that climbs.
const floorOf = (file) => {
  const room = relative(apiSrc, file).split(/[\\/]/)[0];
  return floors.findIndex((floor) => floor.rooms.includes(room));
};
const apiFiles = [...graph.keys()].filter((file) => file.startsWith(`${apiSrc}/`) && !relative(apiSrc, file).startsWith('..'));
const problems = [];
const perFloor = floors.map(() => 0);
for (const file of apiFiles) {
  const floor = floorOf(file);
  if (floor < 0) {
    problems.push(`${relative(root, file)} stands on no floor: name its room in scripts/check-cycles.mjs (and ARCHITECTURE's rooms)`);
    continue;
  }
  perFloor[floor] += 1;
  for (const { target } of graph.get(file)) {
    if (!apiFiles.includes(target)) continue;
    const above = floorOf(target);
    if (above > floor)
      problems.push(`${relative(root, file)} (${floors[floor].name}) imports ${relative(root, target)} (${floors[above].name}), a higher floor`);
  }
}

const edges = [...graph.values()].flat();
const typeOnly = edges.filter((edge) => edge.typeOnly).length;
console.log(`check-cycles: ${packages.length} packages (pnpm-workspace.yaml), ${graph.size} files, ${edges.length} imports (${typeOnly} type-only)`);
console.log(`api floors, lowest first: ${floors.map((floor, i) => `${floor.name} [${floor.rooms.join(' ')}] ${perFloor[i]}`).join(' < ')}`);
for (const cycle of cycles)
  console.error(
    `import cycle: ${cycle
      .map((file) => relative(root, file))
      .sort()
      .join(' ↔ ')}`,
  );
for (const problem of problems) console.error(problem);
if (cycles.length > 0 || problems.length > 0) {
  console.error(
    `check-cycles: ${cycles.length} import cycle${cycles.length === 1 ? '' : 's'}, ${problems.length} import${problems.length === 1 ? '' : 's'} against the floors`,
  );
  process.exit(1);
}
console.log('check-cycles: no import cycle, no import against the floors');
