/** Posts: the create form's messages, scheduling, publishing, unscheduling, the allowed moves, and the lists. */
import { describe, expect, it } from 'vitest';
import { messages, postTransitions, type Post, type PostStatus } from '@farm/contracts';
import { signUp, type Client } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildCampaign, buildDevice, buildPost, uploadImage } from '../helpers/factories.ts';
import { appWithTeam } from '../helpers/file-app.ts';

const { t, operator, va } = await appWithTeam();
/** An account the tests post to: each test reads only the posts it made. */
const account = await buildAccount(operator, { username: 'glow.daily' });

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const create = (body: Record<string, unknown>, client: Client = operator) =>
  client.post<Post>('/api/posts', { accountId: account.id, caption: 'Hello', ...body });

describe('POST /api/posts', () => {
  it('creates a draft by default, recording who made it whatever the body says', async () => {
    const image = await uploadImage(operator);
    const answer = await create({
      caption: 'Spring is here',
      hashtags: ['#spring', '#glow'],
      mediaUrls: [image],
      createdById: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b',
    });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      accountId: account.id,
      campaignId: null,
      caption: 'Spring is here',
      status: 'draft',
      hashtags: ['#spring', '#glow'],
      mediaUrls: [image],
      scheduledAt: null,
      publishedAt: null,
      createdById: operator.user!.id,
    });
    const byVa = await create({}, va);
    expectStatus(byVa, 201);
    expect(byVa.body.createdById).toBe(va.user!.id);
  });

  it('schedules a post for a time to come, and keeps no schedule for other statuses', async () => {
    const at = inAnHour();
    const scheduled = await create({ status: 'scheduled', scheduledAt: at });
    expectStatus(scheduled, 201);
    expect(scheduled.body).toMatchObject({ status: 'scheduled', scheduledAt: at, publishedAt: null });
    const draft = await create({ status: 'draft', scheduledAt: at });
    expect(draft.body.scheduledAt).toBeNull();
  });

  it('publishes at once when created as published', async () => {
    const answer = await create({ status: 'published' });
    expect(answer.body.status).toBe('published');
    expect(Date.parse(answer.body.publishedAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it.each([
    ['caption', { caption: '' }, messages.captionRequired],
    ['caption', { caption: undefined }, messages.captionRequired],
    ['caption', { caption: 42 }, 'Caption must be text'],
    ['caption', { caption: '   ' }, messages.captionRequired],
    ['caption', { caption: 'x'.repeat(100_000) }, 'Caption must be at most 2200 characters'],
    ['accountId', { accountId: undefined }, messages.accountRequired],
    ['accountId', { accountId: '' }, messages.accountRequired],
    ['accountId', { accountId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }, "Account must be one of this workspace's accounts"],
    ['campaignId', { campaignId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }, "Campaign must be one of this workspace's campaigns"],
    ['scheduledAt', { status: 'scheduled' }, messages.scheduleRequired],
    ['scheduledAt', { status: 'scheduled', scheduledAt: null }, messages.scheduleRequired],
    ['scheduledAt', { status: 'scheduled', scheduledAt: 'next week' }, 'Schedule Date & Time must be a date and time, like 2026-05-01T09:30:00Z'],
    ['scheduledAt', { status: 'scheduled', scheduledAt: '2020-01-01T00:00:00Z' }, 'Schedule Date & Time must be in the future'],
    ['status', { status: 'failed' }, 'Status cannot be failed for a new post'],
    ['status', { status: 'viral' }, 'Status must be one of draft, scheduled, published or failed'],
  ])('refuses a bad %s (%j)', async (field, overrides, message) => {
    expectFieldError(await create(overrides), field, message);
  });
});

describe('moves', () => {
  /** A fresh post in `status`: created so, or (failed) as the publisher would leave it. */
  async function postIn(status: PostStatus): Promise<Post> {
    if (status === 'failed') {
      const post = await buildPost(operator, account.id);
      await t.db.updateTable('posts').set({ status: 'failed' }).where('id', '=', post.id).execute();
      return (await operator.get<Post>(`/api/posts/${post.id}`)).body;
    }
    return buildPost(operator, account.id, { status, ...(status === 'scheduled' ? { scheduledAt: inAnHour() } : {}) });
  }

  it('publishes a draft, setting publishedAt to now or to the time sent', async () => {
    const draft = await postIn('draft');
    const answer = await operator.patch<Post>(`/api/posts/${draft.id}`, { status: 'published' });
    expectStatus(answer, 200);
    expect(answer.body.status).toBe('published');
    expect(Date.parse(answer.body.publishedAt!)).toBeGreaterThan(Date.now() - 60_000);
    const sent = '2026-03-01T10:00:00.000Z';
    const other = await postIn('draft');
    expect((await operator.patch<Post>(`/api/posts/${other.id}`, { status: 'published', publishedAt: sent })).body.publishedAt).toBe(sent);
    expect((await operator.get('/api/activities')).body[0]).toMatchObject({ action: 'Post for @glow.daily published', type: 'success' });
  });

  it('unschedules a scheduled post back to a draft without a schedule', async () => {
    const scheduled = await postIn('scheduled');
    const answer = await operator.patch<Post>(`/api/posts/${scheduled.id}`, { status: 'draft' });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ status: 'draft', scheduledAt: null, publishedAt: null });
  });

  it('schedules a draft only with a time to come', async () => {
    const draft = await postIn('draft');
    expectFieldError(await operator.patch(`/api/posts/${draft.id}`, { status: 'scheduled' }), 'scheduledAt', messages.scheduleRequired);
    expectFieldError(
      await operator.patch(`/api/posts/${draft.id}`, { status: 'scheduled', scheduledAt: '2020-01-01T00:00:00Z' }),
      'scheduledAt',
      'Schedule Date & Time must be in the future',
    );
    const at = inAnHour();
    expect((await operator.patch<Post>(`/api/posts/${draft.id}`, { status: 'scheduled', scheduledAt: at })).body).toMatchObject({
      status: 'scheduled',
      scheduledAt: at,
    });
    const later = new Date(Date.now() + 7200_000).toISOString();
    expect((await operator.patch<Post>(`/api/posts/${draft.id}`, { scheduledAt: later })).body.scheduledAt).toBe(later);
  });

  const statuses: PostStatus[] = ['draft', 'scheduled', 'published', 'failed'];
  const moves = statuses.flatMap((from) => statuses.filter((to) => to !== from).map((to) => ({ from, to, allowed: postTransitions[from].includes(to) })));

  it.each(moves.filter((move) => move.allowed))('$from → $to is allowed', async ({ from, to }) => {
    const post = await postIn(from);
    const answer = await operator.patch<Post>(`/api/posts/${post.id}`, { status: to, ...(to === 'scheduled' ? { scheduledAt: inAnHour() } : {}) });
    expectStatus(answer, 200);
    expect(answer.body.status).toBe(to);
  });

  it.each(moves.filter((move) => !move.allowed))('$from → $to is refused with 409', async ({ from, to }) => {
    const post = await postIn(from);
    expectError(
      await operator.patch(`/api/posts/${post.id}`, { status: to, ...(to === 'scheduled' ? { scheduledAt: inAnHour() } : {}) }),
      409,
      `A ${from} post cannot become ${to}`,
    );
    expect((await operator.get(`/api/posts/${post.id}`)).body).toEqual(post);
  });

  it('edits caption and hashtags, and answers an empty body with the post unchanged', async () => {
    const post = await postIn('draft');
    expect((await operator.patch<Post>(`/api/posts/${post.id}`, { caption: 'Edited', hashtags: ['#new'] })).body).toMatchObject({
      caption: 'Edited',
      hashtags: ['#new'],
    });
    expectFieldError(await operator.patch(`/api/posts/${post.id}`, { caption: '' }), 'caption', messages.captionRequired);
    const same = await operator.patch<Post>(`/api/posts/${post.id}`, {});
    expectStatus(same, 200);
    expect(same.body.caption).toBe('Edited');
  });
});

describe('campaigns and lists', () => {
  it('attaches a post to a campaign and detaches it; ?campaignId=none lists posts without one', async () => {
    const owner = await signUp(t.app);
    const ownAccount = await buildAccount(owner);
    const otherAccount = await buildAccount(owner);
    const campaign = await buildCampaign(owner);
    const loose = await buildPost(owner, ownAccount.id, { caption: 'loose' });
    const attached = await buildPost(owner, ownAccount.id, { caption: 'attached' });
    const elsewhere = await buildPost(owner, otherAccount.id, { caption: 'elsewhere', status: 'published' });
    expect((await owner.patch<Post>(`/api/posts/${attached.id}`, { campaignId: campaign.id })).body.campaignId).toBe(campaign.id);

    const ids = async (url: string) => (await owner.get<Post[]>(url)).body.map((row) => row.id);
    expect(await ids('/api/posts')).toEqual([elsewhere.id, attached.id, loose.id]);
    expect(await ids(`/api/posts?campaignId=${campaign.id}`)).toEqual([attached.id]);
    expect(await ids('/api/posts?campaignId=none')).toEqual([elsewhere.id, loose.id]);
    expect(await ids(`/api/posts?accountId=${ownAccount.id}`)).toEqual([attached.id, loose.id]);
    expect(await ids('/api/posts?status=published')).toEqual([elsewhere.id]);
    expect(await ids(`/api/posts?campaignId=none&accountId=${ownAccount.id}`)).toEqual([loose.id]);

    expect((await owner.patch<Post>(`/api/posts/${attached.id}`, { campaignId: null })).body.campaignId).toBeNull();
    expect(await ids('/api/posts?campaignId=none')).toHaveLength(3);
    expectFieldError(
      await owner.patch(`/api/posts/${attached.id}`, { campaignId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'campaignId',
      "Campaign must be one of this workspace's campaigns",
    );
  });

  it('creates a post inside a campaign', async () => {
    const campaign = await buildCampaign(operator);
    expect((await create({ campaignId: campaign.id })).body.campaignId).toBe(campaign.id);
  });
});

describe('DELETE /api/posts/:id', () => {
  it('removes a post once, by a VA too (a post of an account on their phone)', async () => {
    const phone = await buildDevice(operator, { assignedToId: va.user!.id });
    const post = await buildPost(operator, (await buildAccount(operator, { deviceId: phone.id })).id);
    expectStatus(await va.delete(`/api/posts/${post.id}`), 204);
    expectError(await operator.get(`/api/posts/${post.id}`), 404, messages.notFound);
    expectError(await operator.delete(`/api/posts/${post.id}`), 404, messages.notFound);
  });
});
