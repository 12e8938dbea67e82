/**
 * A post's media: only files stored in the workspace are taken (create, edit, CSV import), because the farm PC
 * fetches and publishes whatever a post names. Outside addresses are refused with a sentence naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account, ImportResult, Post } from '@farm/contracts';
import { buildTestApp, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildPost, uploadImage } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
let stranger: Client;
let account: Account;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app);
  stranger = await signUp(t.app);
  account = await buildAccount(operator, { username: 'media.daily', status: 'active' });
});
afterAll(async () => {
  await t?.close();
});

const OUTSIDE = [
  'http://169.254.169.254/latest/meta-data/iam/',
  'http://127.0.0.1:6379/',
  'https://cdn.example.com/pier.jpg',
  'file:///etc/passwd',
  '/api/objects/not-an-id',
  'https://example.com/redirect?to=/api/objects/00000000-0000-4000-8000-000000000000',
];

function refusal(answer: { status: number; body: unknown }) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  const detail = (answer.body as { details: { field: string; message: string }[] }).details[0]!;
  expect(detail.field).toBe('mediaUrls');
  expect(detail.message).toMatch(/^Media must be images uploaded to this workspace; ".*" is not one/);
}

describe('post media at save', () => {
  it('refuses outside addresses on create, and writes no post', async () => {
    for (const url of OUTSIDE) refusal(await operator.post('/api/posts', { accountId: account.id, caption: 'x', mediaUrls: [url] }));
    const rows = await t.db.selectFrom('posts').select('id').where('accountId', '=', account.id).execute();
    expect(rows).toEqual([]);
  });

  it('refuses another workspace’s file and a reservation never uploaded', async () => {
    const theirs = await uploadImage(stranger);
    refusal(await operator.post('/api/posts', { accountId: account.id, caption: 'x', mediaUrls: [theirs] }));
    const reserved = await operator.post<{ url: string }>('/api/objects/upload', {});
    refusal(await operator.post('/api/posts', { accountId: account.id, caption: 'x', mediaUrls: [reserved.body.url.split('?')[0]] }));
  });

  it('takes the workspace’s own files, keeping the server’s path whatever form they came in', async () => {
    const image = await uploadImage(operator);
    const answer = await operator.post<Post>('/api/posts', { accountId: account.id, caption: 'x', mediaUrls: [`https://console.example.com${image}`, image] });
    expectStatus(answer, 201);
    expect(answer.body.mediaUrls).toEqual([image, image]);
  });

  it('refuses outside addresses on edit, keeping the post as it was', async () => {
    const image = await uploadImage(operator);
    const post = await buildPost(operator, account.id, { mediaUrls: [image] });
    refusal(await operator.patch(`/api/posts/${post.id}`, { mediaUrls: [image, 'https://cdn.example.com/a.jpg'] }));
    expect((await operator.get<Post>(`/api/posts/${post.id}`)).body.mediaUrls).toEqual([image]);
    const edited = await operator.patch<Post>(`/api/posts/${post.id}`, { mediaUrls: [] });
    expectStatus(edited, 200);
    expect(edited.body.mediaUrls).toEqual([]);
  });

  it('clears a post’s media problem once new media is given', async () => {
    const post = await buildPost(operator, account.id, {});
    await t.db
      .updateTable('posts')
      .set({ mediaUrls: ['https://cdn.example.com/old.jpg'], mediaProblem: 'The media at https://cdn.example.com/old.jpg could not be taken in' })
      .where('id', '=', post.id)
      .execute();
    expect((await operator.get<Post>(`/api/posts/${post.id}`)).body.mediaProblem).toMatch(/could not be taken in/);
    const image = await uploadImage(operator);
    const edited = await operator.patch<Post>(`/api/posts/${post.id}`, { mediaUrls: [image] });
    expectStatus(edited, 200);
    expect(edited.body).toMatchObject({ mediaUrls: [image], mediaProblem: null });
  });

  it('refuses outside addresses row by row in a CSV import', async () => {
    const image = await uploadImage(operator);
    const csv = [
      'Account,Caption,Media URLs',
      `media.daily,ours,${image}`,
      'media.daily,theirs,http://10.0.0.5/x.jpg',
      `media.daily,mixed,${image} https://cdn.example.com/a.jpg`,
    ].join('\n');
    const answer = await operator.post<ImportResult>('/api/import/posts', csv, { 'content-type': 'text/csv' });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ total: 3, valid: 1, created: 1 });
    expect(answer.body.rows[1]!.errors).toEqual([
      {
        field: 'Media URLs',
        message: 'Media URLs must be images uploaded to this workspace; "http://10.0.0.5/x.jpg" is not one (upload the file instead of linking it)',
      },
    ]);
    expect(answer.body.rows[2]!.ok).toBe(false);
    const rows = await t.db
      .selectFrom('posts')
      .select(['caption', 'mediaUrls'])
      .where('accountId', '=', account.id)
      .where('caption', 'in', ['ours', 'theirs', 'mixed'])
      .execute();
    expect(rows).toEqual([{ caption: 'ours', mediaUrls: [image] }]);
  });
});
