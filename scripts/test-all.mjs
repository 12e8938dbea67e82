#!/usr/bin/env node
/**
 * Runs every test of the workspace, package by package (unit and integration with vitest, then the browser
 * tests with Playwright), and ends with one line of totals. Exits non-zero when anything failed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'farm-tests-'));
const packages = ['sql', 'agent-protocol', 'workers', 'api', 'web'];
const totals = { passed: 0, failed: 0, skipped: 0 };
let broken = false;

const timings = [];
/** Every failed test by name, printed again at the end: a long log's tail then says what broke. */
const failures = [];

const runStarted = Date.now();

/** Runs one suite, says its wall time when it ends, and keeps it for the closing table. */
function run(command, args, cwd, label, env = process.env) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env });
  const seconds = Math.round((Date.now() - started) / 1000);
  timings.push(`${label} ${seconds}s`);
  console.log(`== ${label}: ${seconds}s (${Math.round((Date.now() - runStarted) / 1000)}s since the tests began)`);
  return result.status ?? 1;
}

for (const name of packages) {
  const cwd = join(root, name);
  if (!existsSync(join(cwd, 'vitest.config.ts'))) continue;
  console.log(`\n== ${name}: vitest`);
  const report = join(out, `${name}.json`);
  const status = run('pnpm', ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], cwd, name);
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += json.numPassedTests ?? 0;
    totals.failed += json.numFailedTests ?? 0;
    totals.skipped += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
    if ((json.numTotalTests ?? 0) === 0) broken = true;
    printSlowest(
      name,
      (json.testResults ?? []).map((file) => [file.name.replace(`${cwd}/`, ''), (file.endTime ?? 0) - (file.startTime ?? 0)]),
    );
    for (const file of json.testResults ?? []) {
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'failed') failures.push(`${name}: ${file.name.replace(`${cwd}/`, '')} › ${test.fullName}`);
      }
      // A file that cannot load counts no failed test, only a failed suite: name it, or the run fails unexplained.
      if (file.status === 'failed' && (file.assertionResults ?? []).every((test) => test.status !== 'failed')) {
        console.log(`${name}: ${file.name} failed outside its tests: ${String(file.message ?? '').split('\n')[0]}`);
        broken = true;
      }
    }
  } else broken = true;
  if (status !== 0) {
    console.log(`${name}: vitest exited with ${status}`);
    broken = true;
  }
}

const e2e = join(root, 'web', 'playwright.config.ts');
if (existsSync(e2e) && process.env.SKIP_E2E !== '1') {
  console.log('\n== web: browser tests (Playwright, Debian chromium)');
  const report = join(out, 'e2e.json');
  const status = run('pnpm', ['exec', 'playwright', 'test'], join(root, 'web'), 'e2e', { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report });
  if (existsSync(report)) {
    const stats = JSON.parse(readFileSync(report, 'utf8')).stats ?? {};
    totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    totals.failed += stats.unexpected ?? 0;
    totals.skipped += stats.skipped ?? 0;
    collectE2eFailures(JSON.parse(readFileSync(report, 'utf8')).suites ?? [], []);
    const perFile = new Map();
    collectE2eDurations(JSON.parse(readFileSync(report, 'utf8')).suites ?? [], perFile);
    printSlowest('e2e', [...perFile]);
  } else broken = true;
  if (status !== 0) {
    console.log(`web: playwright exited with ${status}`);
    broken = true;
  }
}

if (failures.length > 0) console.log(`\nfailed:\n  ${failures.join('\n  ')}`);
console.log(`\ntimes: ${timings.join(', ')} (${Math.round((Date.now() - runStarted) / 1000)}s in all)`);
console.log(`total: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(broken || totals.failed > 0 ? 1 : 0);

/** Walks Playwright's JSON report and keeps the titles of tests whose final result was unexpected. */
function collectE2eFailures(suites, path) {
  for (const suite of suites) {
    const here = suite.title ? [...path, suite.title] : path;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === 'unexpected') failures.push(`e2e: ${[...here, spec.title].join(' › ')} (${test.projectName})`);
      }
    }
    collectE2eFailures(suite.suites ?? [], here);
  }
}

/**
 * The slowest files of a suite (a file of two vitest projects counts once each), so that the next cut of the run's
 * time starts from a measure.
 */
function printSlowest(label, files) {
  const slowest = files
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15);
  if (slowest.length === 0) return;
  console.log(`\n== ${label}: slowest files`);
  for (const [file, ms] of slowest) console.log(`${(ms / 1000).toFixed(1).padStart(7)}s  ${file}`);
}

/** Adds up the time of every test's attempts, by spec file, from Playwright's JSON report. */
function collectE2eDurations(suites, perFile) {
  for (const suite of suites) {
    for (const spec of suite.specs ?? []) {
      const ms = (spec.tests ?? []).flatMap((test) => test.results ?? []).reduce((sum, result) => sum + (result.duration ?? 0), 0);
      perFile.set(spec.file, (perFile.get(spec.file) ?? 0) + ms);
    }
    collectE2eDurations(suite.suites ?? [], perFile);
  }
}
