/**
 * Cases from real phones, each run by the shipped recipe through the farm host, the fake adb server and the simulated
 * phone serving real trees (test/fixtures/real, EVIDENCE.md), once through the UI server and once through the
 * `uiautomator dump` fallback; the playing video only the UI server can read runs through it alone.
 */
import { describe, expect, it } from 'vitest';
import type { HandOver } from '../../src/recipes/recipe.outcome.ts';
import { parseUiXml } from '../../src/recipes/recipe.ui.ts';
import { mediaFile, phonePerTest, runCase, variant, type CasePhone } from './case-phone.ts';

const phoneFor = phonePerTest();

/** Likes the phone saw happen, and likes taken back. */
const likes = (phone: CasePhone) => phone.sim.events.filter((event) => event.startsWith('liked '));
const unlikes = (phone: CasePhone) => phone.sim.events.filter((event) => event.startsWith('unliked '));

/** Both ways a farm host reads a screen: the UI server's page source, and `uiautomator dump` where it is refused. */
const READERS = [
  ['the UI server', { uiServer: '10.6.6' }],
  ['the dump fallback', {}],
] as const;

describe.each(READERS)('cases from real phones, run by the shipped recipes through the farm host, read through %s', { timeout: 120_000 }, (_reader, reader) => {
  it('an already-liked post is left liked: read by its selected state and its words, never tapped, never counted', async () => {
    const phone = await phoneFor({ ...reader, liked: ['sunny.trails#0'] });
    // A liked post as public notes describe it: the like button selected, its words "Liked".
    await phone.sim.launchApp('com.instagram.android');
    const like = parseUiXml(phone.sim.uiXml()).nodes.find((node) => node.resourceId.endsWith(':id/row_feed_button_like'));
    expect(like).toMatchObject({ selected: true, desc: 'Liked' });
    const { result, hits } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 1 });
    expect(result.failure).toBeUndefined();
    expect(unlikes(phone)).toEqual([]);
    expect(phone.sim.liked.has('sunny.trails#0')).toBe(true);
    // Every like counted is one the phone saw; no tap landed on nothing.
    expect(result.actions.like).toBe(likes(phone).length);
    expect(hits.filter((hit) => hit === null)).toEqual([]);
  });

  it('an already-liked TikTok video (desc "Like", selected) is left liked on both packages', async () => {
    for (const tiktokPackage of ['com.zhiliaoapp.musically', 'com.ss.android.ugc.trill'] as const) {
      const phone = await phoneFor({ ...reader, tiktokPackage, liked: ['tt:alex.rivera#0'] });
      await phone.sim.launchApp(tiktokPackage);
      const like = parseUiXml(phone.sim.uiXml()).nodes.find((node) => node.className.endsWith('Button') && /^Like( video\.|$)/.test(node.desc));
      // TikTok drops the count and never says "Unlike": only selected tells the state.
      expect(like).toMatchObject({ desc: 'Like', selected: true });
      const { result } = await runCase(phone, 'tiktok', 'warmup', { engagement: 100, minutes: 1 });
      expect(result.package).toBe(tiktokPackage);
      expect(unlikes(phone)).toEqual([]);
      expect(phone.sim.liked.has('tt:alex.rivera#0')).toBe(true);
      expect(result.actions.like).toBe(likes(phone).length);
    }
  });

  it('a caption containing "try again later" is content, not a limit: the warm-up goes on', async () => {
    const phone = await phoneFor({ ...reader, fixtures: variant('instagram/feed.xml', 'instagram/feed-caption-try-again.xml') });
    await phone.sim.launchApp('com.instagram.android');
    expect(phone.sim.uiXml()).toContain('Try again later? No way, the sunset was worth it');
    const { result } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 1 });
    expect(result.failure?.code).not.toBe('rate_limited');
    expect(result.status).toBe('completed');
    expect(result.actions.like).toBe(likes(phone).length);
  });

  it('a private profile is skipped with its reason and the next account is worked', async () => {
    const phone = await phoneFor({ ...reader, privateAccounts: ['kai_outdoors'] });
    const { result } = await runCase(phone, 'instagram', 'engage_comments', { keywords: [], accounts: ['kai_outdoors', 'maya_k'] });
    expect(result.status).toBe('completed');
    expect(result.failure).toBeUndefined();
    expect(result.skipped.join(' ')).toMatch(/private/i);
    expect(phone.sim.followed.has('maya_k')).toBe(true);
    expect(result.actions.follow).toBe(phone.sim.followed.size);
  });

  it('comments turned off: nothing is typed, the post is skipped with its reason, no comment is counted', async () => {
    const phone = await phoneFor({ ...reader, fixtures: variant('instagram/comments.xml', 'instagram/comments-off.xml') });
    const { result, typed } = await runCase(phone, 'instagram', 'engage_comments', { accounts: [], allowances: { comment: 3 } });
    expect(result.status).toBe('completed');
    expect(typed).not.toContain('Love this!');
    expect(result.actions.comment).toBe(0);
    expect(phone.sim.comments).toEqual([]);
    expect(result.skipped.join(' ')).toMatch(/comment/i);
  });

  it('a search with no results is skipped with its reason and the next keyword is searched', async () => {
    const phone = await phoneFor(reader);
    const { result, typed } = await runCase(phone, 'instagram', 'engage_comments', {
      keywords: ['zzqxv sunset 000', 'sunset beach'],
      accounts: [],
    });
    expect(result.status).toBe('completed');
    expect(result.skipped.join(' ')).toMatch(/result/i);
    expect(typed.join(' ')).toContain('sunset beach');
  });

  it('the add-phone-number sheet that has only an X is closed by its X, and the warm-up goes on', async () => {
    const phone = await phoneFor({ ...reader, sheet: 'add-phone' });
    const { result, hits } = await runCase(phone, 'tiktok', 'warmup', { engagement: 100, minutes: 1 });
    expect(phone.sim.events).toContain('closed the add-phone-number sheet');
    expect(hits).toContain('Close');
    expect(result.failure).toBeUndefined();
    expect(result.actions.like).toBe(likes(phone).length);
  });

  it('a failed upload is not counted as a post: the app says it cannot be posted', async () => {
    const phone = await phoneFor({ ...reader, uploadFails: true });
    const { result } = await runCase(phone, 'instagram', 'create_post', { media: [await mediaFile('pier.jpg')] });
    // The file went to the phone, was indexed and shared to Instagram's share activity.
    expect(phone.android.intents.map((intent) => intent.component)).toEqual(['com.instagram.android/com.instagram.share.handleractivity.ShareHandlerActivity']);
    expect(phone.sim.published).toEqual([]);
    expect(result.actions.post).toBe(0);
    expect(result.status).toBe('failed');
    expect(['post_unconfirmed', 'post_failed']).toContain(result.failure?.code);
  });

  it('a renamed id after an app update (TikTok 35.x ids) still likes by the description, and never at a point', async () => {
    const phone = await phoneFor({ ...reader, fixtures: variant('tiktok-musically/feed.xml', 'tiktok-musically/feed-renamed-35.xml') });
    await phone.sim.launchApp('com.zhiliaoapp.musically');
    expect(phone.sim.uiXml()).toContain('com.zhiliaoapp.musically:id/evz');
    const { result, hits } = await runCase(phone, 'tiktok', 'warmup', { engagement: 100, minutes: 1 });
    expect(hits.filter((hit) => hit === null)).toEqual([]);
    expect(hits).not.toContain('long_press_layout');
    expect(result.actions.like).toBe(likes(phone).length);
    // Either the recipe finds the like by its words, or the run ends app_changed: never a like counted unseen.
    if (result.failure) expect(result.failure.code).toBe('app_changed');
    else expect(result.actions.like).toBeGreaterThan(0);
  });

  it("comments are a VA's: each post is handed over with its author and frame, nothing is typed or counted", async () => {
    const phone = await phoneFor(reader);
    const handed: HandOver[] = [];
    const { result, typed, progress } = await runCase(
      phone,
      'instagram',
      'engage_comments',
      { accounts: [], keywords: ['sunset beach'], allowances: { comment: 2 } },
      // Every chance drawn low: each post's comment round runs.
      { random: () => 0.1, onHandOver: (item) => void handed.push(item) },
    );
    expect(result.failure).toBeUndefined();
    expect(result.status).toBe('completed');
    // Only the keyword was typed: no comment text, nothing posted, nothing counted.
    expect(typed).toEqual(['sunset beach']);
    expect(phone.sim.comments).toEqual([]);
    expect(result.actions.comment).toBe(0);
    // Two posts handed over (the allowance), each with the author read from the post's header and the screen.
    expect(handed.map((item) => item.index)).toEqual([0, 1]);
    expect(result.handedOver.comment).toBe(2);
    for (const item of handed) {
      expect(item.kind).toBe('comment');
      expect(item.author).toMatch(/^[a-z0-9._]+$/);
      expect(item.frame?.data.byteLength).toBeGreaterThan(0);
    }
    // The comment sheet opened and was closed before the hand-over.
    expect(progress.some((event) => event.label === 'See whether comments are open' && event.status === 'done')).toBe(true);
    expect(progress.filter((event) => event.do === 'hand_over' && event.status === 'done').map((event) => event.detail)).toEqual(
      handed.map((item) => `Handed to a VA: a comment on @${item.author}'s post`),
    );
  });

  it('a post with comments turned off (no comment button, its like shown) is a skip, not a miss: nothing handed over', async () => {
    const phone = await phoneFor({ ...reader, commentsOff: true });
    const handed: HandOver[] = [];
    const { result, progress } = await runCase(
      phone,
      'instagram',
      'engage_comments',
      { accounts: [], keywords: ['sunset beach'], allowances: { comment: 2 } },
      // Every chance drawn low: each post's comment round runs.
      { random: () => 0.1, onHandOver: (item) => void handed.push(item) },
    );
    // Each opened post is real/instagram/post-comments-off.xml: liked by its like button, no comment button to tap.
    const hits = phone.sim.taps.map((tap) => tap.hit);
    expect(hits).toContain('row_feed_button_like');
    expect(hits).not.toContain('row_feed_button_comment');
    expect(result.actions.like).toBe(likes(phone).length);
    expect(result.failure).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.misses).toBe(0);
    expect(result.skipped.join(' ')).toContain('comments turned off');
    expect(handed).toEqual([]);
    expect(result.handedOver.comment).toBe(0);
    expect(progress.some((event) => event.label === 'See whether comments are open' && event.status === 'done')).toBe(false);
    expect(phone.sim.taps.filter((tap) => tap.hit === null)).toEqual([]);
  });

  it('an ad is skipped with its reason: not liked, not counted', async () => {
    const phone = await phoneFor(reader);
    const { result } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 1 });
    expect(phone.sim.events.filter((event) => event.startsWith('liked ad#'))).toEqual([]);
    expect(result.skipped.join(' ')).toMatch(/sponsored|\bad\b/i);
    expect(result.actions.like).toBe(likes(phone).length);
  });

  it('ordinary screens on trill: the keyword typed, a "Video by" result opened, each like confirmed and counted', async () => {
    const phone = await phoneFor({ ...reader, tiktokPackage: 'com.ss.android.ugc.trill' });
    const { result, hits, typed } = await runCase(phone, 'tiktok', 'engage_comments', {
      keywords: ['sunset beach'],
      accounts: [],
      allowances: { like: 3 },
    });
    expect(result.failure).toBeUndefined();
    expect(result.package).toBe('com.ss.android.ugc.trill');
    expect(typed).toEqual(['sunset beach']);
    expect(hits.some((hit) => hit?.startsWith('Video by sunset.beach,'))).toBe(true);
    expect(result.actions.like).toBe(3);
    expect(likes(phone)).toEqual(['liked tt:sunset.beach#0', 'liked tt:sunset.beach#1', 'liked tt:sunset.beach#2']);
  });
});

describe('a playing video read only by the UI server', { timeout: 120_000 }, () => {
  it('an action-blocked dialog over a playing video is read through the UI server and ends the run rate_limited; the refused like is not counted', {
    timeout: 120_000,
  }, async () => {
    // The feed animates: every `uiautomator dump` would fail "could not get idle state" and the dialog go unseen.
    const phone = await phoneFor({ rateLimitAfterLikes: 1, uiServer: '10.6.6' });
    const { result, hits } = await runCase(phone, 'tiktok', 'warmup', { engagement: 100, minutes: 1 });
    expect(await phone.phone.uiReader()).toEqual({ kind: 'ui-server', version: '10.6.6', seesToasts: true });
    expect(phone.android.dumps).toBe(0);
    // TikTok's dialog (zqh, "Dialog") over the For You feed, the video still playing under it.
    expect(phone.sim.uiXml()).toContain('text="Try again later"');
    expect(hits).toEqual(['f57', 'f57']);
    expect(phone.sim.events.filter((event) => event.startsWith('like'))).toEqual(['liked tt:alex.rivera#0', 'like refused on tt:urban.bites#1']);
    expect(result.failure?.code).toBe('rate_limited');
    expect(result.actions.like).toBe(1);
  });
});
