/**
 * What a recipe step does, in a few words: the runner's progress and traces, and the recipe editor's step list, say
 * it the same way. It reads a step as the editor holds it too (a document being typed, not yet valid), so it touches
 * nothing but the step and imports nothing that reads files.
 */
import type { Step } from './recipe.schema.ts';

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a step acts on or looks for: a named element, a point, or the first of its selector's fields. */
function targetName(target: unknown): string {
  if (target === undefined) return '';
  if (typeof target === 'string') return target.replace(/_/g, ' ');
  if (!isObject(target)) return 'an element';
  if ('point' in target) return 'a point';
  for (const key of ['id', 'text', 'textContains', 'desc', 'descContains', 'class'] as const) if (typeof target[key] === 'string') return target[key];
  return 'an element';
}

/** Describes a step for people watching it run or editing it (its own label when it has one). */
export function describeStep(step: Step | Loose): string {
  const loose = step as Loose;
  if (typeof loose.label === 'string' && loose.label) return loose.label;
  switch (loose.do) {
    case 'open_app':
      return `Open ${typeof loose.package === 'string' ? loose.package : 'the app'}`;
    case 'open_url':
      return `Open ${String(loose.url)}`;
    case 'wait_for':
      return `Wait for ${targetName(loose.target)}`;
    case 'expect':
      return `Check ${targetName(loose.target)}`;
    case 'tap':
      return `Tap ${targetName(loose.target)}`;
    case 'toggle':
      return `Turn on ${targetName(loose.target)}`;
    case 'share_media':
      return 'Share the media to the app';
    case 'long_press':
      return `Long-press ${targetName(loose.target)}`;
    case 'type':
      return 'Type text';
    case 'swipe':
      return `Swipe ${String(loose.direction)}`;
    case 'key':
      return `Press ${String(loose.key)}`;
    case 'push_media':
      return 'Copy media to the phone';
    case 'pause':
      return 'Pause';
    case 'hand_over':
      return 'Hand the comment to a VA';
    case 'repeat':
      return 'Repeat';
    case 'when':
      return `If ${targetName(loose.present)} shows`;
    default:
      return typeof loose.do === 'string' ? loose.do : 'A step with no "do"';
  }
}
