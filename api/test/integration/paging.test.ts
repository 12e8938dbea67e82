/**
 * Lists and their pages: activities newest first with a default of 100, and for every paged list,
 * limit + the x-next-cursor header give every row exactly once, in the list's order, ties included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activity } from '@farm/contracts';
import { buildTestApp, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildCampaign, buildDevice, buildPost, buildSession, buildTask, collectPages } from '../helpers/factories.ts';

let t: TestApp;
/** Only reads refused lists: shared by the refusal tests. */
let reader: Client;
beforeAll(async () => {
  t = await buildTestApp();
  reader = await signUp(t.app);
});
afterAll(async () => {
  await t?.close();
});

/** Writes `count` activities straight to the table, one second apart, the newest first in the answer. */
async function seedActivities(client: Client, count: number, at = (index: number) => new Date(Date.UTC(2026, 0, 1) + index * 1000)) {
  await t.db
    .insertInto('activities')
    .values(
      Array.from({ length: count }, (_, index) => ({
        workspaceId: client.user!.workspaceId!,
        userId: client.user!.id,
        action: `Event ${index}`,
        type: 'info' as const,
        createdAt: at(index),
      })),
    )
    .execute();
}

describe('GET /api/activities', () => {
  it('answers the 100 newest by default, newest first, with a cursor to the rest', async () => {
    const operator = await signUp(t.app);
    await seedActivities(operator, 130);
    const first = await operator.get<Activity[]>('/api/activities');
    expectStatus(first, 200);
    expect(first.body).toHaveLength(100);
    // The signup's own activity is the newest of all.
    expect(first.body[0]!.action).toMatch(/created the workspace$/);
    expect(first.body.slice(1, 4).map((row) => row.action)).toEqual(['Event 129', 'Event 128', 'Event 127']);
    const times = first.body.map((row) => Date.parse(row.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const cursor = first.headers['x-next-cursor'];
    expect(typeof cursor).toBe('string');

    const rest = await operator.get<Activity[]>(`/api/activities?cursor=${cursor as string}`);
    expect(rest.body).toHaveLength(31);
    expect(rest.body.at(-1)!.action).toBe('Event 0');
    expect(rest.headers['x-next-cursor']).toBeUndefined();
  });

  it('filters by type, phone and time window', async () => {
    const operator = await signUp(t.app);
    const device = await buildDevice(operator, { name: 'Filter Phone' });
    await seedActivities(operator, 5);
    expect((await operator.get<Activity[]>(`/api/activities?deviceId=${device.id}`)).body.map((row) => row.action)).toEqual(['Device Filter Phone added']);
    expect((await operator.get<Activity[]>('/api/activities?type=success')).body).toHaveLength(2);
    const window = await operator.get<Activity[]>('/api/activities?from=2026-01-01T00:00:01Z&to=2026-01-01T00:00:04Z');
    expect(window.body.map((row) => row.action)).toEqual(['Event 3', 'Event 2', 'Event 1']);
    expectFieldError(await operator.get('/api/activities?type=fatal'), 'type', 'Type must be one of success, warning, info or error');
    expectFieldError(await operator.get('/api/activities?from=yesterday'), 'from', 'From date must be a date and time, like 2026-05-01T09:30:00Z');
  });
});

/** Each paged list: how to add one row, and the time column its order runs on. */
const lists: {
  path: string;
  table: 'devices' | 'tasks' | 'campaigns' | 'accounts' | 'posts' | 'sessions' | 'activities';
  column: 'createdAt' | 'startedAt';
  add(client: Client): Promise<unknown>;
}[] = [
  { path: '/api/devices', table: 'devices', column: 'createdAt', add: (client) => buildDevice(client) },
  { path: '/api/tasks', table: 'tasks', column: 'createdAt', add: (client) => buildTask(client) },
  { path: '/api/campaigns', table: 'campaigns', column: 'createdAt', add: (client) => buildCampaign(client) },
  { path: '/api/accounts', table: 'accounts', column: 'createdAt', add: (client) => buildAccount(client) },
  {
    path: '/api/posts',
    table: 'posts',
    column: 'createdAt',
    add: async (client) => buildPost(client, (await buildAccount(client)).id),
  },
  { path: '/api/sessions', table: 'sessions', column: 'startedAt', add: async (client) => buildSession(client, (await buildDevice(client)).id) },
  { path: '/api/activities', table: 'activities', column: 'createdAt', add: (client) => buildDevice(client) },
];

describe.each(lists)('paging $path', ({ path, table, column, add }) => {
  it('gives every row exactly once, in order, whatever the page size, with rows of equal time', async () => {
    const operator = await signUp(t.app);
    for (let n = 0; n < 7; n += 1) await add(operator);
    // Four rows share one instant: the order then rests on the id alone.
    const rows = await t.db.selectFrom(table).select('id').where('workspaceId', '=', operator.user!.workspaceId!).limit(4).execute();
    await t.db
      .updateTable(table)
      .set({ [column]: new Date(Date.UTC(2026, 5, 1, 12)) })
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();

    const whole = await operator.get<{ id: string }[]>(path);
    expectStatus(whole, 200);
    expect(whole.headers['x-next-cursor']).toBeUndefined();
    const ids = whole.body.map((row) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(7);
    expect(new Set(ids).size).toBe(ids.length);

    for (const limit of [1, 2, 3, ids.length - 1, ids.length]) {
      const paged = await collectPages<{ id: string }>(operator, path, limit);
      expect(paged.rows.map((row) => row.id)).toEqual(ids);
      expect(paged.pages.slice(0, -1).every((size) => size === limit)).toBe(true);
    }
  });
});

describe('paging refusals', () => {
  it.each([
    ['limit', 'limit=0', 'Limit must be at least 1'],
    ['limit', 'limit=1001', 'Limit must be at most 1000'],
    ['limit', 'limit=ten', 'Limit must be a number'],
    ['cursor', 'cursor=not-a-cursor', 'Cursor is not one this server gave; start again from the first page'],
    ['cursor', `cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`, 'Cursor is not one this server gave; start again from the first page'],
    [
      'cursor',
      `cursor=${Buffer.from('["2026-01-01T00:00:00.000Z","not-a-uuid"]').toString('base64url')}`,
      'Cursor is not one this server gave; start again from the first page',
    ],
    [
      'cursor',
      `cursor=${Buffer.from('{"at":"2026-01-01T00:00:00.000Z"}').toString('base64url')}`,
      'Cursor is not one this server gave; start again from the first page',
    ],
    ['cursor', `cursor=${'a'.repeat(201)}`, 'Cursor must be at most 200 characters'],
  ])('refuses a bad %s (%s)', async (field, query, message) => {
    for (const { path } of lists) {
      expectFieldError(await reader.get(`${path}?${query}`), field, message);
    }
  });
});
