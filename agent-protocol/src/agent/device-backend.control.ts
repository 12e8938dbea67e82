/**
 * A person at the console on a phone the backend drives: their taps, swipes, text, keys and quarter turns, scaled to
 * the phone's screen as it is turned now and sent through the H.264 session's control socket while one runs (else one
 * shell command per action), and what Inspect and Record read (the screen's UI tree with its frame, the element under
 * a finger).
 */
import { toPixels, type LiveInput } from '../live.ts';
import { androidKeyCodes, PhoneError, type LiveVideoSession } from '../phone/phone.device.ts';
import { captureTree, recordTarget, type RecordedTarget, type UiCapture } from '../recipes/recipe.inspect.ts';
import { parseUiXml } from '../recipes/recipe.ui.ts';
import type { BackendState } from './device-backend.state.ts';

export class PhoneControl {
  /** Quarter turns given from the console since the agent started. */
  private quarterTurns = 0;
  private readonly videos = new Map<'control' | 'watch', LiveVideoSession>();

  constructor(private readonly state: BackendState) {}

  /** Opens an H.264 session; a person's input goes through it while it runs. */
  async startVideo(kind: 'control' | 'watch'): Promise<LiveVideoSession> {
    const session = await this.state.phone.openVideo!(kind);
    this.videos.set(kind, session);
    session.onEnded(() => {
      if (this.videos.get(kind) === session) this.videos.delete(kind);
    });
    return session;
  }

  /** Ends the H.264 sessions of a phone object let go of (the phone came back on a new one): input goes by shell again. */
  endVideos(reason: string): void {
    const sessions = [...this.videos.values()];
    this.videos.clear();
    for (const session of sessions) session.end(reason);
  }

  /** A person's input from the console, at the point they touched scaled to this phone's screen as it is turned now. */
  async input(input: LiveInput): Promise<void> {
    const video = this.videos.get('control') ?? this.videos.get('watch');
    if (video) return videoInput(video, input);
    const { phone } = this.state;
    this.state.info ??= await phone.info();
    const portrait = this.state.info.screen;
    const screen = this.quarterTurns % 2 === 1 ? { width: portrait.height, height: portrait.width } : portrait;
    switch (input.kind) {
      case 'tap': {
        const at = toPixels(screen, input);
        return phone.tap(at.x, at.y);
      }
      case 'long_press': {
        const at = toPixels(screen, input);
        return phone.longPress(at.x, at.y, input.durationMs);
      }
      case 'swipe':
        return phone.swipe(toPixels(screen, input.from), toPixels(screen, input.to), input.durationMs);
      case 'scroll':
        // The finger moves against the wheel: content scrolls up as it moves up.
        return phone.swipe(toPixels(screen, input), toPixels(screen, scrolledTo(input)), 200);
      case 'text':
        return phone.text(input.text);
      case 'key':
        return phone.key(input.key);
      case 'rotate':
        if (!phone.rotate) throw new PhoneError('command_failed', 'This phone cannot be turned from the console');
        await phone.rotate();
        this.quarterTurns = (this.quarterTurns + 1) % 4;
        return;
    }
  }

  /**
   * Group control's text: typed as a person's live text is (through the control socket while a session runs), and
   * when it went in by a paste, the clipboard emptied once the paste has had `settleMs` to land, so it is not left
   * holding what was typed.
   */
  async typeAndClear(text: string, settleMs = PASTE_SETTLE_MS): Promise<void> {
    const video = this.videos.get('control') ?? this.videos.get('watch');
    await this.input({ kind: 'text', text });
    if (!video?.clearPasted) return;
    await pause(settleMs);
    video.clearPasted();
  }

  /**
   * The screen's UI tree and the frame taken right after it, with the app in front, its version and the phone's
   * language: what the recipe studio's Inspect shows. The tree is cut to the capture's limits.
   */
  async capture(): Promise<UiCapture> {
    const { phone } = this.state;
    const tree = captureTree(parseUiXml(await phone.dumpUi()));
    const shot = await phone.screenshot({ maxSide: 1280, quality: 70 });
    const packageName = tree.packageName ?? (await phone.foregroundApp().catch(() => null))?.package ?? null;
    const version = packageName ? await phone.appVersion(packageName).catch(() => null) : null;
    const locale = (await phone.locale?.().catch(() => null)) ?? null;
    return {
      tree,
      frame: { mime: shot.mime, data: new Uint8Array(shot.data), width: shot.width, height: shot.height },
      app: { package: packageName, version, locale },
      capturedAt: new Date().toISOString(),
    };
  }

  /** Record: the element under a point (a share of the screen), read now, before the person's input goes in. */
  async recordTarget(point: { x: number; y: number }): Promise<RecordedTarget> {
    const { phone } = this.state;
    const target = recordTarget(parseUiXml(await phone.dumpUi()), point);
    const appVersion = target.package ? await phone.appVersion(target.package).catch(() => null) : null;
    const locale = (await phone.locale?.().catch(() => null)) ?? null;
    return { ...target, appVersion, locale };
  }
}

/** Where a scroll's finger ends: against the wheel, within the screen. */
function scrolledTo(input: Extract<LiveInput, { kind: 'scroll' }>): { x: number; y: number } {
  return { x: input.x, y: Math.max(0, Math.min(1, input.y - input.dy * 0.6)) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a paste is given to land in the focused field before the clipboard is emptied. */
const PASTE_SETTLE_MS = 300;

/** A finger moved from one point to another over `durationMs`, one touch move about every 16 ms (a display frame). */
async function drag(video: LiveVideoSession, from: { x: number; y: number }, to: { x: number; y: number }, durationMs: number): Promise<void> {
  const steps = Math.max(1, Math.round(durationMs / 16));
  video.touch('down', from.x, from.y);
  for (let step = 1; step <= steps; step++) {
    await pause(durationMs / steps);
    const t = step / steps;
    video.touch(step === steps ? 'up' : 'move', Math.round(from.x + (to.x - from.x) * t), Math.round(from.y + (to.y - from.y) * t));
  }
}

/** A person's input through scrcpy's control socket, in the stream's picture pixels (scrcpy scales them to the screen). */
async function videoInput(video: LiveVideoSession, input: LiveInput): Promise<void> {
  const screen = video.size;
  switch (input.kind) {
    case 'tap': {
      const at = toPixels(screen, input);
      video.touch('down', at.x, at.y);
      video.touch('up', at.x, at.y);
      return;
    }
    case 'long_press': {
      const at = toPixels(screen, input);
      video.touch('down', at.x, at.y);
      await pause(input.durationMs);
      video.touch('up', at.x, at.y);
      return;
    }
    case 'swipe':
      return drag(video, toPixels(screen, input.from), toPixels(screen, input.to), input.durationMs);
    case 'scroll':
      // As on the shell path: the finger moves against the wheel, content scrolls up as it moves up.
      return drag(video, toPixels(screen, input), toPixels(screen, scrolledTo(input)), 200);
    case 'text':
      video.type(input.text);
      return;
    case 'key':
      if (input.key === 'back') video.back();
      else video.key(androidKeyCodes[input.key]);
      return;
    case 'rotate':
      video.rotate();
      return;
  }
}
