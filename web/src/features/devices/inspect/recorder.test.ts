import { describe, expect, it } from 'vitest';
import { parseRecipe } from '@farm/agent-protocol/recipe-schema';
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
  it('makes a tap on the element under the finger by its unique selector, with no point', () => {
    expect(stepsFor({ kind: 'tap', x: 0.06, y: 0.77 }, like, 0)).toEqual([
      {
        step: { do: 'tap', target: { id: 'row_feed_button_like' } },
        positional: false,
        summary: 'Tap id row_feed_button_like',
        package: 'com.instagram.android',
      },
    ]);
  });

  it('marks a tap where no element was (or an agent that cannot say) positional, and keeps a wait as a pause', () => {
    const [pause, tap] = stepsFor({ kind: 'tap', x: 0.5, y: 0.5 }, undefined, 2300);
    expect(pause?.step).toEqual({ do: 'pause', for: '2.3s' });
    expect(tap).toEqual({
      step: {
        do: 'tap',
        target: { point: { x: 0.5, y: 0.5 } },
        positional: true,
        label: 'No unique selector here: tapped only while the screen cannot be read',
      },
      positional: true,
      summary: 'Tap at 50%, 50% (positional: only while the screen cannot be read)',
      package: null,
    });
    expect(stepsFor({ kind: 'tap', x: 0.5, y: 0.5 }, undefined, 1000)).toHaveLength(1);
    // The phone found an element but no selector unique to it (only an index would do): a positional step too.
    const more = { point: { x: 0.9507, y: 0.3663 }, package: 'com.instagram.android', label: 'ImageView: media_option_button' };
    expect(stepsFor({ kind: 'long_press', x: 0.95, y: 0.37, durationMs: 900 }, more, 0)[0]).toMatchObject({
      step: { do: 'long_press', target: { point: { x: 0.9507, y: 0.3663 } }, positional: true, duration: '900ms' },
      positional: true,
    });
  });

  it('makes drafts the recipe schema takes, and refuses a count on a recorded positional step', () => {
    const entries: RecordedEntry[] = [
      ...stepsFor({ kind: 'tap', x: 0.06, y: 0.77 }, like, 0),
      ...stepsFor({ kind: 'tap', x: 0.5, y: 0.5 }, { point: { x: 0.5, y: 0.5 }, package: 'com.instagram.android' }, 0),
    ].map((entry) => ({ ...entry, screenshot: null }));
    const draft = draftRecipe(entries, { name: 'Like', platform: 'instagram', routine: 'warmup', recorded: [like] }, 0);
    expect(parseRecipe(draft)).toMatchObject({ ok: true });
    const steps = draft.steps as Record<string, unknown>[];
    expect(parseRecipe({ ...draft, steps: [steps[0], steps[1], { ...steps[2], counts: 'like' }] })).toEqual({
      ok: false,
      errors: [
        'steps.2.positional: A step that counts a like cannot tap a point: give it a selector and leave out "positional".',
        'steps.2.target.point: A step that counts a like cannot tap a point: give it a selector.',
      ],
    });
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
