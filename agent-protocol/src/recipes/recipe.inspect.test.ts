/**
 * Inspect on a rebuilt Instagram feed (test/fixtures/ui-instagram-feed.xml, its sources in the fixtures' EVIDENCE.md):
 * the node under a point, the selectors that find it marked unique or not (an id on its own; a description where the
 * id repeats; an index only when nothing else is unique), how a selector fares on another screen, and the capture's
 * limits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAPTURE_LIMITS, captureTree, checkSelector, nodeAt, selectorsFor, uiTreeSchema } from './recipe.inspect.ts';
import { parseUiXml } from './recipe.ui.ts';

const feed = parseUiXml(readFileSync(new URL('../../test/fixtures/ui-instagram-feed.xml', import.meta.url), 'utf8'));
const search = parseUiXml(readFileSync(new URL('../../test/fixtures/ui-instagram-search.xml', import.meta.url), 'utf8'));

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
