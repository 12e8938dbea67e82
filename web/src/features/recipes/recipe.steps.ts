/**
 * The editor's step list works on the same document as the JSON pane: these read a step for people (what it does,
 * the selector it looks for) and change the document's top-level steps (add after, move, delete, set what it
 * counts), keeping every other key where the writer put it. The words follow describeStep in agent-protocol's
 * runner, which the browser cannot import (the runner reads the shipped recipes from disk).
 */
import { describeStep } from '@farm/agent-protocol/recipe-describe';
import { engagementActions, type EngagementAction } from '@farm/agent-protocol/recipe-schema';

export { engagementActions, type EngagementAction };

export type Json = Record<string, unknown>;
export type SelectorKind = 'id' | 'text' | 'desc';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The steps of a document, when it has a list of them. */
export function stepsOf(document: unknown): Json[] | null {
  if (!isObject(document) || !Array.isArray(document.steps)) return null;
  return document.steps.map((step) => (isObject(step) ? step : {}));
}

/** How a target reads: a named element, its selector (id, text, description), or a point (positional). */
export function describeTarget(target: unknown): { text: string; positional: boolean } | null {
  if (target === undefined || target === null) return null;
  if (typeof target === 'string') return { text: `element "${target}"`, positional: false };
  if (!isObject(target)) return { text: 'an element', positional: false };
  if (isObject(target.point)) {
    const { x, y } = target.point;
    return { text: `point ${String(x)}, ${String(y)}`, positional: true };
  }
  const parts: string[] = [];
  const add = (label: string, value: unknown) => {
    if (typeof value === 'string') parts.push(`${label} "${value}"`);
  };
  add('id', target.id);
  add('text', target.text);
  add('text contains', target.textContains);
  add('description', target.desc);
  add('description contains', target.descContains);
  add('text matches', target.textMatches);
  add('description matches', target.descMatches);
  add('class', target.class);
  if (typeof target.index === 'number') parts.push(`index ${target.index}`);
  if (Array.isArray(target.or) && target.or.length > 0) parts.push(`or ${target.or.length} more`);
  return { text: parts.length > 0 ? parts.join(' · ') : 'an element', positional: false };
}

/** The target a step acts on or looks for. */
export function targetOf(step: Json): unknown {
  return step.do === 'when' ? step.present : step.target;
}

/** What a step does, in a few words (its own label when it has one): as the runner says it. */
export { describeStep };

/** A step that may act on a point (marked positional, or aimed at a bare point): used only while the screen cannot be read. */
export const isPositional = (step: Json) => step.positional === true || (isObject(step.target) && isObject(step.target.point));

/**
 * Steps that may count an engagement (a like, a follow…) once they took: never a positional one (the schema refuses a
 * count there), except to clear a count it already carries.
 */
export const canCount = (step: Json) =>
  (step.do === 'tap' || step.do === 'toggle' || step.do === 'type') && (!isPositional(step) || typeof step.counts === 'string');

export interface NewTarget {
  kind: SelectorKind;
  value: string;
}
const selectorOf = ({ kind, value }: NewTarget) => ({ [kind]: value.trim() });

/** The steps the list adds: Wait for, Check, Guard (if it shows, tap it or go back) and Pause. */
export type NewStep =
  | { do: 'wait_for'; target: NewTarget; timeout: string }
  | { do: 'expect'; target: NewTarget; timeout: string }
  | { do: 'when'; target: NewTarget; action: 'tap' | 'back' }
  | { do: 'pause'; for: string };

export function buildStep(input: NewStep): Json {
  switch (input.do) {
    case 'wait_for':
    case 'expect':
      return { do: input.do, target: selectorOf(input.target), ...(input.timeout.trim() ? { timeout: input.timeout.trim() } : {}) };
    case 'when':
      return {
        do: 'when',
        present: selectorOf(input.target),
        steps: [input.action === 'tap' ? { do: 'tap', target: selectorOf(input.target) } : { do: 'key', key: 'back' }],
      };
    case 'pause':
      return { do: 'pause', for: input.for.trim() };
  }
}

/** A copy of the document with its steps replaced (every other key where it was). */
function withSteps(document: Json, steps: Json[]): Json {
  return { ...document, steps };
}

/** Inserts `step` after the step at `index` (-1: first). */
export function insertStep(document: Json, index: number, step: Json): Json {
  const steps = [...(stepsOf(document) ?? [])];
  steps.splice(index + 1, 0, step);
  return withSteps(document, steps);
}

export function moveStep(document: Json, index: number, by: -1 | 1): Json {
  const steps = [...(stepsOf(document) ?? [])];
  const to = index + by;
  if (to < 0 || to >= steps.length) return document;
  [steps[index], steps[to]] = [steps[to]!, steps[index]!];
  return withSteps(document, steps);
}

export function deleteStep(document: Json, index: number): Json {
  return withSteps(
    document,
    (stepsOf(document) ?? []).filter((_, at) => at !== index),
  );
}

/** Sets (or with null, clears) what a step counts, keeping its keys in order and `counts` where it was. */
export function setCounts(document: Json, index: number, counts: EngagementAction | null): Json {
  const steps = (stepsOf(document) ?? []).map((step, at) => {
    if (at !== index) return step;
    const { counts: _old, ...rest } = step;
    return counts === null ? rest : 'counts' in step ? { ...step, counts } : { ...rest, counts };
  });
  return withSteps(document, steps);
}

/** The document as the JSON pane shows it. */
export const pretty = (document: unknown) => JSON.stringify(document, null, 2);
