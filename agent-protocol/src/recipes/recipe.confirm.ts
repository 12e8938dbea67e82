/**
 * Whether an action took on the phone: a toggle read before and after its tap, typed text read back from the field,
 * and a step's confirmation waited for (with its fallbacks for a post and a video, and the toasts some readers cannot
 * see). Apps change how they confirm more often than how they are tapped, so these checks have their own room.
 */
import { PhoneError, type Point } from '../phone/phone.device.ts';
import { describeStep } from './recipe.describe.ts';
import type { Locator } from './recipe.locate.ts';
import { Cancelled, StepFailure, type Scope, type StepProgress } from './recipe.outcome.ts';
import type { ConfirmSpec, ElementState, EngagementAction, Step, Target } from './recipe.schema.ts';
import type { RunState } from './recipe.state.ts';
import { centerOf, type UiNode, type UiScreen } from './recipe.ui.ts';

const VIDEO_FILE = /\.(mp4|mov|m4v|3gp|webm|mkv)$/i;

/** How a step ends: left out with a reason, or done (with what it says). */
export interface StepEnd {
  skip: (detail: string) => void;
  finish: (extra?: Partial<StepProgress>) => void;
}

export class Confirmations {
  /** Failure notices on screen before the upload started, by the `failed` target they match (stale, not this run's). */
  private readonly stale = new Map<Target, number>();

  constructor(
    private readonly run: RunState,
    private readonly locator: Locator,
  ) {}

  /** Reads the toggle's state first, taps it only when off, and counts it only once it reads on. */
  async toggle(step: Extract<Step, { do: 'toggle' }>, scope: Scope, { skip, finish }: StepEnd): Promise<void> {
    const { run, locator } = this;
    const found = await locator.locate(step.target, run.duration(step.timeout, 5_000), scope, { skips: true });
    if (!found.node) {
      // A toggle that counts (a like, a follow) was expected on this post: its absence is how a renamed id shows, so
      // it is a miss even when marked optional, and five in a row end the run `app_changed`.
      if (step.optional && !step.counts) return skip('Not on screen; optional.');
      throw await locator.absent(step.target);
    }
    const node = found.node;
    if (this.inState(node, step.on, scope)) {
      run.hit();
      return skip(`Already ${stateWords(step.on)}; left alone.`);
    }
    // Read by its state and its words together: where they disagree (selected, yet "Like") the post is left alone, and
    // it is a miss (five in a row end the run), never a found element that resets the count.
    if (!this.inState(node, step.off, scope))
      throw run.miss(
        `${describeStep(step)}: it reads neither ${stateWords(step.off)} nor ${stateWords(step.on)} ("${node.text || node.desc}", selected ${node.selected}).`,
      );
    run.hit();
    const at = centerOf(node.bounds);
    await run.phone.tap(at.x, at.y);
    const deadline = run.clock.now() + run.duration(step.within, 3_000);
    for (;;) {
      await run.clock.sleep(Math.min(run.options.pollMs ?? 1000, Math.max(1, deadline - run.clock.now())));
      const read = await locator.read();
      // A block dialog often answers the tap itself: guards look at every screen read while waiting (a popup tapped
      // away leaves this look without a screen to judge).
      const screen = read && (await locator.guard(read, scope)) ? null : read;
      if (screen) {
        // The same element: the match nearest where the tap landed (a previous post's button can stay in the tree).
        const spec = locator.element(step.target);
        const candidates = locator.findAll(screen, spec, scope);
        const nearest = candidates.sort((a, b) => distance(centerOf(a.bounds), at) - distance(centerOf(b.bounds), at))[0];
        if (nearest && this.inState(nearest, step.on, scope)) {
          if (step.counts) run.actions[step.counts] += 1;
          return finish({ point: at, ...(step.counts ? { action: step.counts } : {}) });
        }
      }
      if (run.clock.now() >= deadline) {
        if (!run.readLast) throw locator.unreadable(step.target);
        throw run.miss(`${describeStep(step)}: tapped, but it never read ${stateWords(step.on)}.`);
      }
    }
  }

  /** Replaces the field's text, then checks what landed; once more when it differs, then a miss. */
  async typeChecked(value: string, at: Point | undefined): Promise<void> {
    const same = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();
    let landed: string | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        landed = await this.run.phone.setText(value, at);
      } catch (error) {
        if (error instanceof PhoneError && error.code === 'unsupported') throw new StepFailure('unknown', error.message);
        throw error;
      }
      if (landed === null) landed = await this.focusedText(at);
      // Nothing readable to check against: the reader answered what it could.
      if (landed === null || same(landed, value)) return;
    }
    throw this.run.miss(`The field shows "${(landed ?? '').slice(0, 80)}" after typing "${value.slice(0, 80)}".`);
  }

  /**
   * Notes the app's failure notices on screen before an upload starts (the share): a banner left by an earlier failed
   * upload is stale and must not fail the new one (public code reads Instagram's "Video can't be posted" row as a
   * leftover, YallaPapi/geelark-automation@8922f15 screen_detector.py lines 261-265). The recipe dismisses such banners
   * first; one that stays is counted here and only a further one counts against the new upload.
   */
  async noteStale(scope: Scope): Promise<void> {
    const { run, locator } = this;
    const failed = confirmSpecs(run.recipe.steps).flatMap((spec) => (spec.failed === undefined ? [] : [spec.failed]));
    this.stale.clear();
    if (failed.length === 0) return;
    const screen = await locator.read();
    if (!screen) return;
    for (const target of failed) this.stale.set(target, this.shownNodes(screen, target, scope).length);
  }

  /**
   * Waits for the confirmation: only `present` confirms (the words or element evidence shows the app gives on success).
   * `failed` ends the run at once, unless it is a stale notice seen before the upload started; `finished` (the work
   * under way, such as Instagram's pending row) never confirms: a row that scrolls off or goes says nothing of how it
   * ended. At the limit the recipe's reason ends the run.
   */
  async confirm(spec: ConfirmSpec, scope: Scope, counts: EngagementAction | undefined): Promise<boolean> {
    const { run, locator } = this;
    if (!run.seesToasts && locator.isToastOnly(spec.present)) {
      // Waiting would only run out the clock: say at once that this phone cannot see the confirmation.
      const message = "The app confirms this only with a toast, which this phone's UI reader cannot see; check it on the phone.";
      if (spec.reason) throw new StepFailure(spec.reason, message);
      return false;
    }
    const media = scope.get('media');
    const video = Array.isArray(media) ? media.some((file) => VIDEO_FILE.test(file)) : typeof media === 'string' && VIDEO_FILE.test(media);
    const fallback = counts === 'post' ? (video ? 10 * 60_000 : 3 * 60_000) : 10_000;
    const deadline = run.clock.now() + run.duration(spec.timeout, fallback);
    const stale = spec.failed === undefined ? 0 : (this.stale.get(spec.failed) ?? 0);
    let underway = false;
    for (;;) {
      if (run.options.signal?.aborted) throw new Cancelled();
      const read = await locator.read();
      const screen = read && (await locator.guard(read, scope)) ? null : read;
      if (screen) {
        const failed = spec.failed === undefined ? [] : this.shownNodes(screen, spec.failed, scope);
        if (failed.length > stale) {
          const said = (failed.at(-1)?.text || failed.at(-1)?.desc || '').slice(0, 120);
          throw new StepFailure(spec.reason ?? 'post_unconfirmed', `The app said it could not finish${said ? `: "${said}"` : ''}.`);
        }
        if (locator.findTarget(screen, spec.present, scope)) return true;
        if (spec.finished && locator.findTarget(screen, spec.finished, scope)) underway = true;
      }
      if (run.clock.now() >= deadline) {
        const message = `${spec.message ?? 'The app did not confirm in time.'}${underway ? ' It still showed the work under way.' : ''}`;
        if (spec.reason) throw new StepFailure(spec.reason, message);
        if (!run.readLast) throw locator.unreadable();
        return false;
      }
      await run.clock.sleep(Math.min(Math.max(run.options.pollMs ?? 1000, 2000), Math.max(1, deadline - run.clock.now())));
    }
  }

  /** The target's nodes the screen shows (a point shows none). */
  private shownNodes(screen: UiScreen, target: Target, scope: Scope): UiNode[] {
    if (typeof target !== 'string' && 'point' in target) return [];
    return this.locator.findAll(screen, this.locator.element(target), scope);
  }

  /** What the focused field (or the field at `at`) holds, read from the screen. */
  private async focusedText(at: Point | undefined): Promise<string | null> {
    const screen = await this.locator.read();
    if (!screen) return null;
    const fields = screen.nodes.filter((node) => /EditText|AutoCompleteTextView/.test(node.className));
    const inside = (node: UiNode) => at && at.x >= node.bounds.left && at.x < node.bounds.right && at.y >= node.bounds.top && at.y < node.bounds.bottom;
    const field = fields.find((node) => node.focused) ?? fields.find(inside) ?? null;
    return field ? field.text : null;
  }

  private inState(node: UiNode, states: ElementState[], scope: Scope): boolean {
    return states.some((state) => this.locator.matches(node, state, scope));
  }
}

function stateWords(states: ElementState[]): string {
  return states
    .map((state) => {
      const flag =
        state.selected !== undefined
          ? state.selected
            ? 'selected'
            : 'not selected'
          : state.checked !== undefined
            ? state.checked
              ? 'checked'
              : 'unchecked'
            : null;
      const words = state.text ?? state.textContains ?? state.desc ?? state.descContains;
      return [flag, words === undefined ? null : `"${words}"`].filter(Boolean).join(' and ');
    })
    .join(' or ');
}

function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** Every confirmation the recipe's steps wait for, however deep in repeats and branches. */
function confirmSpecs(steps: readonly Step[]): ConfirmSpec[] {
  return steps.flatMap((step): ConfirmSpec[] => {
    const own = 'confirm' in step && step.confirm ? [step.confirm] : [];
    if (step.do === 'repeat') return [...own, ...confirmSpecs(step.steps), ...confirmSpecs(step.after ?? [])];
    if (step.do === 'when') return [...own, ...confirmSpecs(step.steps), ...confirmSpecs(step.else ?? [])];
    return own;
  });
}
