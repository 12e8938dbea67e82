import { describe, expect, it } from 'vitest';
import { createCampaignBody, messages, type Campaign } from '@farm/contracts';
import {
  campaignToFormValues,
  campaignValidationMessage,
  emptyCampaignForm,
  formToCampaignPayload,
  requiredFieldErrors,
  type CampaignFormValues,
} from './campaigns.form';

function form(overrides: Partial<CampaignFormValues> = {}): CampaignFormValues {
  return { ...emptyCampaignForm(), name: 'Summer', niche: 'Fitness', keywords: 'gym', ...overrides };
}

describe('emptyCampaignForm', () => {
  it('starts with the spec defaults', () => {
    const values = emptyCampaignForm();
    expect(values.engagementTarget).toBe(100);
    expect(values.swipeAgeMin).toBe(18);
    expect(values.swipeAgeMax).toBe(35);
    expect(values.swipeDistance).toBe(50);
  });
});

describe('formToCampaignPayload', () => {
  it('splits list inputs on commas, trimmed, empties dropped', () => {
    const body = formToCampaignPayload(
      form({
        keywords: ' gym, , workout ,',
        referenceAccounts: '@coach,, @athlete ',
        searchKeywords: 'a, b',
        accountsToFollow: 'x ,y',
        followTargetAccounts: ' z ',
      }),
    );
    expect(body.keywords).toEqual(['gym', 'workout']);
    expect(body.referenceAccounts).toEqual(['@coach', '@athlete']);
    expect(body.searchKeywords).toEqual(['a', 'b']);
    expect(body.accountsToFollow).toEqual(['x', 'y']);
    expect(body.followTargetAccounts).toEqual(['z']);
  });

  it('sends the engagement target as a number and blank texts as null', () => {
    const body = formToCampaignPayload(form({ engagementTarget: '250', customLore: '  ', guidelines: 'Be kind' }));
    expect(body.engagementTarget).toBe(250);
    expect(body.customLore).toBeNull();
    expect(body.guidelines).toBe('Be kind');
  });

  it('sends the tinder swipe settings in the form spelling', () => {
    const body = formToCampaignPayload(
      form({
        platform: 'tinder',
        autoSwipeEnabled: true,
        swipeGender: 'women',
        swipeAgeMin: 21,
        swipeAgeMax: '40',
        swipeDistance: 30,
        swipeBioKeywords: 'dogs, travel',
        searchAndLike: true,
      }),
    );
    expect(body).toMatchObject({
      autoSwipeEnabled: true,
      swipeGender: 'women',
      swipeAgeMin: 21,
      swipeAgeMax: 40,
      swipeDistance: 30,
      swipeBioKeywords: ['dogs', 'travel'],
      searchAndLike: false,
    });
    expect(body).not.toHaveProperty('autoswipeEnabled');
  });

  it('leaves swipe settings out for other platforms', () => {
    const body = formToCampaignPayload(form({ platform: 'instagram', searchAndLike: true, searchAndLikeActions: ['like', 'follow'] }));
    expect(body.autoSwipeEnabled).toBe(false);
    expect(body).not.toHaveProperty('swipeGender');
    expect(body.searchAndLike).toBe(true);
    expect(body.searchAndLikeActions).toEqual(['like', 'follow']);
  });

  it('makes a body the shared schema accepts, mapped to the stored spelling', () => {
    const parsed = createCampaignBody.parse(formToCampaignPayload(form({ platform: 'tinder', autoSwipeEnabled: true })));
    expect(parsed).toMatchObject({ autoswipeEnabled: true, autoswipeAgeMin: 18, autoswipeAgeMax: 35, autoswipeDistanceMax: 50 });
  });
});

describe('campaign validation', () => {
  it('asks for a keyword or a reference account first', () => {
    const body = formToCampaignPayload(form({ keywords: ' , ', referenceAccounts: '', engagementTarget: 0 }));
    expect(campaignValidationMessage(body)).toBe(messages.keywordOrReference);
    expect(messages.keywordOrReference).toBe('Please provide at least one keyword or reference account.');
  });

  it('accepts reference accounts alone', () => {
    expect(campaignValidationMessage(formToCampaignPayload(form({ keywords: '', referenceAccounts: '@coach' })))).toBeNull();
  });

  it.each([0, -5, '', 'abc', 1.5])('refuses an engagement target of %s', (target) => {
    const body = formToCampaignPayload(form({ engagementTarget: target }));
    expect(campaignValidationMessage(body)).toBe('Engagement target must be greater than 0.');
  });

  it('passes on the schema message for swipe ages out of order', () => {
    const body = formToCampaignPayload(form({ platform: 'tinder', swipeAgeMin: 50, swipeAgeMax: 30 }));
    expect(campaignValidationMessage(body)).toBe(messages.swipeAgeOrder);
  });

  it('passes on the schema message for a distance out of range', () => {
    const body = formToCampaignPayload(form({ platform: 'tinder', swipeDistance: 500 }));
    expect(campaignValidationMessage(body)).toBe('Distance must be between 1 and 160 km.');
  });

  it('names the required inputs that are blank', () => {
    expect(requiredFieldErrors(form({ name: ' ', niche: '' }))).toEqual({ name: 'Name is required', niche: 'Niche is required' });
    expect(requiredFieldErrors(form())).toEqual({});
  });
});

describe('campaignToFormValues', () => {
  it('reads the stored swipe names back into the form', () => {
    const campaign: Campaign = {
      id: 'c1',
      name: 'Swipe',
      platform: 'tinder',
      niche: 'Dating',
      keywords: ['a', 'b'],
      referenceAccounts: [],
      engagementTarget: 40,
      status: 'draft',
      customLore: null,
      guidelines: 'g',
      searchAndLike: false,
      followAccountList: false,
      followFromAccount: false,
      searchKeywords: [],
      searchAndLikeActions: ['like', 'bogus'],
      accountsToFollow: [],
      followTargetAccounts: [],
      followType: 'following',
      engageCommenters: false,
      engageCommentersActions: [],
      autoLikeEnabled: true,
      autoLikeReferenceImages: ['/api/objects/1'],
      autoLikeGuidelines: null,
      autoswipeEnabled: true,
      autoswipeGenderPreference: 'men',
      autoswipeAgeMin: 25,
      autoswipeAgeMax: 45,
      autoswipeDistanceMax: 20,
      autoswipeBioKeywords: ['books'],
      activeHoursStart: 9,
      activeHoursEnd: 21,
      cooldownMinutes: 30,
      dailyCaps: {},
      createdById: null,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      accountIds: [],
      groupId: null,
    };
    const values = campaignToFormValues(campaign);
    expect(values).toMatchObject({
      keywords: 'a, b',
      customLore: '',
      searchAndLikeActions: ['like'],
      followType: 'following',
      autoSwipeEnabled: true,
      swipeGender: 'men',
      swipeAgeMin: 25,
      swipeAgeMax: 45,
      swipeDistance: 20,
      swipeBioKeywords: 'books',
    });
    expect(formToCampaignPayload(values)).toMatchObject({ keywords: ['a', 'b'], swipeAgeMin: 25, autoLikeReferenceImages: ['/api/objects/1'] });
  });
});
