/**
 * Inspect on a rebuilt Instagram feed (test/fixtures/ui-instagram-feed.xml, its sources in the fixtures' EVIDENCE.md):
 * the node under a point, the selectors that find it marked unique or not (an id on its own; a description where the
 * id repeats; an index only when nothing else is unique), how a selector fares on another screen, and the capture's
 * limits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAPTURE_LIMITS, captureTree, checkSelector, nodeAt, recordTarget, selectorsFor, uiTreeSchema } from './recipe.inspect.ts';
import { parseUiXml } from './recipe.ui.ts';

const feed = parseUiXml(readFileSync(new URL('../../test/fixtures/ui-instagram-feed.xml', import.meta.url), 'utf8'));
const search = parseUiXml(readFileSync(new URL('../../test/fixtures/ui-instagram-search.xml', import.meta.url), 'utf8'));

/**
 * A real Instagram feed, rebuilt from a public page source (test/fixtures/real/instagram/feed.xml: YallaPapi/
 * geelark-automation@8922f15 error_logs/EmptyFuelMatrix_20251222_215402/error_001_page_source.xml; 720 x 1440): an
 * ordinary post and, below it, a sponsored one, so the header's ids repeat.
 */
const realFeed = parseUiXml(readFileSync(new URL('../../test/fixtures/real/instagram/feed.xml', import.meta.url), 'utf8'));

describe('Record on a real feed', () => {
  /** A tap at the centre of the first node with this id (and text), as a share of the screen. */
  const tapOn = (id: string, text?: string) => {
    const node = realFeed.nodes.find((at) => at.resourceId.endsWith(`:id/${id}`) && (text === undefined || at.text === text))!;
    return recordTarget(realFeed, {
      x: (node.bounds.left + node.bounds.right) / 2 / realFeed.width,
      y: (node.bounds.top + node.bounds.bottom) / 2 / realFeed.height,
    });
  };

  it('offers the unique selector of the node under the finger: id, id with text, description, text', () => {
    expect(tapOn('row_feed_button_like')).toMatchObject({ selector: { id: 'row_feed_button_like' }, kind: 'id' });
    // Both posts' headers carry row_feed_photo_profile_name: the id with the author's name finds this one.
    expect(tapOn('row_feed_photo_profile_name', 'sunny.trails')).toMatchObject({
      selector: { id: 'row_feed_photo_profile_name', text: 'sunny.trails' },
      kind: 'id + text',
    });
    // The profile pictures share an id and differ by their description.
    expect(tapOn('row_feed_photo_profile_imageview')).toMatchObject({ selector: { desc: 'Profile picture of sunny.trails' }, kind: 'description' });
    // The like count is a button with no id whose text is unique on this screen.
    const count = realFeed.nodes.find((node) => node.text === '23')!;
    expect(
      recordTarget(realFeed, { x: (count.bounds.left + count.bounds.right) / 2 / 720, y: (count.bounds.top + count.bounds.bottom) / 2 / 1440 }),
    ).toMatchObject({ selector: { text: '23' }, kind: 'text' });
  });

  it('makes no selector of an index or a class alone: the tap stays a point, for a positional step', () => {
    // "More actions for this post" repeats, id and description, on both posts: only an index would tell them apart.
    const more = tapOn('media_option_button');
    expect(
      selectorsFor(realFeed, nodeAt(realFeed, 684, 527)!)
        .filter((candidate) => candidate.unique)
        .map((candidate) => candidate.kind),
    ).toEqual(['id + index']);
    expect(more.selector).toBeUndefined();
    expect(more.kind).toBeUndefined();
    expect(more).toMatchObject({ point: { x: 0.9507, y: 0.3663 }, package: 'com.instagram.android', label: 'ImageView: media_option_button' });
    // The button around the sponsored post's profile picture has neither id, text nor description: only its class and place.
    const wrapper = recordTarget(realFeed, { x: 10 / 720, y: 1200 / 1440 });
    expect(wrapper.selector).toBeUndefined();
  });
});

describe('Inspect', () => {
  it('finds the smallest node under a point', () => {
    const like = nodeAt(feed, 68, 1846);
    expect(feed.nodes[like!]?.resourceId).toBe('com.instagram.android:id/row_feed_button_like');
    expect(nodeAt(feed, -5, -5)).toBeNull();
  });

  it('offers the id first when it is unique, and marks the others', () => {
    const like = nodeAt(feed, 68, 1846)!;
    const offered = selectorsFor(feed, like);
    expect(offered[0]).toEqual({ kind: 'id', selector: { id: 'row_feed_button_like' }, matches: 1, unique: true });
    expect(offered.find((candidate) => candidate.kind === 'description')).toMatchObject({ selector: { desc: 'Like' }, unique: true });
    expect(offered.some((candidate) => candidate.selector.index !== undefined)).toBe(false);
  });

  it('prefers a description where the id repeats, and falls back to an index only when nothing else is unique', () => {
    // The stories share one id and differ by their description.
    const story = nodeAt(feed, 367, 400)!;
    const offered = selectorsFor(feed, story);
    expect(offered.find((candidate) => candidate.kind === 'id')).toMatchObject({ matches: 3, unique: false });
    expect(offered.find((candidate) => candidate.kind === 'description')).toMatchObject({ unique: true });
    expect(offered.some((candidate) => candidate.selector.index !== undefined)).toBe(false);
    // The tab icons share one id and have neither text nor description: an index is the only way.
    const tab = nodeAt(feed, 540, 2205)!;
    const tabs = selectorsFor(feed, tab);
    expect(tabs.at(-1)).toEqual({ kind: 'id + index', selector: { id: 'tab_icon', index: 2 }, matches: 5, unique: true });
    expect(tabs.filter((candidate) => candidate.unique)).toHaveLength(1);
  });

  it('tells whether a selector still finds its node on another saved screen', () => {
    expect(checkSelector(feed, { id: 'row_feed_button_like' })).toEqual({ matches: 1, finds: true });
    expect(checkSelector(search, { id: 'row_feed_button_like' })).toEqual({ matches: 0, finds: false });
    // Several matches and no index: not the one node it was made for.
    expect(checkSelector(feed, { id: 'tab_icon' }).finds).toBe(false);
    expect(checkSelector(feed, { id: 'tab_icon', index: 4 }).finds).toBe(true);
  });

  it('keeps a capture within its limits and refuses a tree that is not one', () => {
    const tree = captureTree(feed);
    expect(uiTreeSchema.safeParse(tree).success).toBe(true);
    const huge = captureTree({
      ...feed,
      nodes: Array.from({ length: CAPTURE_LIMITS.nodes + 50 }, (_, at) => ({
        ...feed.nodes[1]!,
        parent: at === 0 ? -1 : 0,
        depth: at === 0 ? 0 : 1,
        text: 'x'.repeat(5000),
      })),
    });
    expect(huge.nodes).toHaveLength(CAPTURE_LIMITS.nodes);
    expect(huge.nodes[1]?.text).toHaveLength(CAPTURE_LIMITS.text);
    const broken = uiTreeSchema.safeParse({ ...tree, nodes: [{ ...tree.nodes[0]!, parent: 5 }] });
    expect(broken.success).toBe(false);
  });
});
