/**
 * Group control's wire shapes: one person's input on the leader, sent to every phone of the group as `group.act`
 * (agents that listed `group`), each answering with its own result. One schema per shape, shared by the agent, the
 * API and the browser. Unknown fields are refused (`strict`), so an intent never carries a component or extras.
 */
import { z } from 'zod';
import { traceFrame } from '../dryrun.ts';

const fraction = z.number().min(0).max(1);
const point = z.object({ x: fraction, y: fraction }).strict();
const name = z.string().trim().min(1).max(300);

/** A selector that names the element itself: its id, text, description, or id with text; never an index or a class. */
/** One text action types at most this many characters (UTF-16 units, as the page's field counts them). */
export const GROUP_TEXT_MAX = 1000;

export const groupSelector = z
  .object({ id: name.optional(), text: name.optional(), desc: name.optional() })
  .strict()
  .refine((selector) => selector.id !== undefined || selector.text !== undefined || selector.desc !== undefined, {
    message: 'A selector names the element by its id, text or description',
  });
export type GroupSelector = z.infer<typeof groupSelector>;

/** Keys group control sends. */
export const groupKeys = ['back', 'home', 'recents', 'enter'] as const;
export type GroupKey = (typeof groupKeys)[number];

const press = z.enum(['tap', 'long_press']).default('tap');

/** One action of a person on the leader, as every phone of the group receives it. */
export const groupAction = z.discriminatedUnion('kind', [
  /**
   * The leader's finger (sent to the leader only): its agent finds the element under the point in its own tree, acts on
   * it, and answers with the selector naming it and its screen's signature, which go to the followers as `selector`
   * and `leader`. Where nothing under the finger names itself it acts on nothing and answers `offerPoint`.
   */
  z.object({ kind: z.literal('finger'), x: fraction, y: fraction, press }).strict(),
  /** A tap or long press on the element the selector names, found in each phone's own tree (the default). */
  z.object({ kind: z.literal('selector'), selector: groupSelector, press }).strict(),
  /** A tap or long press by point (a share of the screen), only when the person switched to it for this tap. */
  z.object({ kind: z.literal('point'), x: fraction, y: fraction, press }).strict(),
  z.object({ kind: z.literal('swipe'), from: point, to: point, durationMs: z.number().int().min(20).max(5000).default(250) }).strict(),
  /** A wheel turn over a point: dy > 0 scrolls the content up, as live control's scroll. */
  z.object({ kind: z.literal('scroll'), x: fraction, y: fraction, dy: z.number().min(-1).max(1) }).strict(),
  z.object({ kind: z.literal('key'), key: z.enum(groupKeys) }).strict(),
  /** Typed into each phone's focused field (any Unicode). Audits say "text, N characters", never the text. */
  z.object({ kind: z.literal('text'), text: z.string().min(1).max(GROUP_TEXT_MAX) }).strict(),
  /** Opening something from the closed list (group.rules.ts): an action and its data, nothing else. */
  z.object({ kind: z.literal('intent'), action: z.string().min(1).max(200), data: z.string().min(1).max(300).optional() }).strict(),
]);
export type GroupAction = z.infer<typeof groupAction>;
export type GroupActionInput = z.input<typeof groupAction>;

const packageName = z
  .string()
  .regex(/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/, 'A package name (com.example.app)')
  .max(200);

/** The workspace's lists the rules read: packages operators added, those its recipes drive, its app library's. */
export const groupLists = z.object({
  added: z.array(packageName).max(200).default([]),
  recipePackages: z.array(packageName).max(200).default([]),
  appLibrary: z.array(packageName).max(2000).default([]),
});
export type GroupLists = z.infer<typeof groupLists>;

/** A screen's signature (group.screen.ts): the app in front and the resource ids its screen shows. */
export const screenSignature = z.object({
  package: z.string().max(200).nullable(),
  ids: z.array(z.string().max(300)).max(1000),
});
export type ScreenSignature = z.infer<typeof screenSignature>;

/** `group.act`, server → agent: the action, the leader's screen to match, and the workspace's lists. */
export const groupActMessage = z.object({
  actionId: z.string().min(1).max(64),
  action: groupAction,
  /** The leader's screen; a follower on another one acts on nothing. Absent: not compared. */
  leader: screenSignature.optional(),
  lists: groupLists.default({ added: [], recipePackages: [], appLibrary: [] }),
});
export type GroupActMessage = z.infer<typeof groupActMessage>;

/** How one phone fared. `matches`: the selector found several (the label says how many). */
export const groupResultKinds = ['done', 'not_found', 'matches', 'different_screen', 'refused', 'busy', 'offline', 'not_supported'] as const;
export type GroupResultKind = (typeof groupResultKinds)[number];

/** One phone's answer to `group.act`. */
export const groupActResult = z.object({
  actionId: z.string().min(1).max(64),
  kind: z.enum(groupResultKinds),
  /** What the grid shows: "Done", "Not found", "2 matches", "Different screen", "Refused", "Busy", "Offline", "Not supported". */
  label: z.string().max(40),
  /** Why, in a sentence (a refusal names its reason). */
  reason: z.string().max(500).optional(),
  matches: z.number().int().min(2).max(10_000).optional(),
  /** The action went by point (the person chose it, or no element-naming selector existed). */
  byPoint: z.boolean().optional(),
  /** The leader's answer to `finger`: the selector naming the element it acted on. */
  selector: groupSelector.optional(),
  /** The screen the phone acted on (its signature, read before acting): the leader's is what its followers match. */
  screen: screenSignature.optional(),
  /** The leader's answer to `finger` when nothing under it names itself: the person is offered a tap by point. */
  offerPoint: z.boolean().optional(),
  /** The phone's screen after (or instead of) acting, where it was cheap to take. */
  frame: traceFrame.optional(),
});
export type GroupActResult = z.infer<typeof groupActResult>;

const LABELS: Record<Exclude<GroupResultKind, 'matches'>, string> = {
  done: 'Done',
  not_found: 'Not found',
  different_screen: 'Different screen',
  refused: 'Refused',
  busy: 'Busy',
  offline: 'Offline',
  not_supported: 'Not supported',
};

/** A result with its label; `matches` needs the count ("2 matches"). */
export function groupResult(
  actionId: string,
  kind: GroupResultKind,
  extra: Partial<Pick<GroupActResult, 'reason' | 'matches' | 'byPoint' | 'frame' | 'selector' | 'screen' | 'offerPoint'>> = {},
): GroupActResult {
  const label = kind === 'matches' ? `${extra.matches ?? 2} matches` : LABELS[kind];
  return { actionId, kind, label, ...extra };
}

/**
 * Whether an agent can take `group.act`: it listed `group` in its hello. Agents that did not (protocol 1 ones, older
 * protocol 2 ones) are shown "Not supported" and skipped; `notSupportedResult` is that result.
 */
export function supportsGroup(features: readonly string[] | undefined): boolean {
  return features?.includes('group') ?? false;
}

export function notSupportedResult(actionId: string): GroupActResult {
  return groupResult(actionId, 'not_supported', { reason: 'This phone’s agent does not take group control (it did not list "group").' });
}
