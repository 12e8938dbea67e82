/**
 * What the simulated screen shows to whoever reads or watches it: the tree as `uiautomator dump` XML (a toast added as
 * the UI server adds it, busy while a video plays when asked), and the tree drawn with its status bar and the step
 * being run for screenshots and the live screen's frames.
 */
import sharp from 'sharp';
import { PhoneError, UiBusyError, type LiveFrameSource, type Screenshot, type ScreenshotOptions } from '../phone/phone.device.ts';
import { encodeScreenshot } from '../phone/phone.screenshot.ts';
import type { SimApps } from './simphone.apps.ts';
import { toSvg, toUiXml, walk, type SimNode } from './simphone.render.ts';
import type { SimState } from './simphone.state.ts';

/** What the status bar names the screen by. */
const TITLES: Record<SimApps['app'], string> = { launcher: 'Home', instagram: 'Instagram', tiktok: 'TikTok', settings: 'Settings', playstore: 'Play Store' };

export class SimDisplay {
  constructor(
    private readonly state: SimState,
    private readonly apps: SimApps,
  ) {}

  /** The screen drawn as an SVG, status bar and the step being run included. */
  private drawing(): string {
    const { state, apps } = this;
    const now = state.options.now?.() ?? new Date();
    return toSvg(apps.tree(), {
      width: apps.api.width,
      height: apps.api.height,
      time: `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`,
      battery: state.batteryLevel,
      charging: state.charging,
      title: `${TITLES[apps.app]} · ${state.shownName}`,
      dark: apps.isVideo() || apps.app === 'launcher',
      ...(state.caption ? { caption: state.caption } : {}),
    });
  }

  async screenshot(options: ScreenshotOptions = {}): Promise<Screenshot> {
    this.state.alive();
    return encodeScreenshot(await sharp(Buffer.from(this.drawing())).png().toBuffer(), options);
  }

  /** A frame of the live screen: drawn straight at the size asked for, which keeps up with several frames a second. */
  async frame(options: ScreenshotOptions = {}): Promise<Screenshot> {
    this.state.alive();
    const { api } = this.apps;
    const scale = Math.min(1, (options.maxSide ?? 720) / Math.max(api.width, api.height));
    const { data, info } = await sharp(Buffer.from(this.drawing()), { density: 72 * scale })
      .flatten({ background: '#000000' })
      .jpeg({ quality: options.quality ?? 60 })
      .toBuffer({ resolveWithObject: true });
    return { mime: 'image/jpeg', data, width: info.width, height: info.height, capturedAt: new Date().toISOString() };
  }

  /** Frames drawn on demand until closed; `frame` is the phone's own, so a phone that draws otherwise is shown so. */
  async openLive(frame: (options: ScreenshotOptions) => Promise<Screenshot>, options: ScreenshotOptions): Promise<LiveFrameSource> {
    this.state.alive();
    let closed = false;
    return {
      next: async (signal) => {
        if (closed || signal?.aborted) throw new PhoneError('disconnected', 'The live screen was closed.');
        return { ...(await frame(options)), source: 'sim' as const };
      },
      close: async () => {
        closed = true;
      },
    };
  }

  async dumpUi(): Promise<string> {
    const { state } = this;
    state.alive();
    state.dumps += 1;
    if (state.busyDumps > 0) {
      state.busyDumps -= 1;
      throw new UiBusyError();
    }
    if (state.options.busyOnVideo && this.apps.isVideo()) throw new UiBusyError();
    return this.uiXml();
  }

  /** The screen as `uiautomator dump` writes it, read now (no busy screens): what a fake adb phone prints. */
  uiXml(): string {
    const { state } = this;
    state.alive();
    const tree = this.apps.tree();
    if (state.toast && state.toast.reads > 0) {
      state.toast.reads -= 1;
      // As appium-uiautomator2-server writes a toast it heard: class android.widget.Toast, package com.android.settings.
      tree.children = [
        ...(tree.children ?? []),
        { cls: 'android.widget.Toast', pkg: 'com.android.settings', text: state.toast.text, bounds: [180, 2000, this.apps.api.width - 180, 2100] },
      ];
    }
    return toUiXml(tree, this.apps.packageName());
  }

  /** Every node on screen, for tests that look for an element. */
  nodes(): SimNode[] {
    const all: SimNode[] = [];
    walk(this.apps.tree(), (node) => all.push(node));
    return all;
  }
}
