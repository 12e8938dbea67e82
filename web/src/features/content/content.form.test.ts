import { describe, expect, it } from 'vitest';
import type { Account, Campaign } from '@farm/contracts';
import {
  NO_CAMPAIGN,
  buildPostPayload,
  captionPreview,
  emptyPostForm,
  postAccountLabel,
  postFieldErrors,
  postTimeLine,
  postableAccounts,
  postableCampaigns,
  publishBody,
  unscheduleBody,
  type PostFormValues,
} from './content.form';

function form(overrides: Partial<PostFormValues> = {}): PostFormValues {
  return { ...emptyPostForm(), accountId: 'a1', caption: 'Hello', ...overrides };
}

describe('buildPostPayload', () => {
  it('keeps only hashtags that begin with #', () => {
    const body = buildPostPayload(form({ hashtags: '#travel food  #eat # #x' }), 'u1');
    expect(body.hashtags).toEqual(['#travel', '#eat', '#x']);
  });

  it("sends no campaign for 'None' and the chosen one otherwise", () => {
    expect(buildPostPayload(form({ campaignId: NO_CAMPAIGN }), 'u1').campaignId).toBeNull();
    expect(buildPostPayload(form({ campaignId: 'c9' }), 'u1').campaignId).toBe('c9');
  });

  it('sends the schedule only for a scheduled post', () => {
    const draft = buildPostPayload(form({ status: 'draft', scheduledAt: '2030-05-01T10:30' }), 'u1');
    expect(draft).not.toHaveProperty('scheduledAt');
    const scheduled = buildPostPayload(form({ status: 'scheduled', scheduledAt: '2030-05-01T10:30' }), 'u1');
    expect(scheduled.scheduledAt).toBe(new Date('2030-05-01T10:30').toISOString());
  });

  it('records who created the post', () => {
    expect(buildPostPayload(form(), 'u1').createdById).toBe('u1');
  });
});

describe('postFieldErrors', () => {
  it('uses the shared messages', () => {
    const errors = postFieldErrors(buildPostPayload(form({ accountId: null, caption: '' }), 'u1'));
    expect(errors).toEqual({ accountId: 'Account selection is required', caption: 'Caption is required' });
  });

  it('needs a time for a scheduled post', () => {
    const errors = postFieldErrors(buildPostPayload(form({ status: 'scheduled', scheduledAt: '' }), 'u1'));
    expect(errors.scheduledAt).toBe('Schedule Date & Time is required for scheduled posts');
  });

  it('accepts a complete form', () => {
    expect(postFieldErrors(buildPostPayload(form({ status: 'published' }), 'u1'))).toEqual({});
  });
});

describe('post cards', () => {
  it('previews the first 50 characters', () => {
    const caption = 'x'.repeat(60);
    expect(captionPreview(caption)).toBe(`${'x'.repeat(50)}...`);
    expect(captionPreview('short')).toBe('short');
  });

  it("labels the account 'username (platform)' or 'Unknown Account'", () => {
    const accounts = [{ id: 'a1', username: 'alpha', platform: 'tiktok' }] as Account[];
    expect(postAccountLabel('a1', accounts)).toBe('alpha (tiktok)');
    expect(postAccountLabel('zz', accounts)).toBe('Unknown Account');
  });

  it('shows the scheduled time or the published date', () => {
    const format = (time: string) => time.slice(0, 10);
    expect(postTimeLine({ status: 'scheduled', scheduledAt: '2030-01-02T00:00:00Z', publishedAt: null }, format)).toBe('Scheduled: 2030-01-02');
    expect(postTimeLine({ status: 'published', scheduledAt: null, publishedAt: '2030-01-03T00:00:00Z' }, format)).toBe('Published: 2030-01-03');
    expect(postTimeLine({ status: 'draft', scheduledAt: null, publishedAt: null }, format)).toBeNull();
  });

  it('publishes with the current time and unschedules to draft', () => {
    const now = new Date('2030-01-01T12:00:00Z');
    expect(publishBody(now)).toEqual({ status: 'published', publishedAt: '2030-01-01T12:00:00.000Z' });
    expect(unscheduleBody()).toEqual({ status: 'draft' });
  });
});

describe('form choices', () => {
  it('offers only active accounts and active campaigns', () => {
    const accounts = [
      { id: 'a', status: 'active' },
      { id: 'b', status: 'warmup' },
    ] as Account[];
    const campaigns = [
      { id: 'c', status: 'active' },
      { id: 'd', status: 'paused' },
    ] as Campaign[];
    expect(postableAccounts(accounts).map((a) => a.id)).toEqual(['a']);
    expect(postableCampaigns(campaigns).map((c) => c.id)).toEqual(['c']);
  });
});
