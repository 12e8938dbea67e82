import { describe, expect, it } from 'vitest';
import { appText, nodeText, rerecordHref, selectorFields, stepName } from './evidence.labels';

describe('a failed step in words', () => {
  it('numbers steps from 1, as a person counts them', () => {
    expect(stepName('3')).toBe('Step 4');
    expect(stepName('3.1')).toBe('Step 4.2');
    expect(stepName('start')).toBe('Pre-flight');
  });

  it('shows the selector’s fields, leaving out where it was read', () => {
    expect(selectorFields({ id: 'row_feed_button_like', index: 0, evidence: 'GramAddict' })).toEqual(['id = row_feed_button_like', 'index = 0']);
    expect(selectorFields(null)).toEqual([]);
  });

  it('names the app and an element by what a person sees', () => {
    expect(appText({ package: 'com.instagram.android', version: '312.0' })).toBe('Instagram 312.0');
    expect(appText(null)).toBe('Not read before the failure');
    const node = {
      text: '',
      resourceId: 'com.instagram.android:id/row_feed_button_like',
      className: 'android.widget.Button',
      packageName: 'com.instagram.android',
      desc: 'Like',
      clickable: false,
      scrollable: false,
      selected: false,
      checked: false,
      enabled: true,
      focused: false,
      bounds: { left: 20, top: 976, right: 59, bottom: 1051 },
      index: 0,
      depth: 3,
      parent: 2,
    };
    expect(nodeText(node)).toBe('id row_feed_button_like · desc "Like"');
    expect(nodeText({ ...node, resourceId: '', desc: '' })).toBe('Button');
    expect(rerecordHref('abc')).toBe('/devices?device=abc&tab=live&record=1');
  });
});
