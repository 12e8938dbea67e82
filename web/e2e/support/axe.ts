/**
 * axe-core on the page as it is now: the serious and critical violations. axe is put into the page once per document
 * (a sweep moving inside the console keeps it) and run there, on the top document: the console has no frames of its
 * own. Only violations are gathered (axe's passes and incompletes are not built).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, type Page } from '@playwright/test';
import type { AxeResults, RunOptions } from 'axe-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type Violations = AxeResults['violations'];

/** What a theme change can break; the other rules read the DOM, which the theme does not touch. */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

function summarize(violations: Violations): string {
  return violations
    .map((violation) => {
      const nodes = violation.nodes
        .slice(0, 5)
        .map((node) => `      ${node.target.join(' ')}\n        ${(node.failureSummary ?? '').split('\n').join('\n        ')}`)
        .join('\n');
      return `  [${violation.impact}] ${violation.id}: ${violation.help} (${violation.nodes.length} node(s))\n${nodes}`;
    })
    .join('\n');
}

/** The page's violations under every rule, or only `rules`. */
async function violationsOf(page: Page, rules?: readonly string[]): Promise<Violations> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  // Evaluated through the browser's debugging protocol, which the console's Content-Security-Policy does not govern.
  if (!loaded) await page.evaluate(axeSource);
  const options: RunOptions = { resultTypes: ['violations'], ...(rules ? { runOnly: { type: 'rule', values: [...rules] } } : {}) };
  return page.evaluate(
    async (given) =>
      (await (window as unknown as { axe: { run(context: Document, options: RunOptions): Promise<AxeResults> } }).axe.run(document, given)).violations,
    options,
  );
}

/** Runs axe (every rule, or only `rules`) and fails softly listing each serious or critical violation. */
export async function expectNoSeriousViolations(page: Page, where: string, rules?: readonly string[]): Promise<void> {
  const serious = (await violationsOf(page, rules)).filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect
    .soft(
      serious.map((violation) => `${violation.impact} ${violation.id}`),
      `axe on ${where}:\n${summarize(serious)}`,
    )
    .toEqual([]);
}
