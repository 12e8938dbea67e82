#!/usr/bin/env node
/**
 * The largest classes and functions in the folders given (default: the phone side's big rooms), measured in lines
 * from their first to their last, as TypeScript's own parser reads them. A class past 300 lines or a function past 80
 * is a room that wants a wall; this shows where, so a split can be planned and checked. It prints and, with
 * `--max-class=N --max-function=N`, exits 1 when something is over; it is a tool to run by hand, not a CI gate.
 *
 *   node scripts/check-sizes.mjs agent-protocol/src/recipes api/src/realtime --top=10
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const given = args.find((arg) => arg.startsWith(`--${name}=`));
  return given ? Number(given.slice(name.length + 3)) : fallback;
};
const top = option('top', 10);
const maxClass = option('max-class', Number.POSITIVE_INFINITY);
const maxFunction = option('max-function', Number.POSITIVE_INFINITY);
const folders = args.filter((arg) => !arg.startsWith('--'));
if (folders.length === 0)
  folders.push('agent-protocol/src/recipes', 'agent-protocol/src/adb', 'agent-protocol/src/agent', 'agent-protocol/src/host', 'agent-protocol/src/simphone');

/** Source files under a folder, tests left out (a test's `describe` is not a room). */
function sources(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') found.push(...sources(path));
    } else if (/\.tsx?$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** A function's name as a reader finds it: its own, its method's, or the variable or property it is assigned to. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  return '(anonymous)';
}

const classes = [];
const functions = [];
for (const folder of folders) {
  for (const file of sources(join(root, folder))) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const lines = (node) => source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    const where = (node) => `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node) => {
      if (ts.isClassDeclaration(node) || ts.isClassExpression(node))
        classes.push({ name: node.name?.getText() ?? '(anonymous)', lines: lines(node), at: where(node) });
      if (
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node)
      )
        functions.push({ name: ts.isConstructorDeclaration(node) ? 'constructor' : nameOf(node), lines: lines(node), at: where(node) });
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

const show = (title, list, max) => {
  console.log(`${title} (largest ${top}${Number.isFinite(max) ? `, limit ${max}` : ''}):`);
  for (const item of [...list].sort((a, b) => b.lines - a.lines).slice(0, top))
    console.log(`  ${String(item.lines).padStart(5)}  ${item.name.padEnd(28)} ${item.at}${item.lines > max ? '  over' : ''}`);
};
show('Classes', classes, maxClass);
show('Functions', functions, maxFunction);
const over = classes.filter((item) => item.lines > maxClass).length + functions.filter((item) => item.lines > maxFunction).length;
if (over > 0) {
  console.error(`${over} over the limit.`);
  process.exit(1);
}
