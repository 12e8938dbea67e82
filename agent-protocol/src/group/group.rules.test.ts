import { describe, expect, it } from 'vitest';
import { serverMessages } from '../messages.ts';
import { groupAction, groupLists, notSupportedResult, supportsGroup, type GroupActionInput } from './group.messages.ts';
import { cannotAdd, checkGroupRules, checkIntent, GROUP_DENYLIST } from './group.rules.ts';

const lists = groupLists.parse({ appLibrary: ['com.example.vpn'], recipePackages: ['com.example.driven'] });
const settings = { front: 'com.android.settings', packages: ['com.android.settings', 'com.android.systemui'], shade: false, split: false, pip: false };
const action = (input: GroupActionInput) => groupAction.parse(input);
const intent = (act: string, data?: string) =>
  action({ kind: 'intent', action: act, ...(data ? { data } : {}) }) as Extract<ReturnType<typeof action>, { kind: 'intent' }>;

describe('group control rules', () => {
  it('lets a tap, a scroll and text through in Settings', () => {
    expect(checkGroupRules(action({ kind: 'selector', selector: { text: 'Network & internet' } }), settings, lists)).toEqual({ ok: true });
    expect(checkGroupRules(action({ kind: 'scroll', x: 0.5, y: 0.5, dy: 0.5 }), settings, lists)).toEqual({ ok: true });
    expect(checkGroupRules(action({ kind: 'text', text: 'Wi‑Fi café ☕' }), settings, lists)).toEqual({ ok: true });
  });

  it('refuses with a sentence when an app of the deny list is in front or shows', () => {
    expect(
      checkGroupRules(action({ kind: 'key', key: 'back' }), { ...settings, front: 'com.instagram.android', packages: ['com.instagram.android'] }, lists),
    ).toEqual({
      ok: false,
      reason: 'Group control is for setup: Instagram is in front.',
    });
    expect(
      checkGroupRules(action({ kind: 'key', key: 'enter' }), { ...settings, packages: [...settings.packages, 'com.zhiliaoapp.musically'] }, lists),
    ).toEqual({
      ok: false,
      reason: 'Group control is for setup: TikTok shows on the screen.',
    });
    expect(checkGroupRules(action({ kind: 'point', x: 0.5, y: 0.5 }), settings, lists, 'com.whatsapp')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('WhatsApp'),
    });
  });

  it('holds Home to rule 1 like every other action: an app with accounts in front refuses it', () => {
    const instagram = { ...settings, front: 'com.instagram.android', packages: ['com.instagram.android'] };
    expect(checkGroupRules(action({ kind: 'key', key: 'home' }), instagram, lists)).toEqual({
      ok: false,
      reason: 'Group control is for setup: Instagram is in front.',
    });
    expect(checkGroupRules(action({ kind: 'key', key: 'recents' }), instagram, lists)).toMatchObject({ ok: false });
  });

  it('names both TikTok packages, Chrome, Firefox and Samsung Internet on the deny list, which operators can never add', () => {
    for (const name of ['com.zhiliaoapp.musically', 'com.ss.android.ugc.trill', 'com.android.chrome', 'org.mozilla.firefox', 'com.sec.android.app.sbrowser'])
      expect(GROUP_DENYLIST[name]).toBeDefined();
    expect(cannotAdd('com.twitter.android', [])).toContain('X (com.twitter.android)');
    expect(cannotAdd('com.example.driven', ['com.example.driven'])).toContain('driven by a recipe');
    expect(cannotAdd('com.example.vpn', [])).toBeNull();
    // Added: allowed. Added but denied or driven by a recipe: still refused.
    const other = { ...settings, front: 'com.example.vpn', packages: ['com.example.vpn'] };
    expect(checkGroupRules(action({ kind: 'key', key: 'back' }), other, lists).ok).toBe(false);
    expect(checkGroupRules(action({ kind: 'key', key: 'back' }), other, { ...lists, added: ['com.example.vpn'] }).ok).toBe(true);
    const insta = { ...settings, front: 'com.instagram.android', packages: ['com.instagram.android'] };
    expect(checkGroupRules(action({ kind: 'key', key: 'back' }), insta, { ...lists, added: ['com.instagram.android'] }).ok).toBe(false);
    const driven = { ...settings, front: 'com.example.driven', packages: ['com.example.driven'] };
    expect(checkGroupRules(action({ kind: 'key', key: 'back' }), driven, { ...lists, added: ['com.example.driven'] }).ok).toBe(false);
  });

  it('types only into Settings, the setup wizard and system dialogs; the Play Store takes taps, keys and scrolls', () => {
    const play = { ...settings, front: 'com.android.vending', packages: ['com.android.vending'] };
    expect(checkGroupRules(action({ kind: 'selector', selector: { text: 'Auto-update apps' } }), play, lists).ok).toBe(true);
    expect(checkGroupRules(action({ kind: 'swipe', from: { x: 0.5, y: 0.8 }, to: { x: 0.5, y: 0.2 } }), play, lists).ok).toBe(true);
    expect(checkGroupRules(action({ kind: 'text', text: 'vpn' }), play, lists)).toEqual({
      ok: false,
      reason: 'Group control is for setup: in the Play Store only taps, keys and scrolls go through.',
    });
    for (const press of [
      action({ kind: 'selector', selector: { text: 'Auto-update apps' }, press: 'long_press' }),
      action({ kind: 'finger', x: 0.5, y: 0.5, press: 'long_press' }),
    ])
      expect(checkGroupRules(press, play, lists)).toEqual({
        ok: false,
        reason: 'Group control is for setup: in the Play Store only taps, keys and scrolls go through.',
      });
    expect(checkGroupRules(action({ kind: 'selector', selector: { text: 'Network preferences' }, press: 'long_press' }), settings, lists).ok).toBe(true);
    const launcher = { ...settings, front: 'com.android.launcher3', packages: ['com.android.launcher3'] };
    expect(checkGroupRules(action({ kind: 'text', text: 'x' }), launcher, lists)).toEqual({
      ok: false,
      reason: 'Group control is for setup: text goes only into Settings, the setup wizard and system dialogs, not the launcher.',
    });
    const dialog = { ...settings, front: 'com.android.permissioncontroller', packages: ['com.android.permissioncontroller'] };
    expect(checkGroupRules(action({ kind: 'text', text: 'x' }), dialog, lists).ok).toBe(true);
  });

  it('opens only Settings actions, details pages and Play Store pages of the app library', () => {
    expect(checkIntent(intent('android.settings.WIFI_SETTINGS'), [])).toEqual({ ok: true });
    expect(checkIntent(intent('android.settings.APPLICATION_DETAILS_SETTINGS', 'package:com.android.vending'), [])).toEqual({ ok: true });
    expect(checkIntent(intent('android.settings.APPLICATION_DETAILS_SETTINGS'), []).ok).toBe(false);
    expect(checkIntent(intent('android.settings.WIFI_SETTINGS', 'https://example.com'), [])).toEqual({
      ok: false,
      reason: 'Group control is for setup: web links are never opened.',
    });
    expect(checkIntent(intent('android.intent.action.VIEW', 'market://details?id=com.example.vpn'), ['com.example.vpn'])).toEqual({ ok: true });
    expect(checkIntent(intent('android.intent.action.VIEW', 'market://details?id=com.example.vpn'), [])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('app library'),
    });
    expect(checkIntent(intent('android.intent.action.VIEW', 'market://details?id=com.example.vpn&referrer=x'), ['com.example.vpn']).ok).toBe(false);
    expect(checkIntent(intent('android.intent.action.VIEW', 'http://example.com'), []).ok).toBe(false);
    expect(checkIntent(intent('android.intent.action.SEND'), [])).toMatchObject({ ok: false, reason: expect.stringContaining('SEND') });
    expect(checkIntent(intent('com.android.settings.action.SECRET'), []).ok).toBe(false);
    // No component and no extras can be said at all.
    expect(groupAction.safeParse({ kind: 'intent', action: 'android.settings.WIFI_SETTINGS', component: 'com.android.settings/.Settings' }).success).toBe(
      false,
    );
    expect(groupAction.safeParse({ kind: 'intent', action: 'android.settings.WIFI_SETTINGS', extras: { a: 'b' } }).success).toBe(false);
  });

  it('lets only Back and Home through while the shade, a split screen or a PiP window shows', () => {
    for (const overlay of [{ shade: true }, { split: true }, { pip: true }]) {
      const screen = { ...settings, ...overlay };
      expect(checkGroupRules(action({ kind: 'key', key: 'back' }), screen, lists).ok).toBe(true);
      expect(checkGroupRules(action({ kind: 'key', key: 'home' }), screen, lists).ok).toBe(true);
      expect(checkGroupRules(action({ kind: 'key', key: 'recents' }), screen, lists).ok).toBe(false);
      expect(checkGroupRules(action({ kind: 'point', x: 0.5, y: 0.5 }), screen, lists).ok).toBe(false);
    }
    expect(checkGroupRules(action({ kind: 'key', key: 'enter' }), { ...settings, shade: true }, lists)).toEqual({
      ok: false,
      reason: 'Group control is for setup: the notification shade is showing (only Back and Home go through).',
    });
  });

  it('is a message agents that listed group take; others are Not supported', () => {
    expect(supportsGroup(['live', 'control'])).toBe(false);
    expect(supportsGroup(['group'])).toBe(true);
    expect(notSupportedResult('a1')).toMatchObject({ kind: 'not_supported', label: 'Not supported' });
    const parsed = serverMessages['group.act'].parse({ actionId: 'a1', action: { kind: 'selector', selector: { id: 'title', text: 'Network & internet' } } });
    expect(parsed.action).toEqual({ kind: 'selector', selector: { id: 'title', text: 'Network & internet' }, press: 'tap' });
    expect(serverMessages['group.act'].safeParse({ actionId: 'a1', action: { kind: 'selector', selector: { index: 2 } } }).success).toBe(false);
  });
});
