/** axe-core through @axe-core/playwright: the serious and critical violations of the page as it is now. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

type Results = Awaited<ReturnType<AxeBuilder['analyze']>>;

/** What a theme change can break; the other rules read the DOM, which the theme does not touch. */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

function summarize(violations: Results['violations']): string {
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

/** Runs axe (every rule, or only `rules`) and fails softly listing each serious or critical violation. */
export async function expectNoSeriousViolations(page: Page, where: string, rules?: readonly string[]): Promise<void> {
  const builder = new AxeBuilder({ page });
  if (rules) builder.withRules([...rules]);
  const results = await builder.analyze();
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect
    .soft(
      serious.map((violation) => `${violation.impact} ${violation.id}`),
      `axe on ${where}:\n${summarize(serious)}`,
    )
    .toEqual([]);
}
