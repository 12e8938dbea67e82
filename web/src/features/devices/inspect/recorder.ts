/**
 * Record: what a person does on a controlled phone, as recipe steps. A tap becomes `tap` on the element the phone
 * found under the finger, by its most stable unique selector (id, id and text, description or text; never an index or
 * a class alone). Only where no selector is unique (or the screen could not be read) is it a tap on the point, marked
 * positional: a run taps that point only while the screen cannot be read, and such a step never counts an action. A
 * drag is a `swipe`, typed text `type` (a parameter may stand in for it), Back and Home `key`, and a wait of more than
 * 1.5 s a `pause`. Stop saves the steps as a draft recipe.
 */
import type { RecordedTarget } from '@farm/agent-protocol/inspect';
import type { LiveInput } from '@farm/agent-protocol/live';

/** A wait longer than this between two inputs is kept as a pause. */
export const PAUSE_AFTER_MS = 1500;

/** Parameters a recorded text may be replaced with ("As typed" keeps the words). */
export const textParameters = ['{{caption}}', '{{keywords|pick}}'] as const;

export type RecordedStep = Record<string, unknown> & { do: string };

export interface RecordedEntry {
  step: RecordedStep;
  /** The frame shown when the input was made (an object URL), kept with the step. */
  screenshot: string | null;
  /** A tap on a point (no unique selector there), used only while the screen cannot be read. */
  positional: boolean;
  /** How the person sees it in the list. */
  summary: string;
  /** The app the element under the finger belonged to (taps only). */
  package?: string | null;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}s`;

function direction(dx: number, dy: number): 'up' | 'down' | 'left' | 'right' {
  if (Math.abs(dx) > Math.abs(dy)) return dx < 0 ? 'left' : 'right';
  return dy < 0 ? 'up' : 'down';
}

/** The label a recorded positional step carries, so the draft says why it is one and when it acts. */
export const POSITIONAL_LABEL = 'No unique selector here: tapped only while the screen cannot be read';

/** A selector as a person reads it in the list of steps: `id row_feed_button_like`, `desc "Instagram"`, `text "Like" (2nd)`. */
export function selectorPhrase(selector: RecordedTarget['selector'] & object): string {
  const parts: string[] = [];
  if (selector.id) parts.push(`id ${selector.id}`);
  if (selector.desc) parts.push(`desc "${selector.desc}"`);
  if (selector.text) parts.push(`text "${selector.text}"`);
  if (selector.class && parts.length === 0) parts.push(`class ${selector.class}`);
  const phrase = parts.join(' + ') || JSON.stringify(selector);
  if (selector.index === undefined) return phrase;
  return `${phrase} (${selector.index === -1 ? 'last' : `no. ${selector.index + 1}`})`;
}

/** The steps one input makes (a pause first when the person waited), or none for inputs a recipe does not repeat. */
export function stepsFor(input: LiveInput, recorded: RecordedTarget | undefined, waitedMs: number): Omit<RecordedEntry, 'screenshot'>[] {
  const out: Omit<RecordedEntry, 'screenshot'>[] = [];
  if (waitedMs > PAUSE_AFTER_MS) out.push({ step: { do: 'pause', for: seconds(waitedMs) }, positional: false, summary: `Wait ${seconds(waitedMs)}` });
  switch (input.kind) {
    case 'tap':
    case 'long_press': {
      const verb = input.kind === 'tap' ? 'Tap' : 'Long press';
      const extra = input.kind === 'long_press' ? { duration: `${input.durationMs}ms` } : {};
      const at = recorded?.point ?? { x: input.x, y: input.y };
      const app = recorded?.package ?? null;
      if (recorded?.selector) {
        // The unique selector is the step: no point rides along, so the run finds the element or misses it.
        out.push({
          step: { do: input.kind, target: { ...recorded.selector }, ...extra },
          positional: false,
          summary: `${verb} ${selectorPhrase(recorded.selector)}`,
          package: app,
        });
      } else {
        out.push({
          step: { do: input.kind, target: { point: { x: at.x, y: at.y } }, positional: true, label: POSITIONAL_LABEL, ...extra },
          positional: true,
          summary: `${verb} at ${Math.round(at.x * 100)}%, ${Math.round(at.y * 100)}% (positional: only while the screen cannot be read)`,
          package: app,
        });
      }
      break;
    }
    case 'swipe': {
      const dx = input.to.x - input.from.x;
      const dy = input.to.y - input.from.y;
      const towards = direction(dx, dy);
      const distance = Math.min(0.9, Math.max(0.1, Math.round(Math.max(Math.abs(dx), Math.abs(dy)) * 10) / 10));
      out.push({ step: { do: 'swipe', direction: towards, distance }, positional: false, summary: `Swipe ${towards}` });
      break;
    }
    case 'scroll': {
      const towards = input.dy > 0 ? 'up' : 'down';
      out.push({ step: { do: 'swipe', direction: towards, distance: 0.6 }, positional: false, summary: `Swipe ${towards}` });
      break;
    }
    case 'text':
      out.push({ step: { do: 'type', text: input.text }, positional: false, summary: `Type "${input.text}"` });
      break;
    case 'key':
      out.push({ step: { do: 'key', key: input.key }, positional: false, summary: `Press ${input.key.replace('_', ' ')}` });
      break;
    case 'rotate':
      break;
  }
  return out;
}

/** The platform a recorded app package drives, if it is one recipes know. */
export function platformOf(packageName: string | null | undefined): 'instagram' | 'tiktok' | null {
  if (packageName === 'com.instagram.android') return 'instagram';
  if (packageName === 'com.zhiliaoapp.musically' || packageName === 'com.ss.android.ugc.trill') return 'tiktok';
  return null;
}

const PACKAGES = { instagram: 'com.instagram.android', tiktok: 'com.zhiliaoapp.musically' } as const;

/** A recipe id from a name: lower-case letters, digits and dashes, under the workspace's `studio.` prefix. */
export function recipeIdFor(name: string, now = Date.now()): string {
  const slug =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50) || 'recorded';
  return `studio.${slug}.${now.toString(36)}`;
}

export interface DraftFacts {
  name: string;
  platform: 'instagram' | 'tiktok';
  routine: string;
  /** What the phone said with the recorded taps: the app package, its version and the phone's language. */
  recorded: RecordedTarget[];
}

/**
 * The pictures of a draft's steps (`draftRecipe`'s steps: the app opened first, then the steps kept), for the editor to
 * show beside them: each kept step's thumbnail, by its place in the draft.
 */
export function draftStepShots(entries: readonly RecordedEntry[], platform: 'instagram' | 'tiktok'): { step: number; image: string }[] {
  const firstInApp = entries.findIndex((entry) => platformOf(entry.package) === platform);
  const kept = firstInApp > 0 ? entries.slice(firstInApp) : entries;
  return kept.flatMap((entry, at) => (entry.screenshot ? [{ step: at + 1, image: entry.screenshot }] : []));
}

/**
 * The draft recipe: the app opened first, then the recorded steps from the first one made in the app (what was done
 * to reach it, on the launcher, is left out: the recipe opens the app itself); not verified, saved turned off.
 */
export function draftRecipe(entries: readonly RecordedEntry[], facts: DraftFacts, now = Date.now()): Record<string, unknown> {
  const appPackage = PACKAGES[facts.platform];
  const firstInApp = entries.findIndex((entry) => platformOf(entry.package) === facts.platform);
  const kept = firstInApp > 0 ? entries.slice(firstInApp) : entries;
  const fromApp = facts.recorded.filter((target) => platformOf(target.package) === facts.platform);
  const version = fromApp.map((target) => target.appVersion).find((value): value is string => Boolean(value));
  const locale = [...facts.recorded]
    .reverse()
    .find((target) => target.locale)
    ?.locale?.split('-')[0]
    ?.toLowerCase();
  return {
    id: recipeIdFor(facts.name, now),
    version: 1,
    name: facts.name.trim(),
    platform: facts.platform,
    routines: [facts.routine],
    app: {
      package: fromApp[0]?.package ?? appPackage,
      writtenFor: version ?? 'unknown',
      ...(locale && /^[a-z]{2,3}$/.test(locale) ? { locale } : {}),
    },
    verified: false,
    notes: `Recorded on a phone${version ? ` with ${fromApp[0]?.package ?? appPackage} ${version}` : ''}; ${kept.filter((entry) => entry.positional).length} positional step(s)${kept.length < entries.length ? `; ${entries.length - kept.length} step(s) made outside the app left out` : ''}.`,
    steps: [{ do: 'open_app' }, ...kept.map((entry) => entry.step)],
  };
}
