/**
 * A recipe's evidence, selector by selector: where each was read (`evidence`) and whether that source was read and
 * shows the node (`unverified` says why not). One walk over the recipe serves the coverage rule (a shipped template
 * holding an unverified selector runs only where the workspace opts in), the README's table, the console's recipe
 * view and the test that finds every verified selector on a fixture of a real screen.
 */
import type { Recipe } from './recipe.schema.ts';

/** The keys that make an object a selector or an element state. */
const SELECTOR_KEYS = ['id', 'text', 'textContains', 'desc', 'descContains', 'textMatches', 'descMatches', 'class', 'selected', 'checked'] as const;

export interface SelectorEvidence {
  /** Where in the recipe: `elements.like_button`, `elements.like_button.or[0]`, `skips[1].when`, `steps[2].steps[4].on[0]`. */
  path: string;
  /** The element it belongs to, when it is one of `elements` (or an alternative of one). */
  element?: string;
  /** The selector's matching fields, as written (`id=row_feed_button_like, selected=true`). */
  match: string;
  /** The selector's own fields, for a test to match against a fixture. */
  fields: Partial<Record<(typeof SELECTOR_KEYS)[number] | 'index', string | number | boolean>>;
  evidence: string | null;
  /** Why the evidence does not hold it; null when it does. */
  unverified: string | null;
  /**
   * `acts`: the recipe finds, reads or taps it (an element, a toggle's state, a confirmation, a popup's dismiss
   * button); `marker`: it only stops or skips (dialogs, guards, skips, the start's other screens). An unverified marker
   * that never matches leaves the run as it would be without it; an unverified selector the recipe acts on may act
   * wrong: a dismiss tap lands on whatever carries its words.
   */
  role: 'acts' | 'marker';
}

/**
 * The elements the recipe uses: named by a step, a skip, the start or another part outside `elements`. An element
 * only defined (the shipped files share one element table per app) is neither acted on nor judged.
 */
export function usedElements(recipe: Recipe): Set<string> {
  const names = new Set(Object.keys(recipe.elements ?? {}));
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (names.has(value)) used.add(value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value && typeof value === 'object') for (const item of Object.values(value)) visit(item);
  };
  for (const key of ['dialogs', 'guards', 'dismiss', 'skips', 'start', 'steps'] as const) visit(recipe[key]);
  return used;
}

/** Every selector and element state the recipe uses, in document order (elements first). */
export function recipeEvidence(recipe: Recipe): SelectorEvidence[] {
  const found: SelectorEvidence[] = [];
  const visit = (value: unknown, path: string, element: string | undefined): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, `${path}[${index}]`, element);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    // A step (`{ do: … }`) is no selector, though a `type` step has `text`: walk into its parts.
    if (!('do' in record) && SELECTOR_KEYS.some((key) => record[key] !== undefined)) {
      const fields: SelectorEvidence['fields'] = {};
      for (const key of [...SELECTOR_KEYS, 'index'] as const) {
        const field = record[key];
        if (typeof field === 'string' || typeof field === 'number' || typeof field === 'boolean') fields[key] = field;
      }
      found.push({
        path,
        ...(element ? { element } : {}),
        match: Object.entries(fields)
          .map(([key, field]) => `${key}=${String(field)}`)
          .join(', '),
        fields,
        evidence: typeof record.evidence === 'string' ? record.evidence : null,
        unverified: typeof record.unverified === 'string' ? record.unverified : null,
        role: /^(dialogs|guards|skips|start\.instead|start\.signedOut)\b/.test(path) ? 'marker' : 'acts',
      });
    }
    for (const [key, child] of Object.entries(record)) {
      if (key === 'fallback' || key === 'app' || key === 'defaults') continue;
      if (child && typeof child === 'object') visit(child, `${path}.${key}`, element);
    }
  };
  const used = usedElements(recipe);
  for (const [name, spec] of Object.entries(recipe.elements ?? {})) if (used.has(name)) visit(spec, `elements.${name}`, name);
  for (const key of ['dialogs', 'guards', 'dismiss', 'skips', 'start', 'steps'] as const) visit(recipe[key], key, undefined);
  return found;
}

/** The tested ranges whose evidence could not be read, with why. */
export function unverifiedRanges(recipe: Recipe): { package: string; reason: string }[] {
  const tested = recipe.app.tested;
  if (!Array.isArray(tested)) return [];
  return tested.flatMap((entry) => (entry.unverified ? [{ package: entry.package, reason: entry.unverified }] : []));
}

/**
 * What keeps a template off by default: the unverified selectors it acts on (markers are shown as unverified but do
 * not hold it back) and unverified tested ranges. Empty: the evidence of what it does holds throughout.
 */
export function unverifiedClaims(recipe: Recipe, packageName?: string): string[] {
  const selectors = recipeEvidence(recipe)
    .filter((entry) => entry.unverified && entry.role === 'acts')
    .map((entry) => `${entry.element ?? entry.path} (${entry.match})`);
  const ranges = unverifiedRanges(recipe)
    .filter((entry) => !packageName || entry.package === packageName)
    .map((entry) => `the tested range of ${entry.package}`);
  return [...new Set([...selectors, ...ranges])];
}
