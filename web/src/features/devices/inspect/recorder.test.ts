import { describe, expect, it } from 'vitest';
import { draftRecipe, draftStepShots, platformOf, recipeIdFor, stepsFor, type RecordedEntry } from './recorder';

const like = {
  selector: { id: 'row_feed_button_like' },
  kind: 'id',
  point: { x: 0.06, y: 0.77 },
  package: 'com.instagram.android',
  appVersion: '410.0.0.0.96',
  locale: 'en-US',
};
const launcher = { selector: { desc: 'Instagram' }, point: { x: 0.23, y: 0.77 }, package: 'com.google.android.apps.nexuslauncher' };

describe('recorded steps', () => {
  it('makes a tap on the element under the finger, with the point as its fallback', () => {
    expect(stepsFor({ kind: 'tap', x: 0.06, y: 0.77 }, like, 0)).toEqual([
      {
        step: { do: 'tap', target: { id: 'row_feed_button_like', fallback: { x: 0.06, y: 0.77 } } },
        positional: false,
        summary: 'Tap id row_feed_button_like',
        package: 'com.instagram.android',
      },
    ]);
  });

  it('marks a tap where no element was (or an agent that cannot say) positional, and keeps a wait as a pause', () => {
    const [pause, tap] = stepsFor({ kind: 'tap', x: 0.5, y: 0.5 }, undefined, 2300);
    expect(pause?.step).toEqual({ do: 'pause', for: '2.3s' });
    expect(tap).toMatchObject({ step: { do: 'tap', target: { point: { x: 0.5, y: 0.5 } }, positional: true }, positional: true });
    expect(stepsFor({ kind: 'tap', x: 0.5, y: 0.5 }, undefined, 1000)).toHaveLength(1);
  });

  it('turns a drag into a swipe, text into type, keys into key, and leaves rotation out', () => {
    expect(stepsFor({ kind: 'swipe', from: { x: 0.5, y: 0.8 }, to: { x: 0.5, y: 0.2 }, durationMs: 300 }, undefined, 0)[0]?.step).toEqual({
      do: 'swipe',
      direction: 'up',
      distance: 0.6,
    });
    expect(stepsFor({ kind: 'text', text: 'so good' }, undefined, 0)[0]?.step).toEqual({ do: 'type', text: 'so good' });
    expect(stepsFor({ kind: 'key', key: 'back' }, undefined, 0)[0]?.step).toEqual({ do: 'key', key: 'back' });
    expect(stepsFor({ kind: 'rotate' }, undefined, 0)).toEqual([]);
  });
});

describe('the draft', () => {
  it('opens the app first, leaves out what was done on the launcher, and says what it was written for', () => {
    const entries: RecordedEntry[] = [
      ...stepsFor({ kind: 'tap', x: 0.23, y: 0.77 }, launcher, 0),
      ...stepsFor({ kind: 'tap', x: 0.06, y: 0.77 }, like, 0),
      ...stepsFor({ kind: 'text', text: '{{caption}}' }, undefined, 0),
    ].map((entry) => ({ ...entry, screenshot: null }));
    const draft = draftRecipe(entries, { name: 'Like the first post', platform: 'instagram', routine: 'warmup', recorded: [launcher, like] }, 0);
    expect(draft).toMatchObject({
      id: 'studio.like-the-first-post.0',
      version: 1,
      platform: 'instagram',
      routines: ['warmup'],
      app: { package: 'com.instagram.android', writtenFor: '410.0.0.0.96', locale: 'en' },
      verified: false,
    });
    expect(draft.steps).toEqual([{ do: 'open_app' }, entries[1]?.step, { do: 'type', text: '{{caption}}' }]);

    // Each kept step's picture goes with the draft, by its place among the draft's steps (after open_app).
    const pictured = entries.map((entry, at) => ({ ...entry, screenshot: at === 2 ? null : `data:image/jpeg;base64,${at}` }));
    expect(draftStepShots(pictured, 'instagram')).toEqual([{ step: 1, image: 'data:image/jpeg;base64,1' }]);
  });

  it('knows the platforms of the apps recipes drive, and makes ids the schema takes', () => {
    expect(platformOf('com.ss.android.ugc.trill')).toBe('tiktok');
    expect(platformOf('com.example')).toBeNull();
    expect(recipeIdFor('  Çà va! ', 36)).toBe('studio.ca-va.10');
    expect(recipeIdFor('***', 36)).toBe('studio.recorded.10');
  });
});
