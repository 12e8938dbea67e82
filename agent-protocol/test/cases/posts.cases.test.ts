import { describe, expect, it } from 'vitest';
import { parseUiXml } from '../../src/recipes/recipe.ui.ts';
import { fixture } from '../fake-android.ts';
import { mediaFile, phonePerTest, runCase } from './case-phone.ts';

const phoneFor = phonePerTest();

/** The words of a fixture's toast (the last android.widget.Toast node). */
const toastOf = (file: string) => parseUiXml(fixture(`real/${file}`)).nodes.find((node) => node.className === 'android.widget.Toast')?.text ?? '';

/** Both ways a farm host reads a screen: the UI server's page source, and `uiautomator dump` where it is refused. */
const READERS = [
  ['the UI server', { uiServer: '10.6.6' }],
  ['the dump fallback', {}],
] as const;

describe.each(READERS)('Instagram posts read through %s', { timeout: 120_000 }, (_reader, reader) => {
  it('a photo post is shared by share_footer_button and counted once the pending row reads "Posted!"', async () => {
    const phone = await phoneFor(reader);
    const { result, hits } = await runCase(phone, 'instagram', 'create_post', { media: [await mediaFile('pier.jpg')] });
    expect(result.failure).toBeUndefined();
    expect(result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    expect(hits).toContain('share_footer_button');
    expect(hits).not.toContain('share_button');
    expect(phone.sim.published).toHaveLength(1);
  });

  it('a pending row that goes from view without "Posted!" is no post: post_unconfirmed, nothing counted', async () => {
    const phone = await phoneFor({ ...reader, uploadUnconfirmed: true });
    const { result } = await runCase(phone, 'instagram', 'create_post', { media: [await mediaFile('pier.jpg')] });
    expect(result).toMatchObject({ status: 'failed', actions: { post: 0 }, failure: { code: 'post_unconfirmed' } });
    // Instagram did post (the simulated app published it); the run cannot say so, and a person checks.
    expect(phone.sim.published).toHaveLength(1);
    expect(result.failure?.message).toContain('"Posted!"');
  });

  it('a failed-upload banner left from before is dismissed first and does not fail the new upload', async () => {
    const phone = await phoneFor({ ...reader, leftoverUploadFailed: 'discards' });
    await phone.sim.launchApp('com.instagram.android');
    expect(phone.sim.uiXml()).toContain("Video can't be posted");
    const { result, hits } = await runCase(phone, 'instagram', 'create_post', { media: [await mediaFile('pier.jpg')] });
    expect(hits[0]).toBe('row_pending_media_discard_button');
    expect(phone.sim.events).toContain('discarded the failed upload');
    expect(result).toMatchObject({ status: 'completed', actions: { post: 1 } });
  });

  it('a leftover banner that will not go is left as stale: the new upload still counts on "Posted!"', async () => {
    const phone = await phoneFor({ ...reader, leftoverUploadFailed: 'stays' });
    const { result } = await runCase(phone, 'instagram', 'create_post', { media: [await mediaFile('pier.jpg')] });
    expect(phone.sim.events).toContain("tapped the failed upload's discard: it stays");
    expect(result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    expect(phone.sim.events).not.toContain('discarded the failed upload');
  });

  it('a carousel ends unsupported before anything is done on the phone, and is not retried', async () => {
    const phone = await phoneFor(reader);
    const media = [await mediaFile('a.jpg'), await mediaFile('b.jpg')];
    const { result } = await runCase(phone, 'instagram', 'create_post', { media });
    expect(result.failure).toMatchObject({
      code: 'unsupported',
      retryable: false,
      message: "Carousel posts are not supported on phones: Android's am cannot send several files to the app.",
    });
    expect(phone.android.intents).toEqual([]);
    expect(phone.android.inputs).toEqual([]);
    expect(phone.android.forceStopped).toEqual([]);
  });
});

describe.each(READERS)('TikTok posts read through %s', { timeout: 120_000 }, (reader, options) => {
  const seesToasts = reader === 'the UI server';

  it(`"${toastOf('tiktok-musically/toast-posted.xml')}" confirms the post ${seesToasts ? 'and it counts' : 'only where toasts can be seen'}`, async () => {
    const phone = await phoneFor({ ...options, postToast: toastOf('tiktok-musically/toast-posted.xml') });
    const { result } = await runCase(phone, 'tiktok', 'create_post', { media: [await mediaFile('run.jpg')] });
    if (seesToasts) expect(result).toMatchObject({ status: 'completed', actions: { post: 1 } });
    else expect(result.failure).toMatchObject({ code: 'post_unconfirmed', message: expect.stringContaining('only with a toast') });
  });

  it(`"${toastOf('tiktok-musically/toast-couldnt-post.xml')}" holds "post" but confirms nothing: post_unconfirmed, not counted`, async () => {
    const phone = await phoneFor({ ...options, postToast: toastOf('tiktok-musically/toast-couldnt-post.xml') });
    const { result } = await runCase(phone, 'tiktok', 'create_post', { media: [await mediaFile('run.jpg')] });
    expect(phone.sim.published).toEqual([]);
    expect(result).toMatchObject({ status: 'failed', actions: { post: 0 }, failure: { code: 'post_unconfirmed' } });
    expect(result.failure?.message).toContain(seesToasts ? 'TikTok did not say "Video posted" within the limit' : 'only with a toast');
  });
});

describe('a screen that cannot be read', { timeout: 120_000 }, () => {
  it.each([
    ['the UI server crashing at each page source and the dump never idle', { uiServer: '10.6.6', uiServerBehaviour: 'crashes' }],
    ['the dump fallback never idle', {}],
  ] as const)('through %s ends screen_unreadable with no Back, no tap and no blame on a crash', async (_how, options) => {
    const phone = await phoneFor(options);
    phone.android.animated = true;
    // Fewer looks than a phone takes (each busy read would cost a phone ten seconds): the same end, sooner.
    const { result } = await runCase(phone, 'instagram', 'warmup', { engagement: 100, minutes: 1 }, { busyRetries: 0, pollMs: 10_000 });
    expect(result.failure).toMatchObject({ code: 'screen_unreadable', message: expect.stringContaining('nothing was done on it') });
    // Launched for the known start, then nothing: no Back out of a screen nobody could see, no tap, no swipe.
    expect(phone.android.inputs.filter((input) => input.startsWith('keyevent'))).toEqual([]);
    expect(phone.android.inputs.filter((input) => input.startsWith('tap') || input.startsWith('swipe'))).toEqual([]);
    expect(phone.sim.taps).toEqual([]);
  });
});
