/**
 * What each kind of step does on the phone: open, wait, tap, type, share and push media, swipe, press a key, pause,
 * branch (`when`) and repeat. A new step kind or a new way an app wants to be driven lands here; finding elements,
 * confirming that an action took and tracing it live in their own rooms, so this one reads as the list of actions.
 */
import { basename } from 'node:path';
import type { Point } from '../phone/phone.device.ts';
import type { Confirmations, StepEnd } from './recipe.confirm.ts';
import { describeStep } from './recipe.describe.ts';
import type { Locator } from './recipe.locate.ts';
import { checkRunFile, MediaRefused } from './recipe.media.ts';
import { Cancelled, Miss, RunStopped, SkipRound, StepFailure, type Scope, type StepProgress } from './recipe.outcome.ts';
import { drawCount, drawDuration } from './recipe.pacing.ts';
import type { Step } from './recipe.schema.ts';
import type { RunState } from './recipe.state.ts';
import type { TraceRecorder } from './recipe.trace.ts';
import type { UiNode, UiScreen } from './recipe.ui.ts';

/** Told which step the run is at (its path, label and step), for the failure it may end with. */
export type Enter = (at: { path: string; label: string; step: Step }) => void;

type StepOf<K extends Step['do']> = Extract<Step, { do: K }>;

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  heic: 'image/heic',
  gif: 'image/gif',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
};

/** The type a share intent carries: the files' own when they agree, else `image/*`, `video/*` or any. */
export function shareMime(files: readonly string[]): string {
  const types = new Set(files.map((file) => MIME_BY_EXTENSION[file.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream'));
  if (types.size === 1) return [...types][0] as string;
  const kinds = new Set([...types].map((type) => type.split('/')[0]));
  return kinds.size === 1 && (kinds.has('image') || kinds.has('video')) ? `${[...kinds][0]}/*` : '*/*';
}

export class StepActions {
  constructor(
    private readonly run: RunState,
    private readonly trace: TraceRecorder,
    private readonly locator: Locator,
    private readonly confirmations: Confirmations,
  ) {}

  /** Runs one step: its gate, its progress and trace, then what it does. */
  async step(step: Step, path: string, scope: Scope, enter: Enter): Promise<void> {
    if (this.run.options.signal?.aborted) throw new Cancelled();
    const label = describeStep(step);
    // A repeat or a when opens without a wait: each step inside waits (a person's "next" always shows a step).
    await this.trace.gate(path, step.do, label, step.do !== 'repeat' && step.do !== 'when' && !this.run.inPreflight);
    enter({ path, label, step });
    this.trace.report(step, path, 'started', 'counts' in step && step.counts ? { counts: step.counts } : {});
    await this.trace.traceStep(path, step.do, label, () => this.act(step, path, scope, enter));
  }

  private async act(step: Step, path: string, scope: Scope, enter: Enter): Promise<void> {
    const run = this.run;
    const end: StepEnd = {
      skip: (detail: string) => this.trace.report(step, path, 'skipped', { detail }),
      finish: (extra: Partial<StepProgress> = {}) => {
        run.done += 1;
        this.trace.report(step, path, 'done', extra);
      },
    };
    const missing = (step.needs ?? []).find((needed) => {
      const value = scope.get(needed);
      return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
    });
    if (missing) return end.skip(`Left out: this work gives no ${missing}.`);
    if ('chance' in step && run.random() >= run.chanceOf(step, scope)) return end.skip('Left out this time (chance).');
    if ('counts' in step && step.counts && run.spent(step.counts)) return end.skip(`No ${step.counts}s left for today.`);
    if (run.options.effects === false) {
      const effect = effectOf(step);
      if (effect) throw new RunStopped({ by: 'effects', message: `No effects: stopped before ${effect}.`, step: path, label: describeStep(step) });
    }
    return this.dispatch(step, path, scope, enter, end);
  }

  private async dispatch(step: Step, path: string, scope: Scope, enter: Enter, end: StepEnd): Promise<void> {
    const run = this.run;
    switch (step.do) {
      case 'open_app':
        await run.phone.launchApp(step.package ?? run.packageName, step.activity);
        return end.finish();
      case 'open_url':
        await run.phone.openUrl(run.fill(step.url, scope), step.package ?? run.packageName);
        return end.finish();
      case 'wait_for':
      case 'expect':
        return this.waitFor(step, scope, end);
      case 'tap':
      case 'long_press':
        return this.tap(step, scope, end);
      case 'toggle':
        return this.confirmations.toggle(step, scope, end);
      case 'type':
        return this.type(step, scope, end);
      case 'share_media':
        return this.shareMedia(step, scope, end);
      case 'swipe':
        return this.swipe(step, scope, end);
      case 'key': {
        const times = drawCount(typeof step.count === 'string' ? run.fill(step.count, scope) : (step.count ?? 1), run.random);
        for (let round = 0; round < times; round++) await run.phone.key(step.key);
        return end.finish();
      }
      case 'push_media':
        return this.pushMedia(step, scope, end);
      case 'pause':
        await run.clock.sleep(run.duration(step.for, 1000));
        return end.finish();
      case 'hand_over':
        return this.handOver(step, scope, end);
      case 'when': {
        const found = await this.locator.locate(step.present, run.duration(step.timeout, 0), scope);
        const shown = found.node !== null;
        const branch = shown ? step.steps : (step.else ?? []);
        for (const [index, inner] of branch.entries()) await this.step(inner, `${path}.${shown ? '' : 'else.'}${index}`, scope, enter);
        return end.finish({ detail: shown ? 'Shown' : 'Not shown' });
      }
      case 'repeat':
        return this.repeat(step, path, scope, enter, end);
    }
  }

  private async waitFor(step: StepOf<'wait_for' | 'expect'>, scope: Scope, { skip, finish }: StepEnd): Promise<void> {
    const found = await this.locator.locate(step.target, this.run.duration(step.timeout, step.do === 'wait_for' ? 10_000 : 5_000), scope, {
      skips: step.do === 'wait_for',
    });
    if (found.node) {
      this.run.hit();
      return finish();
    }
    if (step.do === 'wait_for' && step.optional) return skip('Not on screen; optional.');
    // A screen the recipe must pass never came (or could never be read): the run ends here.
    throw await this.locator.missing(step.target, step.reason, step.message);
  }

  private async tap(step: StepOf<'tap' | 'long_press'>, scope: Scope, { skip, finish }: StepEnd): Promise<void> {
    const run = this.run;
    // A counting step never acts on a point (the schema refuses it; this holds for a recipe that skipped it too).
    const positional = step.positional === true && !(step.do === 'tap' && step.counts);
    const found = await this.locator.locate(step.target, run.duration(step.timeout, 5_000), scope, { positional, skips: true });
    if (!found.node && !found.point) {
      if (step.optional) return skip('Not on screen; optional.');
      throw await this.locator.absent(step.target);
    }
    const at = found.point as Point;
    if (found.node) run.hit();
    if (step.do === 'long_press') {
      await run.phone.longPress(at.x, at.y, run.duration(step.duration, 800));
      return finish({ point: at });
    }
    // A like through a plain tap (older recipes): never on an item already liked, which reads selected (GramAddict's
    // _is_post_liked; InstaAddict's window.xml line 85). A follow's `selected` tells nothing: Instagram's Follow button
    // reads selected=true while not following (geelark kingmakerpulse error_001 line 72), so only a toggle's words
    // (`off` Follow, `on` Following) can say whether an account is followed.
    if (step.counts === 'like' && found.node?.selected) return skip('Already liked; left alone.');
    await run.phone.tap(at.x, at.y);
    if (step.double) {
      await run.clock.sleep(drawDuration('80..140ms', run.random));
      await run.phone.tap(at.x, at.y);
    }
    if (step.confirm) {
      const confirmed = await this.confirmations.confirm(step.confirm, scope, step.counts);
      if (!confirmed) throw run.miss(`${describeStep(step)}: the app did not show that it took.`);
    }
    if (step.counts) run.actions[step.counts] += 1;
    return finish({ point: at, ...(step.counts ? { action: step.counts } : {}) });
  }

  private async type(step: StepOf<'type'>, scope: Scope, { skip, finish }: StepEnd): Promise<void> {
    const run = this.run;
    let at: Point | undefined;
    if (step.target) {
      const found = await this.locator.locate(step.target, run.duration(step.timeout, 5_000), scope, {
        positional: step.positional === true && !step.counts,
        skips: true,
      });
      if (!found.node && !found.point) {
        if (step.optional) return skip('Not on screen; optional.');
        throw await this.locator.absent(step.target);
      }
      if (found.node) run.hit();
      at = found.point ?? undefined;
    }
    const value = run.fill(step.text, scope);
    await this.confirmations.typeChecked(value, at);
    scope.set('typed', value);
    if (step.confirm) {
      const confirmed = await this.confirmations.confirm(step.confirm, scope, step.counts);
      if (!confirmed) throw run.miss(`${describeStep(step)}: the app did not show what was typed.`);
    }
    if (step.counts) run.actions[step.counts] += 1;
    return finish(step.counts ? { action: step.counts } : {});
  }

  /**
   * Hands the post on screen to a VA: reads its author (nearest above the post's comment button), takes the frame and
   * tells `onHandOver`. Types nothing and counts nothing; no comment button (comments off) or no readable author is a
   * skip, never a miss.
   */
  private async handOver(step: StepOf<'hand_over'>, scope: Scope, { skip, finish }: StepEnd): Promise<void> {
    const run = this.run;
    const allowance = step.kind === 'comment' ? run.params.allowances?.comment : undefined;
    if (allowance !== undefined && run.handedOver[step.kind] >= allowance) return skip(`No ${step.kind}s left for today.`);
    let near: UiNode | null = null;
    let screen: UiScreen | null;
    if (step.near) {
      const found = await this.locator.locate(step.near, run.duration(step.timeout, 3_000), scope, { skips: true });
      // A post with comments turned off shows no comment button: ordinary content, left out with its reason.
      if (!found.node) throw new SkipRound('comments turned off (the post shows no comment button)');
      run.hit();
      near = found.node;
      screen = run.lastScreen;
    } else screen = step.author ? await this.locator.read() : null;
    let author: string | null = null;
    if (step.authorIs !== undefined) author = handleOf(run.fill(step.authorIs, scope));
    else if (step.author && screen) {
      const nodes = this.locator.findAll(screen, this.locator.element(step.author), scope);
      const above = near ? nodes.filter((node) => node.bounds.top <= (near as UiNode).bounds.top).sort((a, b) => b.bounds.top - a.bounds.top) : nodes;
      const node = above[0];
      if (node) author = handleOf(node.text.trim() || node.desc.trim());
    }
    if (!author) return skip("The post's author could not be read: nothing handed over.");
    const shot = await this.trace.traceFrame();
    const index = Object.values(run.handedOver).reduce((sum, value) => sum + value, 0);
    run.handedOver[step.kind] += 1;
    const link = step.link === undefined ? undefined : run.fill(step.link, scope);
    try {
      await run.options.onHandOver?.({ index, kind: step.kind, author, ...(link ? { link } : {}), ...(shot.frame ? { frame: shot.frame } : {}) });
    } catch {
      // Telling the server is the agent's business (it keeps what it could not send); the run goes on.
    }
    return finish({ detail: `Handed to a VA: a comment on @${author}'s post` });
  }

  private async shareMedia(step: StepOf<'share_media'>, scope: Scope, { finish }: StepEnd): Promise<void> {
    const run = this.run;
    const value = scope.get(step.from ?? 'media');
    const files = Array.isArray(value) ? [...(value as readonly string[])] : typeof value === 'string' && value ? [value] : [];
    if (files.length === 0) throw new StepFailure('unknown', `The work gives no ${step.from ?? 'media'} to share.`, false);
    // Every file is checked before any goes: whatever scope value `from` names, only this run's fetched media pass.
    const real: string[] = [];
    for (const file of files) real.push(await this.runFile(file, 'share_media'));
    // The upload starts here: a failure notice already on screen belongs to an earlier upload, not to this one.
    await this.confirmations.noteStale(scope);
    // Every file of a carousel goes to the phone, is indexed by the media store, then shared in one intent.
    const remote: string[] = [];
    for (const [index, file] of real.entries())
      remote.push(await run.phone.pushMedia(file, { ...(step.dir ? { remoteDir: step.dir } : {}), name: basename(files[index]!) }));
    await run.phone.scanMedia(remote);
    await run.clock.sleep(3000);
    const mime = shareMime(files);
    await run.phone.share({
      package: run.packageName,
      activity: step.activity,
      mime,
      files: remote,
      ...(step.text ? { text: run.fill(step.text, scope) } : {}),
    });
    return finish({ detail: `${remote.length} file${remote.length === 1 ? '' : 's'} shared` });
  }

  private async pushMedia(step: StepOf<'push_media'>, scope: Scope, { finish }: StepEnd): Promise<void> {
    const file = this.run.fill(step.from, scope);
    // The run's fetched media only: a recipe never names another file of the farm PC.
    const real = await this.runFile(file, 'push_media');
    const remote = await this.run.phone.pushMedia(real, { ...(step.dir ? { remoteDir: step.dir } : {}), name: basename(file) });
    if (step.as) scope.set(step.as, remote);
    return finish({ detail: remote });
  }

  private async swipe(step: StepOf<'swipe'>, scope: Scope, { finish }: StepEnd): Promise<void> {
    const run = this.run;
    const times = drawCount(typeof step.count === 'string' ? run.fill(step.count, scope) : (step.count ?? 1), run.random);
    for (let round = 0; round < times; round++) {
      if (run.options.signal?.aborted) throw new Cancelled();
      const { from, to } = run.swipeLine(step.direction, step.distance ?? 0.55);
      await run.phone.swipe(from, to, run.duration(step.speed ?? '250..450ms', 300));
      await run.clock.sleep(run.duration(step.pause ?? '800..1600ms', 1000));
    }
    return finish({ detail: `${times} swipe${times === 1 ? '' : 's'}` });
  }

  private async repeat(step: StepOf<'repeat'>, path: string, scope: Scope, enter: Enter, { finish }: StepEnd): Promise<void> {
    const run = this.run;
    const value = step.each === undefined ? undefined : scope.get(step.each);
    const list = Array.isArray(value) ? (value as readonly string[]) : undefined;
    if (step.each !== undefined && list === undefined)
      throw new StepFailure('unknown', `The recipe repeats over "${step.each}", which this work does not give as a list.`, false);
    const times = step.times === undefined ? undefined : drawCount(typeof step.times === 'string' ? run.fill(step.times, scope) : step.times, run.random);
    const minutes = step.minutes === undefined ? undefined : Number(typeof step.minutes === 'string' ? run.fill(step.minutes, scope) : step.minutes);
    const deadline = minutes === undefined ? undefined : run.clock.now() + minutes * 60_000;
    const max = step.max ?? 10_000;
    let round = 0;
    for (;;) {
      if (times !== undefined && round >= times) break;
      if (list !== undefined && round >= list.length) break;
      if (deadline !== undefined && run.clock.now() >= deadline) break;
      if (step.until_spent?.every((action) => run.spent(action))) break;
      if (round >= max) break;
      const inner = new Map(scope);
      if (list !== undefined) inner.set(step.as ?? 'item', list[round] ?? '');
      await this.round(step, path, inner, enter);
      // Media pushed inside a round stays known after it.
      for (const [key, item] of inner) if (!scope.has(key) && key !== (step.as ?? 'item')) scope.set(key, item);
      round += 1;
      if (!path.includes('.')) run.roundDone(round, times ?? list?.length, deadline, minutes);
    }
    return finish({ detail: `${round} round${round === 1 ? '' : 's'}` });
  }

  /** One round of a repeat: its steps, then its `after` steps; a miss or ordinary content ends only the part it is in. */
  private async round(step: StepOf<'repeat'>, path: string, inner: Scope, enter: Enter): Promise<void> {
    this.run.rounds += 1;
    try {
      for (const [part, steps] of [
        ['', step.steps],
        ['after.', step.after ?? []],
      ] as const) {
        try {
          for (const [index, child] of steps.entries()) await this.step(child, `${path}.${part}${index}`, inner, enter);
        } catch (error) {
          // A miss or ordinary content ends this round only (its `after` steps still run); the run goes on.
          if (!(error instanceof Miss) && !(error instanceof SkipRound)) throw error;
          if (error instanceof SkipRound) this.run.skipped.push(error.message);
          this.trace.report(step, path, 'skipped', { detail: `${error instanceof Miss ? 'Missed' : 'Left out'}: ${error.message}` });
        }
      }
    } finally {
      this.run.rounds -= 1;
    }
  }

  /** A file a step copies to the phone: only one fetched for this run, inside the media folder (its real path). */
  private async runFile(file: string, step: string): Promise<string> {
    try {
      return await checkRunFile(this.run.options.media, file, step);
    } catch (error) {
      if (error instanceof MediaRefused) throw new StepFailure('unknown', error.message, false);
      throw error;
    }
  }
}

/**
 * What a step would do that counts an engagement (the no-effects mode stops before it): any step with `counts` (a tap,
 * a toggle, a typed comment; a post's publish tap counts `post`), and a double tap, the gesture that likes a post.
 */
function effectOf(step: Step): string | null {
  if ('counts' in step && step.counts) return `a step that counts a ${step.counts}`;
  if (step.do === 'tap' && step.double) return 'a double tap (a double tap likes a post)';
  return null;
}

/**
 * A handle from the words a post shows for its author: the first word, without "@" (Instagram writes "name and 5
 * others" for a shared post, TikTok's avatar "name profile"). Null unless it is a handle as both apps allow them
 * (letters, digits, "." and "_", at most 30).
 */
export function handleOf(words: string): string | null {
  const first = words.trim().split(/\s+/)[0]?.replace(/^@/, '') ?? '';
  return /^[A-Za-z0-9._]{1,30}$/.test(first) ? first : null;
}
