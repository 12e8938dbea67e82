/**
 * What one recipe run knows while it goes: its phone, recipe and options, the counts it answers with (actions, steps,
 * misses, rounds left out), where progress stands, and the run's own pacing (drawn durations, chances, allowances,
 * the screen's size for points and swipes). Every room of the run reads and moves the same counts, so they live in
 * one place rather than being passed from room to room.
 */
import type { PhoneDevice, Point, ScreenSize } from '../phone/phone.device.ts';
import { drawDuration, systemClock, type Clock } from './recipe.pacing.ts';
import {
  engagementActions,
  handOverKinds,
  type EngagementAction,
  type HandOverKind,
  type Recipe,
  type RecipeParams,
  type RecipePoint,
} from './recipe.schema.ts';
import { fillTemplate } from './recipe.template.ts';
import type { UiScreen } from './recipe.ui.ts';
import { Miss, StepFailure, type RecipeRunOptions, type Scope } from './recipe.outcome.ts';

export class RunState {
  readonly random: () => number;
  readonly clock: Clock;
  readonly actions = Object.fromEntries(engagementActions.map((action) => [action, 0])) as Record<EngagementAction, number>;
  size: ScreenSize | null = null;
  lastScreen: UiScreen | null = null;
  seq = 0;
  done = 0;
  percent = 0;
  topIndex = 0;
  /** Repeats the current step runs inside; a miss or a skip ends the innermost round. */
  rounds = 0;
  missesInARow = 0;
  misses = 0;
  readonly skipped: string[] = [];
  /** Posts handed to a person so far, by kind (a comment counts toward its allowance only once the VA has done it). */
  readonly handedOver = Object.fromEntries(handOverKinds.map((kind) => [kind, 0])) as Record<HandOverKind, number>;
  packageName: string;
  appVersion: string | undefined;
  /** The UI language the app showed when the pre-flight read it, if it did. */
  appLocale: string | undefined;
  /** Whether the last look at the screen could read it. */
  readLast = false;
  /** Why the last look could not read the screen (the reader's own words), while it could not. */
  unreadableWhy: string | null = null;
  /** Whether the phone's UI reader shows toasts (the UI server does, `uiautomator dump` does not). */
  seesToasts = false;
  /** The pre-flight runs its own steps without waiting at `beforeStep` (one gate for the whole of it). */
  inPreflight = false;

  constructor(
    readonly phone: PhoneDevice,
    readonly recipe: Recipe,
    readonly params: RecipeParams,
    readonly options: RecipeRunOptions,
  ) {
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
    this.packageName = recipe.app.package;
  }

  fill(template: string, scope: Scope): string {
    return fillTemplate(template, Object.fromEntries(scope), this.random);
  }

  spent(action: EngagementAction): boolean {
    const allowance = this.params.allowances?.[action];
    return allowance !== undefined && this.actions[action] >= allowance;
  }

  chanceOf(step: { chance?: number | string | undefined }, scope: Scope): number {
    if (step.chance === undefined) return 1;
    if (typeof step.chance === 'number') return step.chance;
    const value = Number(this.fill(step.chance.slice(0, -1), scope));
    return Number.isFinite(value) ? value / 100 : 0;
  }

  duration(value: number | string | undefined, fallback: number): number {
    return value === undefined ? fallback : drawDuration(value, this.random);
  }

  /** Found what it looked for: the misses in a row start again. */
  hit(): void {
    this.missesInARow = 0;
  }

  /** A required element absent on a recognised screen; the fifth in a row ends the run `app_changed`. */
  miss(message: string): Miss {
    this.misses += 1;
    this.missesInARow += 1;
    const limit = this.options.missLimit ?? 5;
    if (this.missesInARow >= limit)
      throw new StepFailure('app_changed', `${limit} misses in a row (the last: ${message}) — the app's screens no longer match this recipe.`);
    return new Miss(message);
  }

  screenSize(): ScreenSize {
    if (this.size) return this.size;
    if (this.lastScreen && this.lastScreen.width > 0) return { width: this.lastScreen.width, height: this.lastScreen.height };
    return { width: 1080, height: 2400 };
  }

  scale(point: RecipePoint): Point {
    const { width, height } = this.screenSize();
    if (point.of) return { x: Math.round((point.x / point.of.width) * width), y: Math.round((point.y / point.of.height) * height) };
    return { x: Math.round(point.x * width), y: Math.round(point.y * height) };
  }

  /** A swipe across the middle of the screen with a little drift, as a thumb makes. */
  swipeLine(direction: 'up' | 'down' | 'left' | 'right', distance: number): { from: Point; to: Point } {
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

  /** Moves progress through a top-level repeat by rounds, or by time for a repeat of minutes. */
  roundDone(round: number, rounds: number | undefined, deadline: number | undefined, minutes: number | undefined): void {
    const total = this.recipe.steps.length;
    let share: number | null = null;
    if (deadline !== undefined && minutes) share = 1 - Math.max(0, deadline - this.clock.now()) / (minutes * 60_000);
    else if (rounds) share = round / rounds;
    if (share === null) return;
    this.percent = Math.round(((this.topIndex + Math.min(1, Math.max(0, share))) / total) * 100);
  }
}
