/**
 * Hostile and careless input gets a 400 naming the field in a sentence, never a 5xx, and writes nothing:
 * NUL characters anywhere, dates out of range or in the past where the future is needed, crafted cursors,
 * numbers past 2^31 and 2^53, strings of spaces, and a caption far too long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildPost, buildTask } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;

beforeAll(async () => {
  t = await buildTestApp();
  ({ operator } = await people(t.app));
});
afterAll(async () => {
  await t?.close();
});

const NUL = '\u0000';

/** Rows of the product tables: a refusal leaves them as they were. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = [
    'devices',
    'tasks',
    'accounts',
    'posts',
    'campaigns',
    'routines',
    'sessions',
    'invitations',
    'users',
    'wallLinks',
    'storedObjects',
    'activities',
  ] as const;
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await t.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.count);
  }
  return counts;
}

async function refusedWithoutWrites(call: () => Promise<{ status: number; body: any }>, field: string, message: string): Promise<void> {
  const before = await rowCounts();
  const answer = await call();
  expectFieldError(answer as never, field, message);
  expect(await rowCounts()).toEqual(before);
}

describe('NUL characters', () => {
  it.each([
    [
      'a task title',
      () => operator.post('/api/tasks', { title: `Post${NUL}reel`, type: 'post', priority: 'high' }),
      'title',
      'Title must not contain null (U+0000) characters',
    ],
    ['a device name', () => operator.post('/api/devices', { name: `Pixel${NUL}` }), 'name', 'Name must not contain null (U+0000) characters'],
    [
      'a campaign keyword',
      () => operator.post('/api/campaigns', { name: 'Spring', platform: 'tiktok', niche: 'Fit', keywords: ['gym', `a${NUL}b`] }),
      'keywords.1',
      'Keywords (item 2) must not contain null (U+0000) characters',
    ],
    [
      'an account username',
      () => operator.post('/api/accounts', { username: `${NUL}glow`, platform: 'instagram' }),
      'username',
      'Username must not contain null (U+0000) characters',
    ],
    [
      'a signup name',
      () => operator.post('/api/auth/signup', { email: 'nul@example.test', password: 'correct horse battery', name: `N${NUL}`, role: 'operator' }),
      'name',
      'Name must not contain null (U+0000) characters',
    ],
    [
      'a field name',
      () => operator.post('/api/devices', { name: 'Pixel', [`x${NUL}`]: 1 }),
      'body',
      'Request body has a field name with a null (U+0000) character',
    ],
    ['a search term', () => operator.get(`/api/tasks?search=${encodeURIComponent(`a${NUL}b`)}`), 'search', 'Search must not contain null (U+0000) characters'],
    ['a filter', () => operator.get(`/api/devices?status=${encodeURIComponent(NUL)}`), 'status', 'Status must not contain null (U+0000) characters'],
  ])('in %s are refused by name', async (_what, call, field, message) => {
    await refusedWithoutWrites(call, field, message);
  });

  it('in a post caption and hashtags are refused by name', async () => {
    const account = await buildAccount(operator);
    await refusedWithoutWrites(
      () => operator.post('/api/posts', { accountId: account.id, caption: `Hello${NUL}` }),
      'caption',
      'Caption must not contain null (U+0000) characters',
    );
    await refusedWithoutWrites(
      () => operator.post('/api/posts', { accountId: account.id, caption: 'Hello', hashtags: ['#ok', `#n${NUL}`] }),
      'hashtags.1',
      'Hashtags (item 2) must not contain null (U+0000) characters',
    );
    const post = await buildPost(operator, account.id);
    await refusedWithoutWrites(
      () => operator.patch(`/api/posts/${post.id}`, { caption: `Edited${NUL}` }),
      'caption',
      'Caption must not contain null (U+0000) characters',
    );
  });

  it('in a path id answers as an unknown id', async () => {
    expectError(await operator.get(`/api/devices/${encodeURIComponent(`6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b${NUL}`)}`), 404, messages.notFound);
  });
});

describe('lone surrogates', () => {
  const broken = 'has a broken character (half of a surrogate pair): send it as UTF-8 text';
  it.each([
    ['a device name', () => operator.post('/api/devices', { name: 'Pixel \udfff\ud800' }), 'name', `Name ${broken}`],
    ['a task title', () => operator.post('/api/tasks', { title: 'Post \ud83d', type: 'post', priority: 'high' }), 'title', `Title ${broken}`],
    ['a search term', () => operator.get(`/api/tasks?search=${encodeURIComponent('a')}%ED%A0%80`), null, null],
  ])('in %s are refused by name, and nothing is written', async (_what, call, field, message) => {
    if (field && message) await refusedWithoutWrites(call, field, message);
    // A query string cannot carry a lone surrogate (its bytes decode to U+FFFD): the read answers, no 5xx.
    else expect((await call()).status).toBeLessThan(500);
  });

  it('leave whole characters alone: an emoji of two code units is a name like any other', async () => {
    const answer = await operator.post<{ name: string }>('/api/devices', { name: 'Pixel 🕷️' });
    expect(answer.status).toBe(201);
    expect(answer.body.name).toBe('Pixel 🕷️');
  });
});

describe('dates', () => {
  const deadlineRange = 'Deadline must be between the years 1970 and 9999';
  const deadlineFormat = 'Deadline must be a date and time, like 2026-05-01T09:30:00Z';
  it.each([
    ['+275760-09-13T00:00:00Z', deadlineFormat],
    ['-000001-01-01T00:00:00Z', deadlineFormat],
    ['99999-01-01', deadlineFormat],
    ['0000-01-01T00:00:00Z', deadlineRange],
    ['1969-12-31T23:59:59Z', deadlineRange],
    ['9999-12-31T23:00:00-05:00', deadlineRange],
    ['2026-13-45', deadlineFormat],
    ['1e300', deadlineFormat],
    ['tomorrow', deadlineFormat],
  ])('a deadline of %s is refused by name', async (deadline, message) => {
    await refusedWithoutWrites(() => operator.post('/api/tasks', { title: 'Dated', type: 'post', priority: 'low', deadline }), 'deadline', message);
  });

  it('a deadline or a schedule in the past is refused, saying the field needs the future', async () => {
    await refusedWithoutWrites(
      () => operator.post('/api/tasks', { title: 'Late', type: 'post', priority: 'low', deadline: '2020-01-01T00:00:00Z' }),
      'deadline',
      'Deadline must be in the future',
    );
    const task = await buildTask(operator, { deadline: new Date(Date.now() + 3600_000).toISOString() });
    await refusedWithoutWrites(
      () => operator.patch(`/api/tasks/${task.id}`, { deadline: '2020-01-01T00:00:00Z' }),
      'deadline',
      'Deadline must be in the future',
    );
    const account = await buildAccount(operator);
    await refusedWithoutWrites(
      () => operator.post('/api/posts', { accountId: account.id, caption: 'Later', status: 'scheduled', scheduledAt: '2001-01-01T00:00:00Z' }),
      'scheduledAt',
      'Schedule Date & Time must be in the future',
    );
  });

  it('a task whose deadline passed can still be edited without moving it', async () => {
    const task = await buildTask(operator, { deadline: new Date(Date.now() + 3600_000).toISOString() });
    await t.db
      .updateTable('tasks')
      .set({ deadline: new Date('2024-01-01T00:00:00Z') })
      .where('id', '=', task.id)
      .execute();
    const edited = await operator.patch(`/api/tasks/${task.id}`, { title: 'Still due', deadline: '2024-01-01T00:00:00.000Z' });
    expectStatus(edited, 200);
    expect(edited.body).toMatchObject({ title: 'Still due', deadline: '2024-01-01T00:00:00.000Z' });
  });

  it('date filters out of range are refused by name', async () => {
    expectFieldError(
      await operator.get('/api/activities?from=%2B275760-09-13T00:00:00Z'),
      'from',
      'From date must be a date and time, like 2026-05-01T09:30:00Z',
    );
    expectFieldError(await operator.get('/api/tasks?to=0000-01-01'), 'to', 'To date must be between the years 1970 and 9999');
    expectFieldError(
      await operator.patch(`/api/accounts/${(await buildAccount(operator)).id}`, { birthday: '0000-01-01' }),
      'birthday',
      'Birthday must be between 1900 and today',
    );
  });
});

describe('crafted cursors', () => {
  const refused = 'Cursor is not one this server gave; start again from the first page';
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    ['a time out of range', cursor(['+275760-09-13T00:00:00.000Z', '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'])],
    ['year zero', cursor(['0000-01-01T00:00:00.000Z', '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'])],
    ['a date that does not exist', cursor(['2026-02-30T00:00:00.000Z', '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'])],
    ['numbers', cursor([1e300, 2 ** 53])],
    ['an object', cursor({ at: '2026-01-01T00:00:00.000Z', id: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' })],
    ['three parts', cursor(['2026-01-01T00:00:00.000Z', '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', 'x'])],
    ['nested arrays', cursor([[['2026-01-01T00:00:00.000Z']], '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'])],
    ['not base64', '%%%%'],
  ])('with %s is refused by name on every paged list', async (_what, value) => {
    for (const path of ['/api/tasks', '/api/posts', '/api/accounts', '/api/sessions', '/api/activities', '/api/devices']) {
      const answer = await operator.get(`${path}?cursor=${encodeURIComponent(value)}`);
      expect({ path, status: answer.status, error: answer.body?.error }).toEqual({ path, status: 400, error: refused });
    }
  });

  it('a huge one is refused by its length', async () => {
    expectFieldError(await operator.get(`/api/tasks?cursor=${'A'.repeat(100_000)}`), 'cursor', 'Cursor must be at most 200 characters');
  });
});

describe('numbers', () => {
  it.each([
    [2 ** 31, 'Daily caps must be whole numbers from 0 to 100000'],
    [2 ** 53 + 2, 'Daily caps must be whole numbers from 0 to 100000'],
    [1e300, 'Daily caps must be whole numbers from 0 to 100000'],
    [-1e300, 'Daily caps must be whole numbers from 0 to 100000'],
  ])('a daily cap of %d is refused with the field’s own bound', async (likes, message) => {
    const campaign = await operator.post<{ id: string }>('/api/campaigns', { name: 'Capped', platform: 'instagram', niche: 'Fit', keywords: ['gym'] });
    await refusedWithoutWrites(() => operator.patch(`/api/campaigns/${campaign.body.id}`, { dailyCaps: { likes } }), 'dailyCaps.likes', message);
  });

  it('counts and limits past their bounds are refused by name', async () => {
    await refusedWithoutWrites(
      () => operator.post('/api/accounts', { username: 'big', platform: 'instagram', followers: 2 ** 53 }),
      'followers',
      'Followers must be at most 2000000000',
    );
    await refusedWithoutWrites(
      () => operator.post('/api/campaigns', { name: 'Big', platform: 'tiktok', niche: 'Fit', keywords: ['gym'], engagementTarget: 1e300 }),
      'engagementTarget',
      'Engagement target must be at most 1000000',
    );
    expectFieldError(await operator.get('/api/tasks?limit=1e300'), 'limit', 'Limit must be at most 1000');
    expectFieldError(await operator.get(`/api/tasks?limit=${2 ** 53 + 2}`), 'limit', 'Limit must be at most 1000');
    expectFieldError(await operator.get('/api/tasks?limit=Infinity'), 'limit', 'Limit must be a number');
  });
});

describe('strings of spaces and strings too long', () => {
  it('a required name or text of spaces is refused the same way everywhere', async () => {
    const account = await buildAccount(operator);
    await refusedWithoutWrites(() => operator.post('/api/posts', { accountId: account.id, caption: '   \n\t ' }), 'caption', messages.captionRequired);
    await refusedWithoutWrites(() => operator.post('/api/tasks', { title: '   ', type: 'post', priority: 'low' }), 'title', 'Title is required');
    await refusedWithoutWrites(() => operator.post('/api/devices', { name: '  ' }), 'name', 'Name is required');
    await refusedWithoutWrites(() => operator.post('/api/accounts', { username: '   ', platform: 'instagram' }), 'username', messages.usernameRequired);
    await refusedWithoutWrites(
      () => operator.post('/api/campaigns', { name: ' ', platform: 'tiktok', niche: 'Fit', keywords: ['gym'] }),
      'name',
      'Name is required',
    );
    await refusedWithoutWrites(() => operator.post('/api/object-storage/presigned-url', { filename: '   ' }), 'filename', 'File name is required');
    const post = await buildPost(operator, account.id);
    await refusedWithoutWrites(() => operator.patch(`/api/posts/${post.id}`, { caption: '  ' }), 'caption', messages.captionRequired);
  });

  it('names and text are kept trimmed', async () => {
    const account = await buildAccount(operator);
    const post = await operator.post('/api/posts', { accountId: account.id, caption: '  New drop  ' });
    expectStatus(post, 201);
    expect(post.body.caption).toBe('New drop');
  });

  it('a 100,000-character caption is refused as too long, with the limit', async () => {
    const account = await buildAccount(operator);
    await refusedWithoutWrites(
      () => operator.post('/api/posts', { accountId: account.id, caption: 'x'.repeat(100_000) }),
      'caption',
      'Caption must be at most 2200 characters',
    );
  });

  it('a 201-character name is refused with its limit', async () => {
    await refusedWithoutWrites(() => operator.post('/api/devices', { name: 'x'.repeat(201) }), 'name', 'Name must be at most 200 characters');
  });
});

describe('messages', () => {
  it('are sentences, never a validator’s own wording', async () => {
    const answers = [
      await operator.post('/api/devices', { name: 42 }),
      await operator.get('/api/devices?status=asleep'),
      await operator.post('/api/tasks', { title: 'x' }),
      await operator.post('/api/tasks', '"text"', { 'content-type': 'application/json' }),
      await operator.get('/api/tasks?limit=abc'),
      await operator.post('/api/campaigns', { name: 'x', platform: 'tiktok', niche: 'n', keywords: 'gym' }),
      await operator.post('/api/invitations', { email: 'nope' }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      for (const text of [answer.body.error, ...answer.body.details.map((detail: { message: string }) => detail.message)]) {
        expect(text).toMatch(/^[A-Z]/);
        expect(text).not.toMatch(/Invalid input|Invalid option|Too big|Too small|expected|received|^[a-z]+[A-Z]\w*:/);
      }
    }
    expect(answers.map((answer) => answer.body.error)).toEqual([
      'Name must be text',
      'Status must be one of online, offline, busy or idle',
      'Type must be one of post, engage, warmup or monitor',
      'Request body must be an object',
      'Limit must be a number',
      'Keywords must be a list',
      'Email must be a valid email address',
    ]);
  });
});
