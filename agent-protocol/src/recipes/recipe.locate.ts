/**
 * Finding things on the phone's screen for a run: reading it (busy screens retried), matching an element's selectors
 * and alternatives, the guards and popups that look only inside dialogs, the `skips` of ordinary content, waiting for
 * an element, and saying why one is missing. The step actions and the pre-flight both look through here, so the rule
 * "an element not found is a miss, never a tap" has one home.
 */
import type { FailureCode } from '../failures.ts';
import { PhoneError, UiBusyError, type Point } from '../phone/phone.device.ts';
import { recipePackages } from './recipe.coverage.ts';
import { isOnScreen, nodeMatches } from './recipe.inspect.ts';
import { Cancelled, SkipRound, StepFailure, type Scope } from './recipe.outcome.ts';
import { drawDuration } from './recipe.pacing.ts';
import type { ElementSpec, RecipePoint, Selector, Target } from './recipe.schema.ts';
import type { RunState } from './recipe.state.ts';
import type { TraceRecorder } from './recipe.trace.ts';
import { centerOf, isVisible, isWithin, parseUiXml, type UiNode, type UiScreen } from './recipe.ui.ts';

/** Android's own crash and not-responding dialogs, whatever the app: only their ids, never words on screen. */
const CRASH_DIALOG = (node: UiNode) => node.resourceId.startsWith('android:id/aerr_');

/** Android's alert dialog parts: words inside these are the system's or the app's dialog, not content. */
const ANDROID_ALERT_IDS = new Set([
  'android:id/parentPanel',
  'android:id/topPanel',
  'android:id/contentPanel',
  'android:id/customPanel',
  'android:id/buttonPanel',
  'android:id/alertTitle',
  'android:id/message',
]);

export class Locator {
  constructor(
    private readonly run: RunState,
    private readonly trace: TraceRecorder,
  ) {}

  element(target: Exclude<Target, { point: RecipePoint }>): ElementSpec {
    if (typeof target !== 'string') return target;
    const spec = this.run.recipe.elements?.[target];
    if (!spec) throw new StepFailure('unknown', `The recipe has no element named "${target}".`, false);
    return spec;
  }

  /**
   * Reads the screen; a busy screen, a reader that gave nothing (no UI server answer, no dump) or a malformed tree is
   * retried after a pause, and answers null while it stays so (an unreadable screen: nothing is tapped on it, nothing
   * waited for passes, and a step that needs it ends the run `screen_unreadable`). A phone that is gone still throws.
   */
  async read(): Promise<UiScreen | null> {
    const run = this.run;
    const retries = run.options.busyRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const screen = parseUiXml(await run.phone.dumpUi());
        run.lastScreen = screen;
        run.readLast = true;
        run.unreadableWhy = null;
        this.trace.saw(screen);
        return screen;
      } catch (error) {
        if (!isUnreadable(error)) throw error;
        if (attempt >= retries) {
          run.readLast = false;
          run.unreadableWhy = error instanceof Error ? error.message : String(error);
          return null;
        }
        await run.clock.sleep(run.options.busyPauseMs ?? 1500);
      }
    }
  }

  /**
   * The screen could not be read: the run ends here without acting on it (pressing Back on a screen nobody can see
   * may leave the app, and the next look would blame a crash). Tried again once by the server.
   */
  unreadable(target?: Target): StepFailure {
    const name = target === undefined ? null : typeof target === 'string' ? target.replace(/_/g, ' ') : 'the expected element';
    const why = this.run.unreadableWhy ? ` (${this.run.unreadableWhy.replace(/\.$/, '').slice(0, 200)})` : '';
    return new StepFailure(
      'screen_unreadable',
      `The phone's screen could not be read${why}${name ? ` while looking for ${name}` : ''}; nothing was done on it.`,
    );
  }

  matches(node: UiNode, selector: Omit<Selector, 'index' | 'evidence'> & { checked?: boolean | undefined }, scope: Scope): boolean {
    return nodeMatches(node, selector, (value) => this.run.fill(value, scope));
  }

  findTarget(screen: UiScreen, target: Target, scope: Scope): UiNode | null {
    if (typeof target !== 'string' && 'point' in target) return null;
    return this.find(screen, this.element(target), scope);
  }

  /** Every visible node any of the element's selectors matches. */
  findAll(screen: UiScreen, spec: ElementSpec, scope: Scope): UiNode[] {
    return screen.nodes.filter((node) => isOnScreen(screen, node) && selectorsOf(spec).some((selector) => this.matches(node, selector, scope)));
  }

  /** Whether a target matches only toasts (`class: Toast` on every selector), which some readers never see. */
  isToastOnly(target: Target): boolean {
    if (typeof target !== 'string' && 'point' in target) return false;
    const selectors = selectorsOf(this.element(target));
    return selectors.length > 0 && selectors.every((selector) => selector.class !== undefined && /(^|\.)Toast$/.test(selector.class));
  }

  /** Fails the run when a guard's dialog shows; taps popups away. Answers whether the screen changed. */
  async guard(screen: UiScreen, scope: Scope): Promise<boolean> {
    if (screen.nodes.some(CRASH_DIALOG)) throw new StepFailure('app_crashed', 'The app crashed or stopped responding (Android showed its dialog).');
    for (const item of this.run.recipe.guards ?? []) {
      if (typeof item.when !== 'string' && 'point' in item.when) continue;
      if (this.findInDialogs(screen, this.element(item.when), scope)) throw new StepFailure(item.reason, item.message);
    }
    for (const popup of this.run.recipe.dismiss ?? []) {
      if (typeof popup !== 'string' && 'point' in popup) continue;
      const node = this.findInDialogs(screen, this.element(popup), scope);
      if (node) {
        // A sheet's dimmer lies under the sheet: tap where the dimmer shows, or press Back when nothing of it does.
        const at = uncoveredPoint(screen, node);
        if (at) await this.run.phone.tap(at.x, at.y);
        else await this.run.phone.key('back');
        await this.run.clock.sleep(drawDuration('600..1200ms', this.run.random));
        return true;
      }
    }
    return false;
  }

  /**
   * Where the target is. `node` is the element found on a read screen; `point` where to act (its centre, or for a
   * positional step its fallback or bare point, only while the screen cannot be read: once a read screen lacked the
   * element, the step is a miss, never a tap). Neither within the timeout: not found. Inside a repeat, ordinary
   * content the recipe names (`skips`) ends the round at once when `skips` is set.
   */
  async locate(
    target: Target,
    timeoutMs: number,
    scope: Scope,
    how: { positional?: boolean; skips?: boolean } = {},
  ): Promise<{ node: UiNode | null; point: Point | null }> {
    const run = this.run;
    const bare = typeof target !== 'string' && 'point' in target ? target.point : null;
    // A point is a blind tap: older recipes may still give one, but only a positional step uses it.
    if (bare && !how.positional)
      throw new StepFailure('unknown', 'This step taps a fixed point without being marked "positional": true; points are blind taps.', false);
    const spec = bare ? null : this.element(target as Exclude<Target, { point: RecipePoint }>);
    if (spec) this.trace.looked(selectorsOf(spec)[0], null, scope);
    const fallback = how.positional ? (bare ?? spec?.fallback) : undefined;
    const deadline = run.clock.now() + timeoutMs;
    let popups = 0;
    // Whether a screen was read during this look: from then on the point is never used.
    let read = false;
    for (;;) {
      if (run.options.signal?.aborted) throw new Cancelled();
      const screen = await this.read();
      if (screen === null) {
        if (fallback && !read) return { node: null, point: run.scale(fallback) };
      } else {
        read = true;
        if (popups < 5 && (await this.guard(screen, scope))) {
          popups += 1;
          continue;
        }
        // A bare point on a read screen: nothing to find, and the point is not for a screen that can be read.
        if (!spec) return { node: null, point: null };
        const hit = this.findWith(screen, spec, scope);
        const node = hit?.node ?? null;
        this.trace.looked(hit?.selector ?? selectorsOf(spec)[0], hit ? { node: hit.node, screen } : null, scope);
        if (how.skips && run.rounds > 0) {
          const reason = this.skipOn(screen, scope, node, target);
          if (reason) throw new SkipRound(reason);
        }
        if (node) return { node, point: centerOf(node.bounds) };
      }
      if (run.clock.now() >= deadline) {
        // Not found because nothing could be read: no step acts on (or branches over) a screen it cannot see.
        if (!run.readLast) throw this.unreadable(target);
        return { node: null, point: null };
      }
      await run.clock.sleep(Math.min(run.options.pollMs ?? 1000, Math.max(1, deadline - run.clock.now())));
    }
  }

  /** Why an element is missing: the app left the screen (crash to launcher), the screen could not be read, or it never came. */
  async missing(target: Target, reason?: FailureCode, message?: string): Promise<StepFailure> {
    const name = typeof target === 'string' ? target.replace(/_/g, ' ') : 'The expected element';
    const screen = this.run.lastScreen;
    const packages = recipePackages(this.run.recipe);
    if (!reason && screen?.packageName && !packages.includes(screen.packageName) && /launcher/i.test(screen.packageName)) {
      return new StepFailure('app_crashed', `${this.run.packageName} is no longer on screen (the home screen shows).`);
    }
    if (!reason && (screen === null || !this.run.readLast)) return this.unreadable(target);
    return new StepFailure(reason ?? 'element_missing', message ?? `${capitalise(name)} did not appear on screen.`);
  }

  /**
   * An acting step's element is absent. On the app's own screen, read, that is a miss (the round ends; five in a
   * row end the run); a crash, another app or an unreadable screen end the run with their reason.
   */
  async absent(target: Target): Promise<Error> {
    const screen = this.run.lastScreen;
    const name = typeof target === 'string' ? target.replace(/_/g, ' ') : 'The expected element';
    if (screen && (screen.packageName === null || recipePackages(this.run.recipe).includes(screen.packageName)) && this.run.readLast)
      return this.run.miss(
        typeof target !== 'string' && 'point' in target
          ? 'The screen could be read, so the positional point was not tapped: a point is only for a screen that cannot be read.'
          : `${capitalise(name)} did not appear on screen.`,
      );
    return this.missing(target);
  }

  private find(screen: UiScreen, spec: ElementSpec, scope: Scope, where?: (node: UiNode, selector: Selector) => boolean): UiNode | null {
    return this.findWith(screen, spec, scope, where)?.node ?? null;
  }

  /** The node an element's selectors find first, with the selector (or alternative) that found it. */
  private findWith(
    screen: UiScreen,
    spec: ElementSpec,
    scope: Scope,
    where?: (node: UiNode, selector: Selector) => boolean,
  ): { node: UiNode; selector: Selector } | null {
    for (const selector of selectorsOf(spec)) {
      const found = screen.nodes.filter((node) => isOnScreen(screen, node) && this.matches(node, selector, scope) && (where?.(node, selector) ?? true));
      const pick = selector.index === -1 ? found[found.length - 1] : found[selector.index ?? 0];
      if (pick) return { node: pick, selector };
    }
    return null;
  }

  /** Whether a node lies inside a dialog or sheet: the recipe's containers or Android's alert parts. */
  private inDialog(screen: UiScreen, node: UiNode): boolean {
    const containers = this.run.recipe.dialogs ?? [];
    return isWithin(screen, node, (at) => ANDROID_ALERT_IDS.has(at.resourceId) || containers.some((selector) => this.matches(at, selector, new Map())));
  }

  /**
   * A guard or popup selector matching words (text or description) looks only inside dialogs and sheets: captions
   * and comments can say "try again later". One that matches an id alone may look anywhere (ids are not content).
   */
  private findInDialogs(screen: UiScreen, spec: ElementSpec, scope: Scope): UiNode | null {
    return this.find(screen, spec, scope, (node, selector) => {
      const words =
        selector.text !== undefined ||
        selector.textContains !== undefined ||
        selector.desc !== undefined ||
        selector.descContains !== undefined ||
        selector.textMatches !== undefined ||
        selector.descMatches !== undefined;
      return !words || this.inDialog(screen, node);
    });
  }

  /**
   * The reason of the first `skips` entry on screen, if any. An entry with `item` counts only for the element about
   * to be acted on (`near`): its marker must lie between the nearest item header above that element and the element.
   * One marked `absent` counts only while that element is not on screen.
   */
  private skipOn(screen: UiScreen, scope: Scope, near: UiNode | null, looking: Target): string | null {
    for (const entry of this.run.recipe.skips ?? []) {
      if (entry.for && !(typeof looking === 'string' && entry.for.includes(looking))) continue;
      if (entry.absent && near) continue;
      const markers = this.findAll(screen, this.element(entry.when), scope);
      if (!entry.item) {
        if (markers.length > 0) return entry.reason;
        continue;
      }
      if (!near) continue;
      const top = near.bounds.top;
      const headers = this.findAll(screen, this.element(entry.item), scope).filter((node) => node.bounds.top <= top);
      const header = headers.sort((a, b) => b.bounds.top - a.bounds.top)[0];
      if (!header) continue;
      if (markers.some((marker) => marker.bounds.top >= header.bounds.top && marker.bounds.top <= top)) return entry.reason;
    }
    return null;
  }
}

/**
 * A point of `node` that nothing drawn over it covers: its centre when free, else the middle of the free band above,
 * below, left or right of what covers it. Views later in the tree are drawn over earlier ones (a sheet over its
 * dimmer), so the covers are the visible nodes after it that are not inside it and overlap it. Null: none is free.
 */
export function uncoveredPoint(screen: UiScreen, node: UiNode): Point | null {
  const start = screen.nodes.indexOf(node);
  const b = node.bounds;
  const covers = screen.nodes
    .slice(start + 1)
    .filter((other) => isVisible(other) && !isWithin(screen, other, (at) => at === node))
    .map((other) => other.bounds)
    .filter((o) => o.left < b.right && o.right > b.left && o.top < b.bottom && o.bottom > b.top);
  const free = (p: Point) =>
    p.x >= b.left && p.x < b.right && p.y >= b.top && p.y < b.bottom && !covers.some((o) => p.x >= o.left && p.x < o.right && p.y >= o.top && p.y < o.bottom);
  const centre = centerOf(b);
  if (covers.length === 0) return free(centre) ? centre : null;
  const top = Math.min(...covers.map((o) => o.top));
  const bottom = Math.max(...covers.map((o) => o.bottom));
  const left = Math.min(...covers.map((o) => o.left));
  const right = Math.max(...covers.map((o) => o.right));
  const candidates: Point[] = [
    centre,
    { x: centre.x, y: Math.floor((b.top + top) / 2) },
    { x: centre.x, y: Math.floor((bottom + b.bottom) / 2) },
    { x: Math.floor((b.left + left) / 2), y: centre.y },
    { x: Math.floor((right + b.right) / 2), y: centre.y },
  ];
  return candidates.find(free) ?? null;
}

/** The selectors of an element in the order they are tried: its own, then its alternatives. */
function selectorsOf(spec: ElementSpec): Selector[] {
  const { or, fallback: _fallback, ...own } = spec;
  const hasOwn = Boolean(own.id || own.text || own.textContains || own.desc || own.descContains || own.textMatches || own.descMatches || own.class);
  return [...(hasOwn ? [own] : []), ...(or ?? [])];
}

/**
 * Whether a failed read means the screen could not be read (retried, then `screen_unreadable`): a busy screen, a
 * reader that answered nothing usable (the UI server's own error, a dump with no tree) or a malformed tree. A phone
 * gone from adb (`disconnected`, an adb command's `timeout`) is no unreadable screen: it ends the run offline.
 */
function isUnreadable(error: unknown): boolean {
  if (error instanceof UiBusyError) return true;
  if (error instanceof PhoneError) return error.code === 'ui_busy' || error.code === 'command_failed' || error.name === 'UiServerError';
  return error instanceof Error && /UI tree/.test(error.message);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
