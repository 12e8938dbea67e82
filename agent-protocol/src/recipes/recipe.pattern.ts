/**
 * Patterns written by people (a selector's `textMatches` / `descMatches`, in a recipe or a studio check) are matched
 * by RE2 (`re2js`, pure JavaScript), never by JavaScript's own RegExp: RE2 runs in time linear in the text, where a
 * backtracking engine takes `(a+)+$` over "aaaa…!" into years and freezes the process with it (the API for every
 * workspace; the farm host's agent and every phone on it). The schema, the runner, the API and the web all ask here,
 * so what a recipe is refused for is exactly what cannot run.
 *
 * The rules: RE2 syntax (no backreferences such as `\1`, no lookaround such as `(?=…)` or `(?<=…)`; `\x{e9}` rather
 * than `\u00e9`), always matched in any case and anywhere in the text (anchor with `^` and `$`); RE2's inline flags
 * `(?s)`, `(?m)` and `(?U)` may be written in the pattern. A pattern is at most 200 characters and compiles to at
 * most 300 instructions: linear is not cheap when the program is large (a 700-instruction class repeat costs over
 * 100 ms per 1,000 characters of text, a 300-instruction one at most a few).
 */
import { RE2JS } from 're2js';

/** Longest pattern accepted, in characters. */
export const PATTERN_MAX_LENGTH = 200;
/** Largest compiled program accepted (RE2's own measure of a pattern's cost per character matched). */
export const PATTERN_MAX_PROGRAM = 300;

/** Compiled patterns (or why one cannot run), by source: a run matches the same few patterns on every screen read. */
const cache = new Map<string, RE2JS | string>();
const CACHE_SIZE = 500;

function compiled(source: string): RE2JS | string {
  const known = cache.get(source);
  if (known !== undefined) return known;
  const outcome = compile(source);
  // Oldest first out: a Map iterates in insertion order.
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, outcome);
  return outcome;
}

function compile(source: string): RE2JS | string {
  if (source.length === 0) return 'it is empty';
  if (source.length > PATTERN_MAX_LENGTH) return `it is longer than ${PATTERN_MAX_LENGTH} characters`;
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    return `${reason} (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…))`;
  }
  const size = pattern.programSize();
  if (size > PATTERN_MAX_PROGRAM) return `it is too complex to match quickly (${size} instructions, at most ${PATTERN_MAX_PROGRAM}): write a simpler one`;
  return pattern;
}

/** Why a pattern cannot run here ("invalid escape sequence: `\1` (patterns are RE2 syntax …)"), or null when it can. */
export function patternProblem(source: string): string | null {
  const outcome = compiled(source);
  return typeof outcome === 'string' ? outcome : null;
}

/**
 * Whether a pattern is found anywhere in a text, in any case. A pattern that cannot run finds nothing: every way in
 * (the recipe schema, the studio's check) refuses one first, so this only keeps a stray one from throwing mid-run.
 */
export function patternFinds(source: string, text: string): boolean {
  const outcome = compiled(source);
  return typeof outcome !== 'string' && outcome.test(text);
}
