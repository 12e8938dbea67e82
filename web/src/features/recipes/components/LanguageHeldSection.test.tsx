/** Campaigns → Recipes → Phones held back by their language: each phone with what to do, and the empty state. */
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { LanguageHeldPhones } from '@farm/contracts';
import { renderScreen, stubApi } from '../../../test/render';
import { LanguageHeldSection } from './LanguageHeldSection';

const whatToDo =
  "Set Pixel DE's language to English (en) in the phone's Settings (on Android 13 and later, the app's own language in Settings › Apps), or verify Instagram publish a post on German (de-DE) with a dry run.";

const held: LanguageHeldPhones = {
  days: 7,
  phones: [
    {
      deviceId: 'd1',
      deviceName: 'Pixel DE',
      locale: 'de-DE',
      recipeId: 'instagram.post',
      recipeName: 'Instagram publish a post',
      appPackage: 'com.instagram.android',
      appVersion: '447.0.0.55.81',
      covered: ['en'],
      at: '2026-01-02T10:00:00.000Z',
      whatToDo,
    },
  ],
};

describe('Phones held back by their language', () => {
  it('lists each phone with its language, the recipe and the sentence of what to do', async () => {
    stubApi({ 'GET /api/recipes/held-by-language': held });
    renderScreen(<LanguageHeldSection />);
    const section = within(await screen.findByRole('region', { name: 'Phones held back by their language' }));
    const phone = within(await section.findByRole('listitem', { name: 'Pixel DE' }));
    expect(phone.getByText('Pixel DE · de-DE')).toBeTruthy();
    expect(phone.getByText(/Instagram publish a post on com\.instagram\.android 447\.0\.0\.55\.81 · reads en · held back/)).toBeTruthy();
    expect(phone.getByText(whatToDo)).toBeTruthy();
    expect(section.getByText(/Runs of the last 7 days\./)).toBeTruthy();
  });

  it('says so when no phone is held back', async () => {
    stubApi({ 'GET /api/recipes/held-by-language': { days: 7, phones: [] } });
    renderScreen(<LanguageHeldSection />);
    expect(await screen.findByText('No phone is held back by its language')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Phones held back by their language' })).toBeNull();
  });
});
