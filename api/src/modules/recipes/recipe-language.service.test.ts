import { describe, expect, it } from 'vitest';
import { languageName, whatToDo } from './recipe-language.service.ts';

describe('what to do for a phone held back by its language', () => {
  it('names each language by its English name and tag, and every language the recipe covers', () => {
    expect(languageName('de-DE')).toBe('German (de-DE)');
    expect(languageName('en')).toBe('English (en)');
    expect(languageName('zz-QQ')).toBe('zz-QQ');
    expect(whatToDo({ deviceName: 'Pixel 7', locale: 'pt-BR', recipeName: 'Warm-up', covered: ['en', 'de', 'fr'] })).toBe(
      "Set Pixel 7's language to English (en), German (de) or French (fr) in the phone's Settings (on Android 13 and later, the app's own language in Settings › Apps), or verify Warm-up on Portuguese (pt-BR) with a dry run.",
    );
    // An agent that did not say the language; a recipe no longer known.
    expect(whatToDo({ deviceName: 'Pixel 7', locale: null, recipeName: 'custom.warmup', covered: [] })).toBe(
      "Set Pixel 7's language to the language the recipe is written for in the phone's Settings (on Android 13 and later, the app's own language in Settings › Apps), or verify custom.warmup on the phone's language with a dry run.",
    );
  });
});
