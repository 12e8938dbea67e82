/**
 * What the simulated phone says about itself, as a real one's getprop and dumpsys would: its model and screen,
 * battery, whether the screen is on, the keyguard, the network, its UI language, the app in front and the installed
 * apps' versions (the fixtures' own, or what the evidence names).
 */
import type { BatteryState, ForegroundApp, LockState, NetworkState, PhoneInfo, ScreenState } from '../phone/phone.device.ts';
import type { SimApps } from './simphone.apps.ts';
import { INSTAGRAM, TIKTOK, TIKTOK_TRILL } from './simphone.screens.ts';
import { LAUNCHER } from './simphone.system.ts';
import type { SimState } from './simphone.state.ts';

export class SimFacts {
  constructor(
    private readonly state: SimState,
    private readonly apps: SimApps,
  ) {}

  async info(): Promise<PhoneInfo> {
    this.state.alive();
    return {
      serial: this.state.serial,
      manufacturer: 'Simulated',
      model: this.state.options.model ?? 'Simulated Pixel',
      androidVersion: '14',
      sdk: 34,
      abi: 'arm64-v8a',
      screen: { width: this.apps.api.width, height: this.apps.api.height },
    };
  }

  async battery(): Promise<BatteryState> {
    const { state } = this;
    state.alive();
    return { level: state.batteryLevel, charging: state.charging, plugged: state.charging ? 'usb' : null, temperatureC: 29.5 };
  }

  async screen(): Promise<ScreenState> {
    this.state.alive();
    return { on: this.state.screenOn };
  }

  async lockState(): Promise<LockState> {
    this.state.alive();
    return this.state.locked;
  }

  async foregroundApp(): Promise<ForegroundApp | null> {
    this.state.alive();
    const { app } = this.apps;
    const pkg = this.apps.packageName();
    // Settings' is AOSP's homepage activity, the Play Store's its main one (unverified); Launcher3's as Quickstep names it.
    const activities: Record<typeof app, string> = {
      instagram: 'com.instagram.mainactivity.InstagramMainActivity',
      tiktok: 'com.ss.android.ugc.aweme.splash.SplashActivity',
      settings: 'com.android.settings.homepage.SettingsHomepageActivity',
      playstore: 'com.google.android.finsky.activities.MainActivity',
      launcher: `${LAUNCHER}.uioverrides.QuickstepLauncher`,
    };
    return { package: pkg, activity: activities[app] };
  }

  async network(): Promise<NetworkState> {
    this.state.alive();
    return { connected: true, transport: 'wifi' };
  }

  /** The UI language, as a real phone's `persist.sys.locale` says it. */
  async locale(): Promise<string | null> {
    this.state.alive();
    const { locale } = this.state.options;
    return locale === undefined ? 'en-US' : locale;
  }

  async appVersion(packageName: string): Promise<string | null> {
    this.state.alive();
    if (packageName !== INSTAGRAM && packageName !== this.apps.tiktokPackage) return null;
    // TikTok's versions are the fixtures' (43.1.4 musically, 46.1.3 trill). Instagram's dumps record none: the
    // simulated app says the newest version the evidence names (joeahkim/InstaAddict, 447.0.0.55.81).
    const defaults: Record<string, string> = { [INSTAGRAM]: '447.0.0.55.81', [TIKTOK]: '43.1.4', [TIKTOK_TRILL]: '46.1.3' };
    return this.state.options.versions?.[packageName] ?? defaults[packageName] ?? null;
  }
}
