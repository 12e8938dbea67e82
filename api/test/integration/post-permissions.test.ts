/**
 * What a VA may do with posts: the posts of the accounts on their phones, and drafts of their own. Bulk actions and
 * import stay operators'; a VA's lists, lookups and exports show only the posts they may work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildDevice, buildPost } from '../helpers/factories.ts';

const NOT_YOURS = 'You can work only the posts of the accounts on your phones, and drafts of your own';
const ACCOUNT = 'You can schedule or publish only for the accounts on the phones assigned to you';
const soon = () => new Date(Date.now() + 86_400_000).toISOString();

let t: TestApp;
let operator: Client;
let va: Client;
let mine: { id: string };
let theirs: { id: string };
let onMyPhone: Post;
let elsewhere: Post;
let myDraft: Post;

beforeAll(async () => {
  t = await buildTestApp();
  ({ operator, va } = await people(t.app));
  const myPhone = await buildDevice(operator, { name: 'VA phone', assignedToId: va.user!.id });
  const otherPhone = await buildDevice(operator, { name: 'Other phone' });
  mine = await buildAccount(operator, { username: 'on_my_phone', deviceId: myPhone.id });
  theirs = await buildAccount(operator, { username: 'not_mine', deviceId: otherPhone.id });
  onMyPhone = await buildPost(operator, mine.id, { status: 'scheduled', scheduledAt: soon() });
  elsewhere = await buildPost(operator, theirs.id, { status: 'scheduled', scheduledAt: soon() });
  myDraft = await buildPost(va, theirs.id, { caption: 'My idea' });
});

afterAll(() => t.close());

describe('a VA and posts', () => {
  it('lists, reads and exports only the posts of the accounts on their phones and their own drafts', async () => {
    const list = await va.get<Post[]>('/api/posts');
    expectStatus(list, 200);
    expect(list.body.map((post) => post.id).sort()).toEqual([onMyPhone.id, myDraft.id].sort());
    expectStatus(await va.get(`/api/posts/${onMyPhone.id}`), 200);
    expectError(await va.get(`/api/posts/${elsewhere.id}`), 404, 'Not found');
    const csv = await va.get<string>('/api/export/posts.csv');
    expectStatus(csv, 200);
    expect(String(csv.body)).not.toContain(elsewhere.id);
    // An operator sees them all.
    const all = await operator.get<Post[]>('/api/posts');
    expect(all.body.map((post) => post.id)).toEqual(expect.arrayContaining([onMyPhone.id, elsewhere.id, myDraft.id]));
  });

  it('reschedules, publishes and deletes only on their phones’ accounts', async () => {
    expectStatus(await va.patch(`/api/posts/${onMyPhone.id}`, { scheduledAt: soon() }), 200);
    expectError(await va.patch(`/api/posts/${elsewhere.id}`, { scheduledAt: soon() }), 403, NOT_YOURS);
    expectError(await va.patch(`/api/posts/${elsewhere.id}`, { status: 'published' }), 403, NOT_YOURS);
    expectError(await va.delete(`/api/posts/${elsewhere.id}`), 403, NOT_YOURS);
    const still = await operator.get<Post>(`/api/posts/${elsewhere.id}`);
    expect(still.body.status).toBe('scheduled');
    const gone = await buildPost(operator, mine.id);
    expectStatus(await va.delete(`/api/posts/${gone.id}`), 204);
  });

  it('saves drafts for any account, but schedules only for their phones’ accounts', async () => {
    expectStatus(await va.post('/api/posts', { accountId: theirs.id, caption: 'Draft', status: 'draft' }), 201);
    expectError(await va.post('/api/posts', { accountId: theirs.id, caption: 'Now', status: 'scheduled', scheduledAt: soon() }), 403, ACCOUNT);
    expectStatus(await va.post('/api/posts', { accountId: mine.id, caption: 'Now', status: 'scheduled', scheduledAt: soon() }), 201);
    // Their own draft: edited freely, scheduled only once it is for an account on their phone.
    expectStatus(await va.patch(`/api/posts/${myDraft.id}`, { caption: 'Better idea' }), 200);
    expectError(await va.patch(`/api/posts/${myDraft.id}`, { status: 'scheduled', scheduledAt: soon() }), 403, ACCOUNT);
    expectStatus(await va.patch(`/api/posts/${myDraft.id}`, { accountId: mine.id, status: 'scheduled', scheduledAt: soon() }), 200);
    // Someone else's draft is not theirs.
    const operatorsDraft = await buildPost(operator, theirs.id);
    expectError(await va.patch(`/api/posts/${operatorsDraft.id}`, { caption: 'Mine now' }), 403, NOT_YOURS);
  });

  it('leaves bulk actions and import to operators', async () => {
    expectError(await va.post('/api/posts/bulk', { action: 'delete', ids: [onMyPhone.id] }), 403, 'Bulk actions on posts are for operators');
    expectError(
      await va.post('/api/import/posts?dryRun=1', 'Account,Caption\non_my_phone,Hi', { 'content-type': 'text/csv' }),
      403,
      'Importing posts is for operators',
    );
    expectStatus(await operator.post('/api/posts/bulk', { action: 'delete', ids: [elsewhere.id] }), 200);
  });
});
