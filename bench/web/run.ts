/**
 * Web bundle sizes: builds the console with a manifest and adds up, gzipped, the JavaScript a browser loads
 * for the landing page and for the signed-in shell with the dashboard (entry + each route's static imports).
 * Budgets: landing ≤ 200 KB, shell + dashboard ≤ 350 KB.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

interface Chunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
  css?: string[];
}

const web = fileURLToPath(new URL('../../web/', import.meta.url));
const outDir = join(web, 'dist');
if (process.env.BENCH_NO_BUILD !== '1') execFileSync('pnpm', ['exec', 'vite', 'build', '--manifest'], { cwd: web, stdio: 'inherit' });
const manifest = JSON.parse(readFileSync(join(outDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;

function closure(keys: string[]): Set<string> {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const next of chunk.imports ?? []) visit(next);
  };
  keys.forEach(visit);
  return files;
}

const gzipped = (files: Set<string>) =>
  [...files].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSync(readFileSync(join(outDir, f)), { level: 9 }).length, 0);
const find = (fragment: string) => {
  const key = Object.keys(manifest).find((k) => k.includes(fragment));
  if (!key) throw new Error(`no chunk for ${fragment} in the manifest`);
  return key;
};

const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry)!;
const landing = gzipped(closure([entry, find('features/landing/LandingPage')]));
const dashboard = gzipped(closure([entry, find('app/shell/ShellLayout'), find('features/dashboard/DashboardPage')]));
const all = gzipped(new Set(Object.values(manifest).map((c) => c.file)));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

console.log('\nweb bundle (gzip -9 of the JavaScript a browser loads)');
console.log(`landing initial JS        ${kb(landing).padStart(10)}   budget 200 KB   ${(landing / (200 * 1024)).toFixed(2)} of budget`);
console.log(`shell + dashboard JS      ${kb(dashboard).padStart(10)}   budget 350 KB   ${(dashboard / (350 * 1024)).toFixed(2)} of budget`);
console.log(`every chunk together      ${kb(all).padStart(10)}`);
