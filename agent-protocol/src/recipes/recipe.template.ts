/**
 * Recipes are templates filled from the work's parameters: `{{caption}}`, `{{hashtags}}`, `{{keywords|first}}`.
 * The grammar is a name and at most one filter from a fixed table; nothing is evaluated. A name the scope does
 * not have is an error, caught when the recipe is validated (see `templateNames`) and again when it runs.
 */

export type TemplateValue = string | number | readonly string[];
export type TemplateScope = Readonly<Record<string, TemplateValue | undefined>>;

export const TEMPLATE_PATTERN = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([a-z]+)\s*)?\}\}/g;

/** Filters a template may apply to a value. */
export const templateFilters = {
  /** A list as words: `#a #b`. The default for lists. */
  join: (value: TemplateValue) => (Array.isArray(value) ? value.join(' ') : String(value)),
  /** A list one item a line. */
  lines: (value: TemplateValue) => (Array.isArray(value) ? value.join('\n') : String(value)),
  first: (value: TemplateValue) => (Array.isArray(value) ? (value[0] ?? '') : String(value)),
  /** One item of a list at random. */
  pick: (value: TemplateValue, random: () => number) => (Array.isArray(value) ? (value[Math.floor(random() * value.length)] ?? '') : String(value)),
  count: (value: TemplateValue) => String(Array.isArray(value) ? value.length : String(value).length),
} as const;
export type TemplateFilter = keyof typeof templateFilters;

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** Names and filters a template uses, for validation. */
export function templateNames(template: string): { name: string; filter: string | null }[] {
  return [...template.matchAll(TEMPLATE_PATTERN)].map((match) => ({ name: match[1] as string, filter: match[2] ?? null }));
}

/** Whether `{{`/`}}` appear outside a well-formed placeholder (a typo such as `{{ caption }`). */
export function hasStrayBraces(template: string): boolean {
  return /\{\{|\}\}/.test(template.replace(TEMPLATE_PATTERN, ''));
}

/** Fills a template from the scope. */
export function fillTemplate(template: string, scope: TemplateScope, random: () => number = Math.random): string {
  return template.replace(TEMPLATE_PATTERN, (_, name: string, filter: string | undefined) => {
    const value = scope[name];
    if (value === undefined) throw new TemplateError(`The recipe needs "${name}", which this work does not give.`);
    if (filter === undefined) return templateFilters.join(value);
    if (!(filter in templateFilters)) throw new TemplateError(`"${filter}" is not a template filter (use ${Object.keys(templateFilters).join(', ')}).`);
    return templateFilters[filter as TemplateFilter](value, random);
  });
}

/** Fills a template that must come out as a number (a count or minutes). */
export function fillNumber(template: number | string, scope: TemplateScope, random: () => number = Math.random): string | number {
  if (typeof template === 'number') return template;
  return fillTemplate(template, scope, random);
}
