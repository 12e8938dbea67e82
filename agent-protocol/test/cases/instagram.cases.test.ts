/**
 * Instagram cases where the recipes must read the screen as public sources show it: the signed-in username under
 * each title id, the like read from both its `selected` state and its words, a renamed like id seen by the breaker,
 * the comment sheet that is no dialog, and a sheet dismissed outside itself. Each runs the shipped recipe through the
 * farm host, the fake adb server and the simulated phone serving real trees (test/fixtures/real, EVIDENCE.md), once
 * through the UI server and once through the `uiautomator dump` fallback.
 */
import { describe, expect, it } from 'vitest';
import { parseUiXml } from '../../src/recipes/recipe.ui.ts';
import { phonePerTest, runCase, variant } from './case-phone.ts';

const phoneFor = phonePerTest();

/** Both ways a farm host reads a screen: the UI server's page source, and `uiautomator dump` where it is refused. */
const READERS = [
  ['the UI server', { uiServer: '10.6.6' }],
  ['the dump fallback', {}],
] as const;

describe.each(READERS)('Instagram cases read through %s', { timeout: 120_000 }, (_reader, reader) => {
  it('the account check reads the username under action_bar_large_title_auto_size and lets the run start', async () => {
    const phone = await phoneFor({ ...reader, account: 'farm.account' });
    await phone.sim.launchApp('com.instagram.android');
    const tab = parseUiXml(phone.sim.uiXml()).nodes.find((node) => node.resourceId.endsWith(':id/profile_tab'));
    await phone.sim.tap(((tab?.bounds.left ?? 0) + (tab?.bounds.right ?? 0)) / 2, ((tab?.bounds.top ?? 0) + (tab?.bounds.bottom ?? 0)) / 2);
    const title = parseUiXml(phone.sim.uiXml()).nodes.find((node) => node.text === 'farm.account');
    expect(title?.resourceId).toBe('com.instagram.android:id/action_bar_large_title_auto_size');
    const { result } = await runCase(
      phone,
      'instagram',
      'warmup',
      { engagement: 0, minutes: 1 },
      { preflight: { allowUntestedApp: true, account: 'farm.account' } },
    );
    expect(result.failure).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(phone.sim.taps.filter((tap) => tap.hit === 'profile_tab').length).toBe(2);
  });

  it('another account signed in under that id ends the run wrong_account', async () => {
    const phone = await phoneFor({ ...reader, account: 'someone.else' });
    const { result } = await runCase(
      phone,
      'instagram',
      'warmup',
      { engagement: 0, minutes: 1 },
      { preflight: { allowUntestedApp: true, account: 'farm.account' } },
    );
    expect(result.failure?.code).toBe('wrong_account');
    expect(result.failure?.message).toContain('@someone.else');
  });
});

describe.each(READERS)('a renamed Instagram like id, read through %s', { timeout: 120_000 }, (_reader, reader) => {
  it('each post without its like counts as a miss, and the fifth in a row ends the run app_changed', async () => {
    const phone = await phoneFor({ ...reader, fixtures: variant('instagram/feed.xml', 'instagram/feed-like-renamed.xml') });
    const { result, hits } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 5 });
    expect(result.status).toBe('failed');
    expect(result.failure?.code).toBe('app_changed');
    expect(result.failure?.message).toMatch(/^5 misses in a row/);
    expect(result.misses).toBe(5);
    // Nothing was tapped in the like's place, and no like counted.
    expect(hits).not.toContain('row_feed_button_like_icon');
    expect(result.actions.like).toBe(0);
    expect(phone.sim.events.filter((event) => event.startsWith('liked '))).toEqual([]);
  });
});

describe.each(READERS)('an Instagram like whose state and words disagree, read through %s', { timeout: 120_000 }, (_reader, reader) => {
  it('is never tapped: each such post is skipped as a miss, and five in a row end the run app_changed', async () => {
    // feed-liked.xml: the like button selected while its words still say "Like".
    const phone = await phoneFor({ ...reader, fixtures: variant('instagram/feed.xml', 'instagram/feed-liked.xml') });
    await phone.sim.launchApp('com.instagram.android');
    const like = parseUiXml(phone.sim.uiXml()).nodes.find((node) => node.resourceId.endsWith(':id/row_feed_button_like'));
    expect(like).toMatchObject({ selected: true, desc: 'Like' });
    const { result, hits, progress } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 5 });
    expect(hits).not.toContain('row_feed_button_like');
    expect(phone.sim.events.filter((event) => event.startsWith('liked ') || event.startsWith('unliked '))).toEqual([]);
    expect(result.actions.like).toBe(0);
    expect(progress.some((event) => /reads neither not selected and "Like" nor selected and "Liked"/.test(event.detail ?? ''))).toBe(true);
    expect(result.failure?.code).toBe('app_changed');
    expect(result.misses).toBe(5);
  });
});

describe.each(READERS)("Instagram's comment sheet is no dialog, read through %s", { timeout: 120_000 }, (_reader, reader) => {
  it('a comment in the sheet saying "try again later" does not pause the account', async () => {
    const phone = await phoneFor({ ...reader, fixtures: variant('instagram/comments.xml', 'instagram/comments-sheet-try-again.xml') });
    const { result, progress } = await runCase(
      phone,
      'instagram',
      'engage_comments',
      {
        // A reference account's posts: the sheet is reached by a link, the same way through either reader.
        keywords: [],
        accounts: ['maya_k'],
        allowances: { comment: 1 },
      },
      // Every chance drawn low: the comment round (30%) runs.
      { random: () => 0.1 },
    );
    // The sheet was open, its words on screen, and the run went on past it.
    expect(progress.some((event) => event.label === 'See whether comments are open' && event.status === 'done')).toBe(true);
    expect(result.failure?.code).not.toBe('rate_limited');
    expect(result.status).toBe('completed');
    expect(result.actions.follow).toBe(1);
  });

  it('a real block dialog still ends the run rate_limited, the refused like not counted', async () => {
    const phone = await phoneFor({ ...reader, rateLimitAfterLikes: 1 });
    const { result } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 5 });
    expect(phone.sim.uiXml()).toContain('com.instagram.android:id/dialog_root_view');
    expect(result.failure?.code).toBe('rate_limited');
    expect(result.actions.like).toBe(1);
  });
});

describe.each(READERS)('dismissing an Instagram sheet, read through %s', { timeout: 120_000 }, (_reader, reader) => {
  it("taps the dimmer where the sheet does not cover it, not the dimmer's centre inside the sheet", async () => {
    const phone = await phoneFor({
      ...reader,
      sheet: 'promotion',
      fixtures: variant('instagram/reels-promo-sheet.xml', 'instagram/reels-promo-sheet-tall.xml'),
    });
    await phone.sim.launchApp('com.instagram.android');
    const screen = parseUiXml(phone.sim.uiXml());
    const dimmer = screen.nodes.find((node) => node.resourceId.endsWith(':id/background_dimmer'));
    const sheet = screen.nodes.find((node) => node.resourceId.endsWith(':id/layout_container_bottom_sheet'));
    // The page source this case is about: the dimmer's centre lies inside the sheet.
    const centreY = ((dimmer?.bounds.top ?? 0) + (dimmer?.bounds.bottom ?? 0)) / 2;
    expect(centreY).toBeGreaterThan(sheet?.bounds.top ?? Number.POSITIVE_INFINITY);
    const { result } = await runCase(phone, 'instagram', 'doom_scroll', { minutes: 1 });
    expect(phone.sim.events).toContain('closed the promotion sheet');
    expect(phone.sim.events).not.toContain('tapped inside the promotion sheet');
    const tap = phone.sim.taps.find((item) => item.hit === 'background_dimmer');
    expect(tap).toBeDefined();
    expect(result.failure).toBeUndefined();
  });
});
