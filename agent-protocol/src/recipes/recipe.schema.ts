/**
 * The recipe language: work as steps on a phone's UI, one zod schema. Shipped recipes (agent-protocol/recipes/)
 * and a workspace's own are validated by it alike; so are the parameters a run is filled from.
 *
 * A recipe names its app, the routines it serves and the app versions it was written against, declares named
 * elements (selectors with alternatives and a fallback point), guards (screens that end the run with a reason),
 * popups to dismiss, and its steps. Templates in text fields take the run's parameters (`recipe.template.ts`).
 */
import { z } from 'zod';
import { failureCode } from '../failures.ts';
import { keyNames } from '../phone/phone.device.ts';
import { COUNT_PATTERN, DURATION_PATTERN } from './recipe.pacing.ts';
import { patternProblem } from './recipe.pattern.ts';
import { hasStrayBraces, TEMPLATE_PATTERN, templateFilters, templateNames } from './recipe.template.ts';

import { routineTypes, type RoutineType } from '../routines.ts';
import { handOverKinds, platforms, type HandOverKind, type Platform } from '../values.ts';

export { routineTypes, type RoutineType };

/**
 * The revision of these rules. Raise it whenever the schema refuses something it accepted before: the API reads
 * every stored recipe again at its next start and turns off those now refused. 1: patterns are RE2, a recipe's
 * defaults carry no media, an activity is a class name. 2: a point only on a positional tap, long press or type
 * (used only while the screen cannot be read), never on a step that counts an action; nothing looks for a point; no
 * recipe types comment text (`{{comments}}` is gone; a `hand_over` step hands each comment to a VA).
 */
export const RECIPE_RULES_REVISION = 2;

export const recipePlatforms = platforms;
export type RecipePlatform = Platform;

/** Engagement a run counts and reports so the server can count today's actions. */
export const engagementActions = ['like', 'follow', 'comment', 'post'] as const;
export type EngagementAction = (typeof engagementActions)[number];

/** The reasons a recipe may fail with (a subset of the shared failure codes). */
export const recipeFailureCode = failureCode.extract([
  'login_required',
  'account_blocked',
  'rate_limited',
  'element_missing',
  'app_crashed',
  'post_unconfirmed',
  'unknown',
]);
export type RecipeFailureCode = z.infer<typeof recipeFailureCode>;

/** What a run is filled from: the work's parameters. */
export const recipeParams = z.object({
  caption: z.string().max(2200).optional(),
  hashtags: z.array(z.string().max(100)).max(30).optional(),
  /** Media files on the farm host, to push to the phone. */
  media: z.array(z.string().min(1)).max(10).optional(),
  keywords: z.array(z.string().min(1).max(100)).max(50).optional(),
  /** Reference accounts (usernames without @). */
  accounts: z.array(z.string().min(1).max(100)).max(100).optional(),
  /** How many posts or actions the routine aims at. */
  count: z.number().int().min(0).max(1000).optional(),
  /** How long the routine runs. */
  minutes: z.number().min(0).max(600).optional(),
  /** Engagement rate 0..100 (a share of posts to act on). */
  engagement: z.number().min(0).max(100).optional(),
  /** Actions the account may still take today; an action without an allowance is not limited. */
  allowances: z.partialRecord(z.enum(engagementActions), z.number().int().min(0)).optional(),
});
export type RecipeParams = z.infer<typeof recipeParams>;

/** Parameter names a template may use, with whether they are lists. */
export const templateParams: Record<string, 'text' | 'list' | 'number'> = {
  caption: 'text',
  hashtags: 'list',
  media: 'list',
  keywords: 'list',
  accounts: 'list',
  count: 'number',
  minutes: 'number',
  engagement: 'number',
};

const name = z.string().regex(/^[a-z][a-z0-9_]*$/, 'Use lower-case letters, digits and _ (starting with a letter).');
const countText = z.string().refine((value) => COUNT_PATTERN.test(value) || isSingleTemplate(value), 'Write a count as 5, 5..12 or {{count}}.');
const count = z.union([z.number().int().min(0).max(10_000), countText]);
const duration = z.union([
  z.number().min(0).max(3_600_000),
  z.string().refine((value) => DURATION_PATTERN.test(value), 'Write a duration as 800ms, 2s, 2..6s or 1..3m.'),
]);
const chance = z.union([
  z.number().min(0).max(1),
  z.string().regex(/^(?:\d+(?:\.\d+)?|\{\{\s*[A-Za-z_]\w*\s*\}\})%$/, 'Write a chance as 0.3, 30% or {{engagement}}%.'),
]);

function isSingleTemplate(value: string): boolean {
  return new RegExp(`^${TEMPLATE_PATTERN.source}$`).test(value.trim());
}

/**
 * A selector's pattern, checked by the engine that will match it (RE2, `recipe.pattern.ts`): one it cannot run is
 * refused naming the field, so neither the API nor a phone ever holds a pattern that backtracks.
 */
const pattern = (field: 'textMatches' | 'descMatches') =>
  z.string().superRefine((value, context) => {
    const problem = patternProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: `The pattern in ${field} cannot run: ${problem}.` });
  });

export const selector = z
  .strictObject({
    /** resource-id, in full (`com.instagram.android:id/row_feed_button_like`) or after `:id/`. */
    id: z.string().min(1).optional(),
    /** Exact text (trimmed). */
    text: z.string().min(1).optional(),
    /** Text containing this, any case. */
    textContains: z.string().min(1).optional(),
    /** Exact content-desc (accessibility label). */
    desc: z.string().min(1).optional(),
    descContains: z.string().min(1).optional(),
    /** Text matching this regular expression, any case (TikTok's play count "x17.6K"). */
    textMatches: pattern('textMatches').optional(),
    descMatches: pattern('descMatches').optional(),
    /** Class name, in full or its last part (`EditText`). */
    class: z.string().min(1).optional(),
    /** Which of the matching nodes, 0 first; -1 the last. */
    index: z.number().int().min(-1).optional(),
    selected: z.boolean().optional(),
    /**
     * Where the selector was read: a public repository and path ("GramAddict/bot GramAddict/core/resources.py") or
     * "measured on a phone, app version X". Every selector of a shipped recipe carries one.
     */
    evidence: z.string().min(1).max(500).optional(),
    /**
     * Set when the evidence could not be read, or does not show this node on a screen: why, in a sentence. A shipped
     * recipe holding such a selector runs only where the workspace opts in (see `recipe.evidence.ts`).
     */
    unverified: z.string().min(1).max(300).optional(),
  })
  .refine(
    (value) =>
      Boolean(value.id || value.text || value.textContains || value.desc || value.descContains || value.textMatches || value.descMatches || value.class),
    'A selector needs id, text, textContains, desc, descContains, textMatches, descMatches or class.',
  );
export type Selector = z.infer<typeof selector>;

/** A point as a share of the screen (0..1), or in pixels of the screen size it was measured on (`of`). */
export const point = z
  .strictObject({
    x: z.number().min(0),
    y: z.number().min(0),
    of: z.strictObject({ width: z.number().int().positive(), height: z.number().int().positive() }).optional(),
  })
  .refine(
    (value) => (value.of ? value.x <= value.of.width && value.y <= value.of.height : value.x <= 1 && value.y <= 1),
    'A point is a share of the screen (0..1), or pixels within the size given in "of".',
  );
export type RecipePoint = z.infer<typeof point>;

/**
 * A selector with alternatives tried in order, and a `fallback` point: used only by a step marked `positional`, and
 * only while the screen cannot be read (on a read screen where no selector finds the element, that step is a miss).
 */
export const element = z
  .strictObject({
    ...selector.def.shape,
    or: z.array(selector).max(10).optional(),
    fallback: point.optional(),
  })
  .refine(
    (value) =>
      Boolean(
        value.id ||
          value.text ||
          value.textContains ||
          value.desc ||
          value.descContains ||
          value.textMatches ||
          value.descMatches ||
          value.class ||
          value.or?.length,
      ),
    'An element needs a selector or alternatives ("or").',
  );
export type ElementSpec = z.infer<typeof element>;

/**
 * Where a step acts: a named element of the recipe, an element, or a bare point. A bare point is accepted only as the
 * target of a `tap`, `long_press` or `type` marked `positional` that counts no action, and is acted on only while the
 * screen cannot be read; anywhere else (a step without `positional`, a counting step, a wait, a check, a guard, a
 * popup, a confirmation) the recipe is refused with a sentence naming the field: a point cannot be looked for.
 */
export const target = z.union([name, element, z.strictObject({ point })]);
export type Target = z.infer<typeof target>;

const base = {
  label: z.string().max(120).optional(),
  /** Parameters the step needs; it is left out when any is missing or empty (no keywords given: no searching). */
  needs: z.array(z.string().min(1)).optional(),
};
const act = {
  ...base,
  chance: chance.optional(),
  optional: z.boolean().optional(),
  timeout: duration.optional(),
  /**
   * The step may use its element's `fallback` point (or its bare point), and only while the screen cannot be read:
   * a screen read without the element is a miss, never a tap. Refused on a step that counts an action.
   */
  positional: z.boolean().optional(),
};

/**
 * An Android activity: a Java class name, in full or after the package (`.ShareActivity`). Nothing else, `$` included:
 * the name reaches `am start -n` on the phone's shell.
 */
const activityName = z
  .string()
  .max(300)
  .regex(
    /^\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/,
    'An activity is a class name like com.instagram.share.handleractivity.ShareHandlerActivity: letters, digits, _ and dots only.',
  );

const openApp = z.strictObject({ ...base, do: z.literal('open_app'), package: z.string().min(1).optional(), activity: activityName.optional() });
const openUrl = z.strictObject({ ...base, do: z.literal('open_url'), url: z.string().min(1), package: z.string().min(1).optional() });
const waitFor = z.strictObject({
  ...base,
  do: z.literal('wait_for'),
  target,
  timeout: duration.optional(),
  optional: z.boolean().optional(),
  reason: recipeFailureCode.optional(),
  message: z.string().max(300).optional(),
});
/** A state an element can be in, read from the same node: `selected`, `checked`, or its words. */
export const elementState = z
  .strictObject({
    selected: z.boolean().optional(),
    checked: z.boolean().optional(),
    text: z.string().min(1).optional(),
    textContains: z.string().min(1).optional(),
    desc: z.string().min(1).optional(),
    descContains: z.string().min(1).optional(),
    evidence: z.string().min(1).max(500).optional(),
    /** Set when no readable source shows the node in this state: why, in a sentence (as on a selector). */
    unverified: z.string().min(1).max(300).optional(),
  })
  .refine(
    (value) => [value.selected, value.checked, value.text, value.textContains, value.desc, value.descContains].some((field) => field !== undefined),
    'A state needs selected, checked, text, textContains, desc or descContains.',
  );
export type ElementState = z.infer<typeof elementState>;

/**
 * What shows once an action took: the step counts only then. `failed` ends the wait at once (an upload that could
 * not be posted). Without `reason` an unconfirmed action is a miss; with it the run ends with that reason.
 */
const confirm = z.strictObject({
  present: target,
  /** The work under way (Instagram's pending-upload row): never a confirmation, showing or gone; said at the limit. */
  finished: target.optional(),
  failed: target.optional(),
  /** Default: 3 minutes for a post of images, 10 for video, 10 s for anything else. */
  timeout: duration.optional(),
  reason: recipeFailureCode.optional(),
  message: z.string().max(300).optional(),
});
export type ConfirmSpec = z.infer<typeof confirm>;

const tap = z.strictObject({
  ...act,
  do: z.literal('tap'),
  target,
  counts: z.enum(engagementActions).optional(),
  double: z.boolean().optional(),
  confirm: confirm.optional(),
});
/**
 * A like, follow or save: the element is read first and tapped only in its `off` state (already `on`: left out, not
 * a miss), then read again until it shows `on` (else a miss). Never a point.
 */
const toggle = z.strictObject({
  ...base,
  do: z.literal('toggle'),
  target: z.union([name, element]),
  off: z.array(elementState).min(1),
  on: z.array(elementState).min(1),
  counts: z.enum(engagementActions).optional(),
  chance: chance.optional(),
  optional: z.boolean().optional(),
  timeout: duration.optional(),
  /** How long the `on` state may take to show. */
  within: duration.optional(),
});
/** Pushes every file of a list parameter, has the media store index them, and shares them to the app's share activity. */
const shareMedia = z.strictObject({
  ...base,
  do: z.literal('share_media'),
  /** A list parameter of files on the farm host (default `media`). */
  from: z.string().min(1).optional(),
  activity: activityName,
  dir: z
    .string()
    .regex(/^\/[\w./-]+$/)
    .optional(),
  text: z.string().max(2200).optional(),
});
const longPress = z.strictObject({ ...act, do: z.literal('long_press'), target, duration: duration.optional() });
const type = z.strictObject({
  ...act,
  do: z.literal('type'),
  text: z.string().min(1),
  target: target.optional(),
  counts: z.enum(engagementActions).optional(),
  confirm: confirm.optional(),
});
const swipe = z.strictObject({
  ...base,
  do: z.literal('swipe'),
  direction: z.enum(['up', 'down', 'left', 'right']),
  count: count.optional(),
  /** Between swipes (and after the last). */
  pause: duration.optional(),
  /** Share of the screen travelled, 0.1..0.9. */
  distance: z.number().min(0.1).max(0.9).optional(),
  /** How long one swipe takes. */
  speed: duration.optional(),
});
const key = z.strictObject({ ...base, do: z.literal('key'), key: z.enum(keyNames), count: count.optional() });
const pushMedia = z.strictObject({
  ...base,
  do: z.literal('push_media'),
  from: z.string().min(1),
  dir: z
    .string()
    .regex(/^\/[\w./-]+$/)
    .optional(),
  as: name.optional(),
});
const expectStep = z.strictObject({
  ...base,
  do: z.literal('expect'),
  target,
  timeout: duration.optional(),
  reason: recipeFailureCode.optional(),
  message: z.string().max(300).optional(),
});
const pause = z.strictObject({ ...base, do: z.literal('pause'), for: duration });

export { handOverKinds, type HandOverKind };

/**
 * Hands a post to a VA (`kind: comment`): the run reads the post's author (the first word of `author`'s text, else
 * its description, nearest above `near`), takes the frame and reports them; it types nothing and counts nothing (the
 * VA's done task counts the comment). `near` is the post's own comment button: when it is absent (comments turned
 * off, an ad the recipe skips) nothing is handed over. The round goes on either way.
 */
const handOver = z
  .strictObject({
    ...base,
    do: z.literal('hand_over'),
    kind: z.enum(handOverKinds),
    /** The element whose words start with the author's handle (Instagram's post header, TikTok's avatar). */
    author: z.union([name, element]).optional(),
    /** The author when the recipe already knows it: `{{account}}` in a round over reference accounts. */
    authorIs: z.string().min(1).max(200).optional(),
    /** The element the post is commented through; the author is read nearest above it. */
    near: z.union([name, element]).optional(),
    /** The post's address, when the recipe knows it (none of the apps shows it on screen). */
    link: z.string().min(1).max(500).optional(),
    chance: chance.optional(),
    timeout: duration.optional(),
  })
  .refine((step) => step.author !== undefined || step.authorIs !== undefined, 'A hand_over needs author (an element to read) or authorIs.');

export type Step =
  | z.infer<typeof openApp>
  | z.infer<typeof openUrl>
  | z.infer<typeof waitFor>
  | z.infer<typeof tap>
  | z.infer<typeof toggle>
  | z.infer<typeof shareMedia>
  | z.infer<typeof longPress>
  | z.infer<typeof type>
  | z.infer<typeof swipe>
  | z.infer<typeof key>
  | z.infer<typeof pushMedia>
  | z.infer<typeof expectStep>
  | z.infer<typeof pause>
  | z.infer<typeof handOver>
  | RepeatStep
  | WhenStep;

export interface RepeatStep {
  label?: string | undefined;
  needs?: string[] | undefined;
  chance?: number | string | undefined;
  do: 'repeat';
  /** How many rounds: 3, 5..12, {{count}}. */
  times?: number | string | undefined;
  /** Rounds go on until this many minutes passed: 10 or {{minutes}}. */
  minutes?: number | string | undefined;
  /** One round per item of a list parameter, the item named by `as`. */
  each?: string | undefined;
  as?: string | undefined;
  /** Stops once every listed action's allowance for today is spent. */
  until_spent?: EngagementAction[] | undefined;
  /** A ceiling on rounds, whatever else says. */
  max?: number | undefined;
  steps: Step[];
  /** Steps after every round, also one a miss or a skip ended early (the swipe to the next post). */
  after?: Step[] | undefined;
}

export interface WhenStep {
  label?: string | undefined;
  needs?: string[] | undefined;
  chance?: number | string | undefined;
  do: 'when';
  /** Runs `steps` when this is on screen, else `else`. */
  present: Target;
  timeout?: number | string | undefined;
  steps: Step[];
  else?: Step[] | undefined;
}

export const recipeStep: z.ZodType<Step> = z.lazy(() =>
  z.discriminatedUnion('do', [
    openApp,
    openUrl,
    waitFor,
    tap,
    toggle,
    shareMedia,
    longPress,
    type,
    swipe,
    key,
    pushMedia,
    expectStep,
    pause,
    handOver,
    z
      .strictObject({
        ...base,
        do: z.literal('repeat'),
        times: count.optional(),
        minutes: z.union([z.number().min(0).max(600), z.string().refine(isSingleTemplate, 'Write minutes as a number or {{minutes}}.')]).optional(),
        each: z.string().min(1).optional(),
        as: name.optional(),
        until_spent: z.array(z.enum(engagementActions)).min(1).optional(),
        max: z.number().int().min(1).max(100_000).optional(),
        chance: chance.optional(),
        steps: z.array(recipeStep).min(1),
        after: z.array(recipeStep).optional(),
      })
      .refine(
        (step) => step.times !== undefined || step.minutes !== undefined || step.each !== undefined || step.until_spent !== undefined,
        'A repeat needs times, minutes, each or until_spent.',
      ),
    z.strictObject({
      ...base,
      do: z.literal('when'),
      present: target,
      timeout: duration.optional(),
      chance: chance.optional(),
      steps: z.array(recipeStep).min(1),
      else: z.array(recipeStep).optional(),
    }),
  ]),
);

const guard = z.strictObject({ when: target, reason: recipeFailureCode, message: z.string().min(1).max(300) });

/** Ordinary content a round leaves out with its reason (a private profile, comments turned off, no results, an ad). */
const skip = z.strictObject({
  when: z.union([name, element]),
  reason: z.string().min(1).max(200),
  /**
   * Where posts sit one under another (Instagram's feed), the marker counts only between the nearest `item` node
   * above the element acted on and that element: the ad's own header, not the next post's.
   */
  item: z.union([name, element]).optional(),
  /** The named elements it stands in for: the skip counts only while one of these is looked for. Absent: any. */
  for: z.array(name).min(1).optional(),
  /**
   * The marker counts only while the element looked for is not on screen: a post showing its like button but no
   * comment button has comments turned off (GramAddict's rule), a skip rather than a miss.
   */
  absent: z.literal(true).optional(),
});

/** How a run reaches a known start, after the app is force-stopped and launched. */
const start = z.strictObject({
  /** What shows on the app's main screen (its tab bar); the run waits for it. */
  home: z.union([name, element]),
  /** What a signed-out app shows instead of `home` (its login screen): the run ends `login_required`. */
  signedOut: z.union([name, element]).optional(),
  /**
   * Other screens an app may show instead of `home` (a suspension page), each ending the run with its reason. Looked
   * for, like `signedOut`, only while `home` does not show, so their words may be anywhere on that screen.
   */
  instead: z.array(guard).optional(),
  /** Steps back to `home` when it does not show after launch (a draft's "Discard"). */
  back: z.array(recipeStep).optional(),
  /** Reading the signed-in account: steps to its own profile, the element whose text is the username, steps back. */
  account: z
    .strictObject({
      open: z.array(recipeStep).min(1),
      read: z.union([name, element]),
      /** Steps that switch to `{{account}}` where the phone holds several accounts. */
      switch: z.array(recipeStep).optional(),
      close: z.array(recipeStep).optional(),
    })
    .optional(),
});

const packageName = z.string().regex(/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/, 'An Android package name, like com.instagram.android.');
const appVersion = z.string().regex(/^\d+(\.\d+)*$/, 'An app version, like 360.0.0.52.192.');

export const recipe = z
  .strictObject({
    /** Stable name, e.g. `instagram.warmup`; a workspace recipe with the same id and a higher version replaces it. */
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,79}$/, 'Use lower-case letters, digits, dots, dashes and _.'),
    version: z.number().int().min(1),
    name: z.string().min(1).max(120),
    platform: z.enum(recipePlatforms),
    routines: z.array(z.enum(routineTypes)).min(1),
    app: z.strictObject({
      package: packageName,
      /** The app version the selectors were read from. */
      writtenFor: z.string().min(1).max(40),
      /** The recipe applies from this app version (inclusive) ... */
      minVersion: z
        .string()
        .regex(/^\d+(\.\d+)*$/)
        .optional(),
      /** ... up to this one (exclusive). */
      belowVersion: z
        .string()
        .regex(/^\d+(\.\d+)*$/)
        .optional(),
      /** Every package name the recipe drives (TikTok: com.zhiliaoapp.musically and com.ss.android.ugc.trill); `package` first when absent. */
      packages: z.array(packageName).min(1).max(5).optional(),
      /**
       * The app versions the recipe was tested on, both inclusive, for all its packages or per package; another
       * version fails `app_version_untested` unless the work allows it.
       */
      tested: z
        .union([
          z.strictObject({ min: appVersion, max: appVersion }),
          z
            .array(
              z.strictObject({
                package: packageName,
                min: appVersion,
                max: appVersion,
                evidence: z.string().min(1).max(500).optional(),
                /** Set when the range's evidence could not be read: why, in a sentence. */
                unverified: z.string().min(1).max(300).optional(),
              }),
            )
            .min(1),
        ])
        .optional(),
      /** The UI language the recipe's words are written for ("en"). */
      locale: z
        .string()
        .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/)
        .optional(),
    }),
    /** False until a farm ran it on its own phones and app version. Shipped recipes are templates. */
    verified: z.boolean().default(false),
    notes: z.string().max(2000).optional(),
    /** Parameter values used when the work gives none (a warm-up's like rate). */
    defaults: recipeParams
      .omit({ allowances: true })
      // A recipe never names a file: whatever path it carried would be pushed from the farm host to the phone.
      .refine((value) => value.media === undefined, {
        path: ['media'],
        message: "A recipe carries no media: files come only from the work's own uploads, so remove defaults.media.",
      })
      .optional(),
    elements: z.record(name, element).optional(),
    /** Screens that end the run with a reason whenever they appear (login, blocks, limits). */
    guards: z.array(guard).optional(),
    /** Popups tapped away whenever they appear ("Not now"). Selectors with words look only inside `dialogs`. */
    dismiss: z.array(target).optional(),
    /**
     * The app's dialog and sheet containers (`dialog_root_view`, `bottom_sheet_container_view`). Guards and popups
     * that match words look only inside these and Android's alert ids, never at feed, caption or comment text.
     */
    dialogs: z.array(selector).optional(),
    skips: z.array(skip).optional(),
    start: start.optional(),
    steps: z.array(recipeStep).min(1),
  })
  .superRefine((value, context) => checkReferences(value, context));
export type Recipe = z.infer<typeof recipe>;
export type RecipeInput = z.input<typeof recipe>;

type IssuePath = (string | number)[];

/** The checks a recipe's references go through, sharing its element names and the issues they raise. */
interface ReferenceChecker {
  issue: (path: IssuePath, message: string) => void;
  /** `point`: what a bare point here gets, a sentence refusing it, or null where a positional step may tap it. */
  target: (item: Target | undefined, path: IssuePath, scope: Set<string>, point?: string | null) => void;
  text: (text: string, path: IssuePath, scope: Set<string>) => void;
  confirm: (item: ConfirmSpec | undefined, at: IssuePath, scope: Set<string>) => void;
  walk: (steps: Step[], path: IssuePath, scope: Set<string>) => void;
}

/** Every named element used exists; every template names a parameter or a variable in scope. */
function checkReferences(value: Omit<Recipe, 'verified'>, context: z.RefinementCtx): void {
  const elements = new Set(Object.keys(value.elements ?? {}));
  const check = referenceChecker(elements, context);
  const params = new Set(Object.keys(templateParams));
  for (const [key, spec] of Object.entries(value.elements ?? {})) check.target(spec, ['elements', key], params);
  for (const [index, item] of (value.skips ?? []).entries()) {
    for (const used of item.for ?? []) if (!elements.has(used)) check.issue(['skips', index, 'for'], `No element named "${used}" in this recipe's elements.`);
    check.target(item.when, ['skips', index, 'when'], params);
    check.target(item.item, ['skips', index, 'item'], params);
  }
  if (value.start) {
    check.target(value.start.home, ['start', 'home'], params);
    check.target(value.start.signedOut, ['start', 'signedOut'], params);
    for (const [index, item] of (value.start.instead ?? []).entries()) check.target(item.when, ['start', 'instead', index, 'when'], params);
    check.walk(value.start.back ?? [], ['start', 'back'], new Set(params));
    if (value.start.account) {
      const withAccount = new Set([...params, 'account']);
      check.walk(value.start.account.open, ['start', 'account', 'open'], new Set(withAccount));
      check.target(value.start.account.read, ['start', 'account', 'read'], withAccount);
      check.walk(value.start.account.switch ?? [], ['start', 'account', 'switch'], new Set(withAccount));
      check.walk(value.start.account.close ?? [], ['start', 'account', 'close'], new Set(withAccount));
    }
  }
  for (const [index, item] of (value.guards ?? []).entries()) check.target(item.when, ['guards', index, 'when'], params);
  for (const [index, item] of (value.dismiss ?? []).entries()) check.target(item, ['dismiss', index], params);
  check.walk(value.steps, ['steps'], params);
}

/** Comment text is a person's work: a recipe that would type it is refused, naming what to do instead. */
export const COMMENTS_REFUSED =
  'Comments are written by a VA: a recipe never types comment text ({{comments}} is not a parameter). Use a "hand_over" step with kind "comment", which hands the post to a VA as a task.';

function referenceChecker(elements: Set<string>, context: z.RefinementCtx): ReferenceChecker {
  const check: ReferenceChecker = {
    issue: (path, message) => context.addIssue({ code: 'custom', path, message }),
    target: (item, path, scope, point = POINT_LOOKED_FOR) => {
      if (item === undefined) return;
      if (typeof item === 'string') {
        if (!elements.has(item)) check.issue(path, `No element named "${item}" in this recipe's elements.`);
        return;
      }
      if ('point' in item) {
        if (point !== null) check.issue([...path, 'point'], point);
        return;
      }
      for (const [field, text] of Object.entries(item)) if (typeof text === 'string') check.text(text, [...path, field], scope);
      for (const [index, alternative] of (item.or ?? []).entries())
        for (const [field, text] of Object.entries(alternative)) if (typeof text === 'string') check.text(text, [...path, 'or', index, field], scope);
    },
    text: (text, path, scope) => {
      if (templateNames(text).some((used) => used.name === 'comments')) {
        check.issue(path, COMMENTS_REFUSED);
        return;
      }
      if (hasStrayBraces(text)) check.issue(path, `"${text}" has a {{ or }} that is not a placeholder like {{caption}}.`);
      for (const used of templateNames(text)) {
        if (!scope.has(used.name))
          check.issue(path, `"{{${used.name}}}" is not a parameter or a variable here (parameters: ${Object.keys(templateParams).join(', ')}).`);
        if (used.filter !== null && !(used.filter in templateFilters))
          check.issue(path, `"${used.filter}" is not a template filter (use ${Object.keys(templateFilters).join(', ')}).`);
      }
    },
    confirm: (item, at, scope) => {
      if (!item) return;
      check.target(item.present, [...at, 'confirm', 'present'], scope);
      check.target(item.failed, [...at, 'confirm', 'failed'], scope);
      check.target(item.finished, [...at, 'confirm', 'finished'], scope);
    },
    walk: (steps, path, scope) => {
      for (const [index, step] of steps.entries()) {
        const at = [...path, index];
        for (const needed of step.needs ?? [])
          if (needed === 'comments') check.issue([...at, 'needs'], COMMENTS_REFUSED);
          else if (!scope.has(needed)) check.issue([...at, 'needs'], `"${needed}" is not a parameter or a variable here.`);
        checkStep(check, step, at, scope);
      }
    },
  };
  return check;
}

/** One step's references; a `type` or `push_media … as` adds its variable to the scope of the steps after it. */
function checkStep(check: ReferenceChecker, step: Step, at: IssuePath, scope: Set<string>): void {
  switch (step.do) {
    case 'open_url':
      check.text(step.url, [...at, 'url'], scope);
      break;
    case 'wait_for':
    case 'expect':
      check.target(step.target, [...at, 'target'], scope);
      break;
    case 'tap':
    case 'long_press':
      checkPositional(check, step, at, scope);
      if (step.do === 'tap') check.confirm(step.confirm, at, scope);
      break;
    case 'toggle':
      check.target(step.target, [...at, 'target'], scope);
      break;
    case 'share_media':
      if (step.from !== undefined && templateParams[step.from] !== 'list' && !scope.has(step.from))
        check.issue([...at, 'from'], `"${step.from}" is not a list parameter.`);
      if (step.text !== undefined) check.text(step.text, [...at, 'text'], scope);
      break;
    case 'type':
      check.text(step.text, [...at, 'text'], scope);
      checkPositional(check, step, at, scope);
      // What was typed is `{{typed}}` afterwards, so a confirmation can look for the very comment typed.
      scope.add('typed');
      check.confirm(step.confirm, at, scope);
      break;
    case 'push_media':
      check.text(step.from, [...at, 'from'], scope);
      // Only the task's downloaded media may go to the phone, never a path on the farm PC written in the recipe.
      if (!/^\{\{\s*[A-Za-z_][\w]*\s*\}\}$/.test(step.from))
        check.issue(
          [...at, 'from'],
          `push_media copies only the task's media: "from" must be one placeholder like {{item}} in a repeat over {{media}}, not a path.`,
        );
      if (step.as) scope.add(step.as);
      break;
    case 'repeat': {
      const inner = new Set(scope);
      if (step.each !== undefined) {
        if (templateParams[step.each] !== 'list' && !scope.has(step.each))
          check.issue(
            [...at, 'each'],
            `"${step.each}" is not a list parameter (lists: ${Object.entries(templateParams)
              .filter(([, kind]) => kind === 'list')
              .map(([key]) => key)
              .join(', ')}).`,
          );
        inner.add(step.as ?? 'item');
      }
      if (typeof step.times === 'string') check.text(step.times, [...at, 'times'], scope);
      if (typeof step.minutes === 'string') check.text(step.minutes, [...at, 'minutes'], scope);
      check.walk(step.steps, [...at, 'steps'], inner);
      check.walk(step.after ?? [], [...at, 'after'], new Set(inner));
      break;
    }
    case 'hand_over':
      check.target(step.author, [...at, 'author'], scope);
      check.target(step.near, [...at, 'near'], scope);
      if (step.authorIs !== undefined) check.text(step.authorIs, [...at, 'authorIs'], scope);
      if (step.link !== undefined) check.text(step.link, [...at, 'link'], scope);
      break;
    case 'when':
      check.target(step.present, [...at, 'present'], scope);
      check.walk(step.steps, [...at, 'steps'], new Set(scope));
      check.walk(step.else ?? [], [...at, 'else'], new Set(scope));
      break;
    default:
      break;
  }
}

/** A point where something is looked for on screen (a wait, a check, a guard, a popup, a confirmation). */
const POINT_LOOKED_FOR = 'A point cannot be looked for on screen: give it a selector (id, text or desc).';

/**
 * The positional rule of an acting step (`tap`, `long_press`, `type`): a point, bare or an element's `fallback`, is
 * used only by a step marked `positional` and only while the screen cannot be read; a step that counts an action
 * (a like, follow, comment or post) never uses one, so it is refused with a sentence naming the field.
 */
function checkPositional(check: ReferenceChecker, step: Extract<Step, { do: 'tap' | 'long_press' | 'type' }>, at: IssuePath, scope: Set<string>): void {
  const counts = 'counts' in step ? step.counts : undefined;
  const counted = counts ? `A step that counts a ${counts} cannot ${step.do === 'type' ? 'type at' : 'tap'} a point: give it a selector` : null;
  if (counted && step.positional) check.issue([...at, 'positional'], `${counted} and leave out "positional".`);
  const bare =
    counted !== null
      ? `${counted}.`
      : step.positional
        ? null
        : `A point is ${step.do === 'type' ? 'typed at' : 'tapped'} only by a step marked "positional": true, and only while the screen cannot be read: give this step a selector, or mark it positional.`;
  check.target(step.target, [...at, 'target'], scope, bare);
}

/** Parses a recipe, answering a readable list of what is wrong (`steps.3.target: No element named "like"`). */
export function parseRecipe(input: unknown): { ok: true; recipe: Recipe } | { ok: false; errors: string[] } {
  const parsed = recipe.safeParse(input);
  if (parsed.success) return { ok: true, recipe: parsed.data };
  return { ok: false, errors: parsed.error.issues.map((item) => `${item.path.join('.') || 'recipe'}: ${item.message}`) };
}
