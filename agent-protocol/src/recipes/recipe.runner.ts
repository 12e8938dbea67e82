/**
 * Runs a recipe against a phone: reads the screen with `uiautomator dump`, finds elements by the recipe's
 * selectors (falling back to scaled points), acts, and paces itself with drawn pauses. Every step reports
 * progress; the first step that cannot be done ends the run with its reason code, a message and a screenshot.
 *
 * Busy screens: `uiautomator dump` fails with "could not get idle state" while video plays. A dump is retried
 * after a pause; when the screen stays busy, an element with a fallback point is tapped there, otherwise the
 * lookup keeps trying until its timeout and fails as missing.
 */
import type { FailureCode } from '../failures.ts';
import { PhoneError, UiBusyError, type PhoneDevice, type Point, type Screenshot, type ScreenSize } from '../phone/phone.device.ts';
import { drawCount, drawDuration, systemClock, type Clock } from './recipe.pacing.ts';
import {
  engagementActions,
  type ElementSpec,
  type EngagementAction,
  type Recipe,
  type RecipeParams,
  type RecipePoint,
  type Selector,
  type Step,
  type Target,
} from './recipe.schema.ts';
import { fillTemplate, type TemplateValue } from './recipe.template.ts';
import { centerOf, isVisible, parseUiXml, type UiNode, type UiScreen } from './recipe.ui.ts';

export interface StepProgress {
  /** 1, 2, 3… in the order steps ran (repeats count again). */
  seq: number;
  /** Where the step sits in the recipe: `3` or `3.1` (0-based). */
  path: string;
  do: Step['do'];
  label: string;
  status: 'started' | 'done' | 'skipped' | 'failed';
  detail?: string;
  /** Share of the recipe's top-level steps done, 0..100. */
  percent: number;
  /** The engagement this step performed, when it counts one. */
  action?: EngagementAction;
  /** Where a tap landed, in screen pixels. */
  point?: Point;
}

export interface RecipeRunOptions {
  random?: () => number;
  clock?: Clock;
  onProgress?: (progress: StepProgress) => void;
  signal?: AbortSignal;
  /** Between two looks at the screen while waiting for an element. */
  pollMs?: number;
  /** Busy dumps retried before the fallback is used. */
  busyRetries?: number;
  busyPauseMs?: number;
  screenshotOnFailure?: boolean;
}

export interface RecipeFailure {
  code: FailureCode;
  message: string;
  /** The step's path and label. */
  step: string;
  label: string;
  screenshot?: Screenshot;
}

export interface RecipeRunResult {
  status: 'completed' | 'failed' | 'cancelled';
  recipe: { id: string; version: number };
  /** Engagement performed, for the server's daily counts. */
  actions: Record<EngagementAction, number>;
  /** Steps run to the end. */
  steps: number;
  failure?: RecipeFailure;
  startedAt: number;
  finishedAt: number;
}

class StepFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}

class Cancelled extends Error {}

/** Android's own crash and not-responding dialogs, whatever the app. */
const CRASH_DIALOG = (node: UiNode) =>
  node.resourceId === 'android:id/aerr_close' ||
  node.resourceId === 'android:id/aerr_restart' ||
  node.resourceId === 'android:id/aerr_wait' ||
  /\b(keeps stopping|has stopped|isn.t responding)\b/i.test(node.text);

type Scope = Map<string, TemplateValue>;

/** Describes a step for people watching it run. */
export function describeStep(step: Step): string {
  if (step.label) return step.label;
  const targetName = (target: Target | undefined) => {
    if (target === undefined) return '';
    if (typeof target === 'string') return target.replace(/_/g, ' ');
    if ('point' in target) return 'a point';
    return target.id ?? target.text ?? target.textContains ?? target.desc ?? target.descContains ?? target.class ?? 'an element';
  };
  switch (step.do) {
    case 'open_app':
      return `Open ${step.package ?? 'the app'}`;
    case 'open_url':
      return `Open ${step.url}`;
    case 'wait_for':
      return `Wait for ${targetName(step.target)}`;
    case 'expect':
      return `Check ${targetName(step.target)}`;
    case 'tap':
      return `Tap ${targetName(step.target)}`;
    case 'long_press':
      return `Long-press ${targetName(step.target)}`;
    case 'type':
      return 'Type text';
    case 'swipe':
      return `Swipe ${step.direction}`;
    case 'key':
      return `Press ${step.key}`;
    case 'push_media':
      return 'Copy media to the phone';
    case 'pause':
      return 'Pause';
    case 'repeat':
      return 'Repeat';
    case 'when':
      return `If ${targetName(step.present)} shows`;
  }
}

export async function runRecipe(phone: PhoneDevice, recipe: Recipe, params: RecipeParams, options: RecipeRunOptions = {}): Promise<RecipeRunResult> {
  return new RecipeRun(phone, recipe, params, options).run();
}

class RecipeRun {
  private readonly random: () => number;
  private readonly clock: Clock;
  private readonly actions = Object.fromEntries(engagementActions.map((action) => [action, 0])) as Record<EngagementAction, number>;
  private size: ScreenSize | null = null;
  private lastScreen: UiScreen | null = null;
  private seq = 0;
  private done = 0;
  private percent = 0;
  private topIndex = 0;

  constructor(
    private readonly phone: PhoneDevice,
    private readonly recipe: Recipe,
    private readonly params: RecipeParams,
    private readonly options: RecipeRunOptions,
  ) {
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
  }

  async run(): Promise<RecipeRunResult> {
    const startedAt = this.clock.now();
    const scope: Scope = new Map();
    for (const [key, value] of Object.entries({ ...this.recipe.defaults, ...this.params }))
      if (key !== 'allowances' && value !== undefined) scope.set(key, value as TemplateValue);
    try {
      this.size = (await this.phone.info()).screen;
    } catch {
      this.size = null; // taken from the first screen read instead
    }
    const total = this.recipe.steps.length;
    let current = { path: '0', label: '', step: this.recipe.steps[0] as Step };
    try {
      for (const [index, step] of this.recipe.steps.entries()) {
        current = { path: String(index), label: describeStep(step), step };
        this.topIndex = index;
        this.percent = Math.round((index / total) * 100);
        await this.step(step, String(index), scope, (at) => (current = at));
      }
      this.percent = 100;
      return this.result('completed', startedAt);
    } catch (error) {
      if (error instanceof Cancelled) return this.result('cancelled', startedAt);
      const failure = this.failureOf(error);
      this.report(current.step, current.path, 'failed', { detail: failure.message });
      let screenshot: Screenshot | undefined;
      if (this.options.screenshotOnFailure !== false) screenshot = await this.phone.screenshot().catch(() => undefined);
      return this.result('failed', startedAt, { ...failure, step: current.path, label: current.label, ...(screenshot ? { screenshot } : {}) });
    }
  }

  private failureOf(error: unknown): { code: FailureCode; message: string } {
    if (error instanceof StepFailure) return { code: error.code, message: error.message };
    if (error instanceof PhoneError) {
      if (error.code === 'timeout' || error.code === 'disconnected') return { code: 'device_offline', message: error.message };
      return { code: 'unknown', message: error.message };
    }
    return { code: 'unknown', message: error instanceof Error ? error.message : String(error) };
  }

  private result(status: RecipeRunResult['status'], startedAt: number, failure?: RecipeFailure): RecipeRunResult {
    return {
      status,
      recipe: { id: this.recipe.id, version: this.recipe.version },
      actions: { ...this.actions },
      steps: this.done,
      ...(failure ? { failure } : {}),
      startedAt,
      finishedAt: this.clock.now(),
    };
  }

  private report(step: Step, path: string, status: StepProgress['status'], extra: Partial<StepProgress> = {}): void {
    if (status === 'started') this.seq += 1;
    this.options.onProgress?.({ seq: this.seq, path, do: step.do, label: describeStep(step), status, percent: this.percent, ...extra });
  }

  private fill(template: string, scope: Scope): string {
    return fillTemplate(template, Object.fromEntries(scope), this.random);
  }

  private spent(action: EngagementAction): boolean {
    const allowance = this.params.allowances?.[action];
    return allowance !== undefined && this.actions[action] >= allowance;
  }

  private chanceOf(step: { chance?: number | string | undefined }, scope: Scope): number {
    if (step.chance === undefined) return 1;
    if (typeof step.chance === 'number') return step.chance;
    const value = Number(this.fill(step.chance.slice(0, -1), scope));
    return Number.isFinite(value) ? value / 100 : 0;
  }

  private async step(step: Step, path: string, scope: Scope, enter: (at: { path: string; label: string; step: Step }) => void): Promise<void> {
    if (this.options.signal?.aborted) throw new Cancelled();
    enter({ path, label: describeStep(step), step });
    this.report(step, path, 'started');
    const skip = (detail: string) => this.report(step, path, 'skipped', { detail });
    const finish = (extra: Partial<StepProgress> = {}) => {
      this.done += 1;
      this.report(step, path, 'done', extra);
    };

    const missing = (step.needs ?? []).find((needed) => {
      const value = scope.get(needed);
      return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
    });
    if (missing) return skip(`Left out: this work gives no ${missing}.`);
    if ('chance' in step && this.random() >= this.chanceOf(step, scope)) return skip('Left out this time (chance).');
    if ('counts' in step && step.counts && this.spent(step.counts)) return skip(`No ${step.counts}s left for today.`);

    switch (step.do) {
      case 'open_app':
        await this.phone.launchApp(step.package ?? this.recipe.app.package, step.activity);
        return finish();
      case 'open_url':
        await this.phone.openUrl(this.fill(step.url, scope), step.package);
        return finish();
      case 'wait_for':
      case 'expect': {
        const found = await this.locate(
          step.target,
          this.duration(step.timeout, step.do === 'wait_for' ? 10_000 : 5_000),
          scope,
          step.do === 'wait_for' ? 'busy' : 'element',
        );
        if (found) return finish();
        if (step.do === 'wait_for' && step.optional) return skip('Not on screen; optional.');
        throw await this.missing(step.target, step.reason, step.message);
      }
      case 'tap':
      case 'long_press': {
        const found = await this.locate(step.target, this.duration(step.timeout, 5_000), scope, 'any');
        if (!found) {
          if (step.optional) return skip('Not on screen; optional.');
          throw await this.missing(step.target);
        }
        if (step.do === 'long_press') {
          await this.phone.longPress(found.x, found.y, this.duration(step.duration, 800));
          return finish({ point: found });
        }
        await this.phone.tap(found.x, found.y);
        if (step.double) {
          await this.clock.sleep(drawDuration('80..140ms', this.random));
          await this.phone.tap(found.x, found.y);
        }
        if (step.counts) this.actions[step.counts] += 1;
        return finish({ point: found, ...(step.counts ? { action: step.counts } : {}) });
      }
      case 'type': {
        if (step.target) {
          const found = await this.locate(step.target, this.duration(step.timeout, 5_000), scope, 'any');
          if (!found) {
            if (step.optional) return skip('Not on screen; optional.');
            throw await this.missing(step.target);
          }
          await this.phone.tap(found.x, found.y);
          await this.clock.sleep(drawDuration('300..700ms', this.random));
        }
        await this.phone.text(this.fill(step.text, scope));
        if (step.counts) this.actions[step.counts] += 1;
        return finish(step.counts ? { action: step.counts } : {});
      }
      case 'swipe': {
        const times = drawCount(typeof step.count === 'string' ? this.fill(step.count, scope) : (step.count ?? 1), this.random);
        for (let round = 0; round < times; round++) {
          if (this.options.signal?.aborted) throw new Cancelled();
          const { from, to } = this.swipeLine(step.direction, step.distance ?? 0.55);
          await this.phone.swipe(from, to, this.duration(step.speed ?? '250..450ms', 300));
          await this.clock.sleep(this.duration(step.pause ?? '800..1600ms', 1000));
        }
        return finish({ detail: `${times} swipe${times === 1 ? '' : 's'}` });
      }
      case 'key': {
        const times = drawCount(typeof step.count === 'string' ? this.fill(step.count, scope) : (step.count ?? 1), this.random);
        for (let round = 0; round < times; round++) await this.phone.key(step.key);
        return finish();
      }
      case 'push_media': {
        const remote = await this.phone.pushMedia(this.fill(step.from, scope), step.dir ? { remoteDir: step.dir } : {});
        if (step.as) scope.set(step.as, remote);
        return finish({ detail: remote });
      }
      case 'pause':
        await this.clock.sleep(this.duration(step.for, 1000));
        return finish();
      case 'when': {
        const found = await this.locate(step.present, this.duration(step.timeout, 0), scope, 'element');
        const branch = found ? step.steps : (step.else ?? []);
        for (const [index, inner] of branch.entries()) await this.step(inner, `${path}.${found ? '' : 'else.'}${index}`, scope, enter);
        return finish({ detail: found ? 'Shown' : 'Not shown' });
      }
      case 'repeat': {
        const value = step.each === undefined ? undefined : scope.get(step.each);
        const list = Array.isArray(value) ? (value as readonly string[]) : undefined;
        if (step.each !== undefined && list === undefined)
          throw new StepFailure('unknown', `The recipe repeats over "${step.each}", which this work does not give as a list.`);
        const times = step.times === undefined ? undefined : drawCount(typeof step.times === 'string' ? this.fill(step.times, scope) : step.times, this.random);
        const minutes = step.minutes === undefined ? undefined : Number(typeof step.minutes === 'string' ? this.fill(step.minutes, scope) : step.minutes);
        const deadline = minutes === undefined ? undefined : this.clock.now() + minutes * 60_000;
        const max = step.max ?? 10_000;
        let round = 0;
        for (;;) {
          if (times !== undefined && round >= times) break;
          if (list !== undefined && round >= list.length) break;
          if (deadline !== undefined && this.clock.now() >= deadline) break;
          if (step.until_spent?.every((action) => this.spent(action))) break;
          if (round >= max) break;
          const inner = new Map(scope);
          if (list !== undefined) inner.set(step.as ?? 'item', list[round] ?? '');
          for (const [index, child] of step.steps.entries()) await this.step(child, `${path}.${index}`, inner, enter);
          // Media pushed inside a round stays known after it.
          for (const [key, value] of inner) if (!scope.has(key) && key !== (step.as ?? 'item')) scope.set(key, value);
          round += 1;
          if (!path.includes('.')) this.roundDone(round, times ?? list?.length, deadline, minutes);
        }
        return finish({ detail: `${round} round${round === 1 ? '' : 's'}` });
      }
    }
  }

  /** Moves progress through a top-level repeat by rounds, or by time for a repeat of minutes. */
  private roundDone(round: number, rounds: number | undefined, deadline: number | undefined, minutes: number | undefined): void {
    const total = this.recipe.steps.length;
    let share: number | null = null;
    if (deadline !== undefined && minutes) share = 1 - Math.max(0, deadline - this.clock.now()) / (minutes * 60_000);
    else if (rounds) share = round / rounds;
    if (share === null) return;
    this.percent = Math.round(((this.topIndex + Math.min(1, Math.max(0, share))) / total) * 100);
  }

  private duration(value: number | string | undefined, fallback: number): number {
    return value === undefined ? fallback : drawDuration(value, this.random);
  }

  private screenSize(): ScreenSize {
    if (this.size) return this.size;
    if (this.lastScreen && this.lastScreen.width > 0) return { width: this.lastScreen.width, height: this.lastScreen.height };
    return { width: 1080, height: 2400 };
  }

  private scale(point: RecipePoint): Point {
    const { width, height } = this.screenSize();
    if (point.of) return { x: Math.round((point.x / point.of.width) * width), y: Math.round((point.y / point.of.height) * height) };
    return { x: Math.round(point.x * width), y: Math.round(point.y * height) };
  }

  /** A swipe across the middle of the screen with a little drift, as a thumb makes. */
  private swipeLine(direction: 'up' | 'down' | 'left' | 'right', distance: number): { from: Point; to: Point } {
    const { width, height } = this.screenSize();
    const jitter = (span: number) => Math.round((this.random() - 0.5) * span * 0.06);
    const cx = Math.round(width / 2) + jitter(width);
    const cy = Math.round(height / 2) + jitter(height);
    const half = distance / 2;
    switch (direction) {
      case 'up':
        return { from: { x: cx, y: Math.round(cy + height * half) }, to: { x: cx + jitter(width), y: Math.round(cy - height * half) } };
      case 'down':
        return { from: { x: cx, y: Math.round(cy - height * half) }, to: { x: cx + jitter(width), y: Math.round(cy + height * half) } };
      case 'left':
        return { from: { x: Math.round(cx + width * half), y: cy }, to: { x: Math.round(cx - width * half), y: cy + jitter(height) } };
      case 'right':
        return { from: { x: Math.round(cx - width * half), y: cy }, to: { x: Math.round(cx + width * half), y: cy + jitter(height) } };
    }
  }

  private element(target: Exclude<Target, { point: RecipePoint }>): ElementSpec {
    if (typeof target !== 'string') return target;
    const spec = this.recipe.elements?.[target];
    if (!spec) throw new StepFailure('unknown', `The recipe has no element named "${target}".`);
    return spec;
  }

  /** Reads the screen; a busy screen is retried after a pause, and answers null while it stays busy. */
  private async read(): Promise<UiScreen | null> {
    const retries = this.options.busyRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const screen = parseUiXml(await this.phone.dumpUi());
        this.lastScreen = screen;
        return screen;
      } catch (error) {
        if (!(error instanceof UiBusyError)) throw error;
        if (attempt >= retries) return null;
        await this.clock.sleep(this.options.busyPauseMs ?? 1500);
      }
    }
  }

  private matches(node: UiNode, selector: Selector, scope: Scope): boolean {
    const fill = (value: string) => this.fill(value, scope);
    if (selector.id !== undefined && node.resourceId !== selector.id && !node.resourceId.endsWith(`:id/${selector.id}`)) return false;
    if (selector.text !== undefined && node.text.trim() !== fill(selector.text).trim()) return false;
    if (selector.textContains !== undefined && !node.text.toLowerCase().includes(fill(selector.textContains).toLowerCase())) return false;
    if (selector.desc !== undefined && node.desc.trim() !== fill(selector.desc).trim()) return false;
    if (selector.descContains !== undefined && !node.desc.toLowerCase().includes(fill(selector.descContains).toLowerCase())) return false;
    if (selector.class !== undefined && node.className !== selector.class && !node.className.endsWith(`.${selector.class}`)) return false;
    if (selector.selected !== undefined && node.selected !== selector.selected) return false;
    return true;
  }

  private find(screen: UiScreen, spec: ElementSpec, scope: Scope): UiNode | null {
    const { or, fallback: _fallback, ...own } = spec;
    const hasOwn = Boolean(own.id || own.text || own.textContains || own.desc || own.descContains || own.class);
    for (const selector of [...(hasOwn ? [own] : []), ...(or ?? [])]) {
      const found = screen.nodes.filter((node) => isVisible(node) && this.matches(node, selector, scope));
      const pick = selector.index === -1 ? found[found.length - 1] : found[selector.index ?? 0];
      if (pick) return pick;
    }
    return null;
  }

  /** Fails the run when a guard's screen shows; taps popups away. Answers whether the screen changed. */
  private async guard(screen: UiScreen, scope: Scope): Promise<boolean> {
    if (screen.nodes.some(CRASH_DIALOG)) throw new StepFailure('app_crashed', 'The app crashed or stopped responding (Android showed its dialog).');
    for (const item of this.recipe.guards ?? []) {
      if (typeof item.when !== 'string' && 'point' in item.when) continue;
      if (this.find(screen, this.element(item.when), scope)) throw new StepFailure(item.reason, item.message);
    }
    for (const popup of this.recipe.dismiss ?? []) {
      if (typeof popup !== 'string' && 'point' in popup) continue;
      const node = this.find(screen, this.element(popup), scope);
      if (node) {
        const { x, y } = centerOf(node.bounds);
        await this.phone.tap(x, y);
        await this.clock.sleep(drawDuration('600..1200ms', this.random));
        return true;
      }
    }
    return false;
  }

  /**
   * Where the target is: on screen, or its fallback point; null when neither comes within the timeout.
   * `use` says when the fallback counts: for acting (`any`: busy screen or element missing), for waiting
   * (`busy`: only while the screen cannot be read), or never (`element`: checks must see the element).
   */
  private async locate(target: Target, timeoutMs: number, scope: Scope, use: 'any' | 'busy' | 'element'): Promise<Point | null> {
    if (typeof target !== 'string' && 'point' in target) return this.scale(target.point);
    const spec = this.element(target);
    const fallback = use === 'element' ? undefined : spec.fallback;
    const deadline = this.clock.now() + timeoutMs;
    let popups = 0;
    for (;;) {
      if (this.options.signal?.aborted) throw new Cancelled();
      const screen = await this.read();
      if (screen === null) {
        if (fallback) return this.scale(fallback);
      } else {
        if (popups < 5 && (await this.guard(screen, scope))) {
          popups += 1;
          continue;
        }
        const node = this.find(screen, spec, scope);
        if (node) return centerOf(node.bounds);
      }
      if (this.clock.now() >= deadline) return fallback && use === 'any' ? this.scale(fallback) : null;
      await this.clock.sleep(Math.min(this.options.pollMs ?? 1000, Math.max(1, deadline - this.clock.now())));
    }
  }

  /** Why an element is missing: the app left the screen (crash to launcher) or the element never came. */
  private async missing(target: Target, reason?: FailureCode, message?: string): Promise<StepFailure> {
    const name = typeof target === 'string' ? target.replace(/_/g, ' ') : 'The expected element';
    const screen = this.lastScreen;
    if (!reason && screen?.packageName && screen.packageName !== this.recipe.app.package && /launcher/i.test(screen.packageName)) {
      return new StepFailure('app_crashed', `${this.recipe.app.package} is no longer on screen (the home screen shows).`);
    }
    if (!reason && screen === null)
      return new StepFailure('element_missing', `${capitalise(name)} could not be found: the screen never went idle long enough to be read.`);
    return new StepFailure(reason ?? 'element_missing', message ?? `${capitalise(name)} did not appear on screen.`);
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
