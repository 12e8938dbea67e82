/**
 * Analytics over time: windows in the workspace's time zone, the previous period, series with one point per
 * bucket, the performance tables and account growth, each checked against figures worked out by hand from
 * fixtures placed on and around the windows' boundaries.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccountGrowth, Leaderboard, Timeseries, WindowedStats } from '@farm/contracts';
import { buildTestApp, inviteVa, people, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount } from '../helpers/factories.ts';
import { clearOfHourEdge } from '../helpers/clock.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

// The windows are drawn by the database's clock: a test starts clear of an hour's (and so a day's) edge.
beforeEach(() => clearOfHourEdge());

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Tokyo has no daylight saving: its days start at 15:00 UTC the day before. */
const TZ = 'Asia/Tokyo';
const OFFSET = 9 * HOUR;

function tokyoMidnight(now = Date.now()): number {
  const local = new Date(now + OFFSET);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) - OFFSET;
}

async function operatorIn(timeZone: string): Promise<Client> {
  const operator = await signUp(t.app);
  expectStatus(await operator.patch('/api/workspace', { name: 'Tokyo Farm', timeZone }), 200);
  return operator;
}

const ws = (client: Client) => client.user!.workspaceId!;

async function task(
  client: Client,
  fields: { status: 'pending' | 'completed' | 'failed'; createdAt: number; completedAt?: number; type?: 'engage' | 'warmup' },
) {
  await t.db
    .insertInto('tasks')
    .values({
      workspaceId: ws(client),
      title: 'Fixture',
      type: fields.type ?? 'warmup',
      priority: 'low',
      status: fields.status,
      createdAt: new Date(fields.createdAt),
      completedAt: fields.completedAt === undefined ? null : new Date(fields.completedAt),
    })
    .execute();
}

async function device(client: Client, name = 'Phone') {
  return t.db
    .insertInto('devices')
    .values({ workspaceId: ws(client), name })
    .returning('id')
    .executeTakeFirstOrThrow();
}

async function endedSession(client: Client, deviceId: string, startedAt: number, seconds: number) {
  await t.db
    .insertInto('sessions')
    .values({
      workspaceId: ws(client),
      deviceId,
      duration: seconds,
      isActive: false,
      activeSince: null,
      startedAt: new Date(startedAt),
      endedAt: new Date(startedAt + seconds * 1000),
    })
    .execute();
}

describe('GET /api/analytics/timeseries', () => {
  it('gives one point per day of the last 7 in the workspace zone, boundaries included at the start and excluded at the end', async () => {
    const operator = await operatorIn(TZ);
    const end = tokyoMidnight() + DAY;
    const start = end - 7 * DAY;
    await task(operator, { status: 'completed', createdAt: start, completedAt: start });
    await task(operator, { status: 'failed', createdAt: start + DAY, completedAt: start + DAY + 5 * 60_000 });
    await task(operator, { status: 'completed', createdAt: start - 1, completedAt: start - 1 });
    await task(operator, { status: 'completed', createdAt: end - 1, completedAt: end - 1 });
    await task(operator, { status: 'completed', createdAt: end, completedAt: end });
    await task(operator, { status: 'pending', createdAt: start + 2 * DAY });

    const answer = await operator.get<Timeseries>('/api/analytics/timeseries?metric=tasks&range=7d');
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ metric: 'tasks', bucket: 'day', timeZone: TZ, from: new Date(start).toISOString(), to: new Date(end).toISOString() });
    expect(answer.body.points).toEqual(
      [
        [1, 0],
        [0, 1],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [1, 0],
      ].map(([completed, failed], day) => ({ at: new Date(start + day * DAY).toISOString(), completed, failed })),
    );

    // The stat cards over the same window, and the week before it.
    const stats = await operator.get<WindowedStats>('/api/analytics/stats?range=7d');
    expectStatus(stats, 200);
    expect(stats.body).toMatchObject({
      range: '7d',
      from: new Date(start).toISOString(),
      to: new Date(end).toISOString(),
      timeZone: TZ,
      totalTasks: 4,
      completedTasks: 2,
      successRate: 50,
      previous: { totalTasks: 1, completedTasks: 1, successRate: 100, totalSessionTime: 0 },
    });
  });

  it('counts in another zone when tz overrides the workspace zone', async () => {
    const operator = await operatorIn(TZ);
    const tokyoStart = tokyoMidnight() + DAY - 7 * DAY;
    // 20:00 UTC is the next day in Tokyo but the same day in UTC.
    await task(operator, { status: 'completed', createdAt: tokyoStart + 5 * HOUR, completedAt: tokyoStart + 5 * HOUR + DAY });
    const tokyo = await operator.get<Timeseries>('/api/analytics/timeseries?metric=tasks&range=30d');
    const utc = await operator.get<Timeseries>('/api/analytics/timeseries?metric=tasks&range=30d&tz=UTC');
    expect(tokyo.body.points).toHaveLength(30);
    expect(utc.body.points).toHaveLength(30);
    expect(utc.body.timeZone).toBe('UTC');
    const day = (series: Timeseries) => series.points.find((point) => point.completed === 1)!.at;
    expect(day(tokyo.body)).toBe(new Date(tokyoStart + DAY).toISOString());
    const when = tokyoStart + 5 * HOUR + DAY;
    expect(day(utc.body)).toBe(new Date(Math.floor(when / DAY) * DAY).toISOString());
  });

  it('answers zeros for every day of an empty custom range', async () => {
    const operator = await operatorIn('UTC');
    for (const metric of ['tasks', 'posts', 'sessions', 'engagement', 'devices'] as const) {
      const answer = await operator.get<Timeseries>(`/api/analytics/timeseries?metric=${metric}&from=2024-02-28&to=2024-03-01`);
      expectStatus(answer, 200);
      expect(answer.body.points.map((point) => point.at)).toEqual(['2024-02-28T00:00:00.000Z', '2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
      for (const point of answer.body.points) for (const [key, value] of Object.entries(point)) if (key !== 'at') expect(value).toBe(0);
    }
    const posts = await operator.get<Timeseries>('/api/analytics/timeseries?metric=posts&from=2024-02-28&to=2024-02-28');
    expect(posts.body.points).toEqual([{ at: '2024-02-28T00:00:00.000Z', tiktok: 0, instagram: 0, facebook: 0, twitter: 0, youtube: 0, tinder: 0 }]);
  });

  it('gives 24 hourly points of session hours, posts per platform, engagement and connected time per day', async () => {
    const operator = await operatorIn(TZ);
    const phone = await device(operator);
    const hourEnd = Math.floor(Date.now() / HOUR) * HOUR + HOUR;
    const hourStart = hourEnd - 24 * HOUR;
    await endedSession(operator, phone.id, hourStart, 1800);
    await endedSession(operator, phone.id, hourStart - 1, 3600);
    await endedSession(operator, phone.id, hourStart + 23 * HOUR, 5400);
    const hours = await operator.get<Timeseries>('/api/analytics/timeseries?metric=sessions&range=24h');
    expectStatus(hours, 200);
    expect(hours.body.bucket).toBe('hour');
    expect(hours.body.points).toHaveLength(24);
    expect(hours.body.points[0]).toEqual({ at: new Date(hourStart).toISOString(), hours: 0.5 });
    expect(hours.body.points[23]).toEqual({ at: new Date(hourStart + 23 * HOUR).toISOString(), hours: 1.5 });
    expect(hours.body.points.slice(1, 23).every((point) => point.hours === 0)).toBe(true);

    const dayStart = tokyoMidnight() - 6 * DAY;
    const account = await t.db
      .insertInto('accounts')
      .values({ workspaceId: ws(operator), username: 'glow', platform: 'instagram' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('posts')
      .values([
        { workspaceId: ws(operator), accountId: account.id, caption: 'a', status: 'published', publishedAt: new Date(dayStart + 2 * DAY) },
        { workspaceId: ws(operator), accountId: account.id, caption: 'b', status: 'published', publishedAt: new Date(dayStart + 2 * DAY + HOUR) },
        { workspaceId: ws(operator), accountId: account.id, caption: 'c', status: 'failed', scheduledAt: new Date(dayStart + 2 * DAY) },
      ])
      .execute();
    const posts = await operator.get<Timeseries>('/api/analytics/timeseries?metric=posts&range=7d');
    expect(posts.body.points[2]).toEqual({
      at: new Date(dayStart + 2 * DAY).toISOString(),
      tiktok: 0,
      instagram: 2,
      facebook: 0,
      twitter: 0,
      youtube: 0,
      tinder: 0,
    });
    expect(posts.body.points.reduce((sum, point) => sum + point.instagram!, 0)).toBe(2);

    await task(operator, { status: 'completed', type: 'engage', createdAt: dayStart, completedAt: dayStart + 4 * DAY });
    await task(operator, { status: 'failed', type: 'engage', createdAt: dayStart, completedAt: dayStart + 4 * DAY });
    const engagement = await operator.get<Timeseries>('/api/analytics/timeseries?metric=engagement&range=7d');
    expect(engagement.body.points.map((point) => point.actions)).toEqual([0, 0, 0, 0, 1, 0, 0]);

    // Online for 6 hours on day 3, then 2 busy hours across midnight into day 4.
    await t.db
      .insertInto('deviceStatusHistory')
      .values([
        { workspaceId: ws(operator), deviceId: phone.id, status: 'online', changedAt: new Date(dayStart + 3 * DAY) },
        { workspaceId: ws(operator), deviceId: phone.id, status: 'offline', changedAt: new Date(dayStart + 3 * DAY + 6 * HOUR) },
        { workspaceId: ws(operator), deviceId: phone.id, status: 'busy', changedAt: new Date(dayStart + 4 * DAY - HOUR) },
        { workspaceId: ws(operator), deviceId: phone.id, status: 'offline', changedAt: new Date(dayStart + 4 * DAY + HOUR) },
      ])
      .execute();
    const online = await operator.get<Timeseries>('/api/analytics/timeseries?metric=devices&range=7d');
    expect(online.body.points.map((point) => point.hours)).toEqual([0, 0, 0, 7, 1, 0, 0]);
  });

  it('refuses a window it cannot read, naming the field', async () => {
    const operator = await signUp(t.app);
    expectFieldError(await operator.get('/api/analytics/timeseries?range=7d'), 'metric', 'Metric must be one of tasks, posts, sessions, engagement or devices');
    expectFieldError(await operator.get('/api/analytics/timeseries?metric=tasks&range=1y'), 'range', 'Time range must be one of 24h, 7d, 30d or 90d');
    expectFieldError(
      await operator.get('/api/analytics/timeseries?metric=tasks&from=2024-01-01'),
      'to',
      'From date and To date go together: give both or neither',
    );
    expectFieldError(await operator.get('/api/analytics/timeseries?metric=tasks&from=2024-01-05&to=2024-01-01'), 'to', 'To date must not be before From date');
    expectFieldError(
      await operator.get('/api/analytics/timeseries?metric=tasks&from=2020-01-01&to=2024-01-01'),
      'to',
      'To date must be at most 366 days after From date',
    );
    expectFieldError(
      await operator.get('/api/analytics/timeseries?metric=tasks&from=2024-13-01&to=2024-12-01'),
      'from',
      'From date must be a date (YYYY-MM-DD)',
    );
    expectFieldError(await operator.get('/api/analytics/timeseries?metric=tasks&tz=Mars/Olympus'), 'tz', 'Time zone must be a time zone such as Europe/Paris');
    expectFieldError(
      await operator.get('/api/analytics/stats?range=7d&from=2024-01-01&to=2024-01-02'),
      'range',
      'Give either a Time range or From and To dates, not both',
    );
  });

  it('is for members of the workspace only', async () => {
    const { va, anonymous } = await people(t.app);
    expectStatus(await va.get('/api/analytics/timeseries?metric=tasks'), 200);
    expectError(await anonymous.get('/api/analytics/timeseries?metric=tasks'), 401, 'Not signed in');
  });
});

describe('GET /api/analytics/stats with a window', () => {
  it('compares with the previous period: tasks, sessions, and the fleet as it stood', async () => {
    const operator = await operatorIn('UTC');
    const end = Math.floor(Date.now() / DAY) * DAY + DAY;
    const start = end - 30 * DAY;
    const previousStart = start - 30 * DAY;
    const old = await device(operator, 'Old phone');
    await t.db
      .updateTable('devices')
      .set({ createdAt: new Date(previousStart) })
      .where('id', '=', old.id)
      .execute();
    await t.db
      .updateTable('deviceStatusHistory')
      .set({ changedAt: new Date(previousStart) })
      .where('deviceId', '=', old.id)
      .execute();
    await t.db
      .insertInto('deviceStatusHistory')
      .values({ workspaceId: ws(operator), deviceId: old.id, status: 'busy', changedAt: new Date(start - DAY) })
      .execute();
    // Connected is online, busy or idle, now and then.
    const fresh = await device(operator, 'New phone');
    await t.db.updateTable('devices').set({ status: 'busy' }).where('id', '=', fresh.id).execute();
    await endedSession(operator, old.id, start - HOUR, 600);
    await endedSession(operator, old.id, start, 1200);
    await endedSession(operator, old.id, previousStart - 1, 999);
    await task(operator, { status: 'completed', createdAt: previousStart, completedAt: previousStart });
    await task(operator, { status: 'pending', createdAt: start - 1 });
    await task(operator, { status: 'completed', createdAt: start, completedAt: start });

    const answer = await operator.get<WindowedStats>('/api/analytics/stats?range=30d');
    expectStatus(answer, 200);
    expect(answer.body).toEqual({
      activeSessions: 0,
      totalDevices: 2,
      onlineDevices: 1,
      completedTasks: 1,
      totalTasks: 1,
      totalSessionTime: 1200,
      successRate: 100,
      avgSessionTime: 1200,
      range: '30d',
      from: new Date(start).toISOString(),
      to: new Date(end).toISOString(),
      timeZone: 'UTC',
      previous: {
        activeSessions: 0,
        // Only the old phone existed then, and it was connected (busy) at the period's end.
        totalDevices: 1,
        onlineDevices: 1,
        completedTasks: 1,
        totalTasks: 2,
        totalSessionTime: 600,
        successRate: 50,
        avgSessionTime: 300,
      },
    });

    const custom = await operator.get<WindowedStats>(
      `/api/analytics/stats?from=${new Date(start).toISOString().slice(0, 10)}&to=${new Date(start).toISOString().slice(0, 10)}`,
    );
    expect(custom.body).toMatchObject({
      range: null,
      totalTasks: 1,
      totalSessionTime: 1200,
      from: new Date(start).toISOString(),
      to: new Date(start + DAY).toISOString(),
    });
    expect(custom.body.previous).toMatchObject({ totalTasks: 1, completedTasks: 0, totalSessionTime: 600 });
  });
});

describe('GET /api/analytics/tables/{table}', () => {
  it('sorts by any column either way, pages with a total, and counts VA hours over the window', async () => {
    const operator = await operatorIn('UTC');
    const ana = await inviteVa(t.app, operator, 'Ana Able');
    const ben = await inviteVa(t.app, operator, 'Ben Busy');
    await inviteVa(t.app, operator, 'Cal Calm');
    const start = Math.floor(Date.now() / DAY) * DAY - 6 * DAY;
    const phoneA = await t.db
      .insertInto('devices')
      .values({ workspaceId: ws(operator), name: 'A phone', assignedToId: ana.user!.id, sessionTime: 99 * 3600 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const phoneB = await t.db
      .insertInto('devices')
      .values({ workspaceId: ws(operator), name: 'B phone', assignedToId: ben.user!.id })
      .returning('id')
      .executeTakeFirstOrThrow();
    await endedSession(operator, phoneA.id, start, 2 * 3600 + 1700);
    await endedSession(operator, phoneA.id, start - 1, 50 * 3600);
    await endedSession(operator, phoneB.id, start + DAY, 3600);
    for (const [assignee, status] of [
      [ana, 'completed'],
      [ana, 'failed'],
      [ana, 'completed'],
      [ben, 'completed'],
    ] as const) {
      await t.db
        .insertInto('tasks')
        .values({
          workspaceId: ws(operator),
          title: 'x',
          type: 'engage',
          priority: 'low',
          status,
          assignedToId: assignee.user!.id,
          deviceId: assignee === ana ? phoneA.id : phoneB.id,
          createdAt: new Date(start + HOUR),
        })
        .execute();
    }
    await t.db
      .insertInto('tasks')
      .values({
        workspaceId: ws(operator),
        title: 'old',
        type: 'engage',
        priority: 'low',
        status: 'completed',
        assignedToId: ben.user!.id,
        createdAt: new Date(start - 1),
      })
      .execute();

    const vas = await operator.get<Leaderboard>('/api/analytics/tables/vas?range=7d');
    expectStatus(vas, 200);
    expect(vas.body.total).toBe(3);
    expect(vas.body.rows).toEqual([
      { id: ana.user!.id, name: 'Ana Able', totalTasks: 3, completedTasks: 2, failedTasks: 1, successRate: 67, hours: 2, handsOnHours: 0 },
      { id: ben.user!.id, name: 'Ben Busy', totalTasks: 1, completedTasks: 1, failedTasks: 0, successRate: 100, hours: 1, handsOnHours: 0 },
      { id: expect.any(String), name: 'Cal Calm', totalTasks: 0, completedTasks: 0, failedTasks: 0, successRate: 0, hours: 0, handsOnHours: 0 },
    ]);
    const bySuccess = await operator.get<Leaderboard>('/api/analytics/tables/vas?range=7d&sort=successRate&order=asc&limit=2');
    expect(bySuccess.body.rows.map((row) => row.name)).toEqual(['Cal Calm', 'Ana Able']);
    const second = await operator.get<Leaderboard>('/api/analytics/tables/vas?range=7d&sort=successRate&order=asc&limit=2&offset=2');
    expect(second.body).toMatchObject({ total: 3, rows: [{ name: 'Ben Busy' }] });
    const past = await operator.get<Leaderboard>('/api/analytics/tables/vas?range=7d&offset=10');
    expect(past.body).toEqual({ table: 'vas', total: 3, rows: [] });

    const devices = await operator.get<Leaderboard>('/api/analytics/tables/devices?range=7d&sort=hours');
    expect(devices.body.rows.map((row) => [row.name, row.hours, row.totalTasks])).toEqual([
      ['A phone', 2.5, 3],
      ['B phone', 1, 1],
    ]);
    expect(devices.body.total).toBe(2);
    const byName = await operator.get<Leaderboard>('/api/analytics/tables/devices?range=7d&sort=name&order=desc');
    expect(byName.body.rows.map((row) => row.name)).toEqual(['B phone', 'A phone']);
    // Sorted by another column, the page's phones get their hours after the ranking: the same figures.
    const byTasks = await operator.get<Leaderboard>('/api/analytics/tables/devices?range=7d');
    expect(byTasks.body.rows).toEqual([
      { id: phoneA.id, name: 'A phone', status: 'offline', totalTasks: 3, completedTasks: 2, failedTasks: 1, successRate: 67, hours: 2.5 },
      { id: phoneB.id, name: 'B phone', status: 'offline', totalTasks: 1, completedTasks: 1, failedTasks: 0, successRate: 100, hours: 1 },
    ]);
    const phonesBySuccess = await operator.get<Leaderboard>('/api/analytics/tables/devices?range=7d&sort=successRate&order=asc&limit=1&offset=1');
    expect(phonesBySuccess.body).toMatchObject({ total: 2, rows: [{ name: 'B phone', successRate: 100, hours: 1 }] });
    // Past the last page the total still counts the phones.
    expect((await operator.get<Leaderboard>('/api/analytics/tables/devices?range=7d&offset=5')).body).toEqual({ table: 'devices', total: 2, rows: [] });
  });

  it('ranks campaigns by runs and accounts by followers gained in the window', async () => {
    const operator = await operatorIn('UTC');
    const start = Math.floor(Date.now() / DAY) * DAY - 6 * DAY;
    const account = await buildAccount(operator, { username: 'grower', followers: 100 });
    const flat = await buildAccount(operator, { username: 'flat', followers: 500 });
    await t.db
      .updateTable('accountStatsHistory')
      .set({ recordedAt: new Date(start - DAY) })
      .where('accountId', 'in', [account.id, flat.id])
      .execute();
    await t.db.updateTable('accounts').set({ followers: 180 }).where('id', '=', account.id).execute();
    const campaign = await t.db
      .insertInto('campaigns')
      .values({ workspaceId: ws(operator), name: 'Spring', platform: 'instagram', niche: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('campaignSessions')
      .values([
        { workspaceId: ws(operator), campaignId: campaign.id, status: 'completed', createdAt: new Date(start) },
        { workspaceId: ws(operator), campaignId: campaign.id, status: 'failed', createdAt: new Date(start + DAY) },
        { workspaceId: ws(operator), campaignId: campaign.id, status: 'completed', createdAt: new Date(start - 1) },
      ])
      .execute();
    await t.db
      .insertInto('posts')
      .values({
        workspaceId: ws(operator),
        accountId: account.id,
        campaignId: campaign.id,
        caption: 'p',
        status: 'published',
        publishedAt: new Date(start + DAY),
      })
      .execute();

    const campaigns = await operator.get<Leaderboard>('/api/analytics/tables/campaigns?range=7d');
    expect(campaigns.body.rows).toEqual([
      { id: campaign.id, name: 'Spring', platform: 'instagram', status: 'draft', runs: 2, completedRuns: 1, failedRuns: 1, successRate: 50, postsPublished: 1 },
    ]);
    expect(campaigns.body.total).toBe(1);
    const accounts = await operator.get<Leaderboard>('/api/analytics/tables/accounts?range=7d&sort=followersGained');
    expect(accounts.body.rows.map((row) => [row.name, row.followersGained, row.followers, row.postsPublished])).toEqual([
      ['grower', 80, 180, 1],
      ['flat', 0, 500, 0],
    ]);
    expect(accounts.body.total).toBe(2);
  });

  it('refuses an unknown table or column', async () => {
    const operator = await signUp(t.app);
    expectFieldError(await operator.get('/api/analytics/tables/planets'), 'table', 'Table must be one of devices, vas, campaigns or accounts');
    expectFieldError(
      await operator.get('/api/analytics/tables/devices?sort=password'),
      'sort',
      'Sort must be one of totalTasks, completedTasks, failedTasks, successRate, hours, name',
    );
    expectFieldError(await operator.get('/api/analytics/tables/devices?limit=0'), 'limit', 'Limit must be at least 1');
  });
});

describe('GET /api/analytics/accounts/{id}/growth', () => {
  it('carries the last known followers and following through each day', async () => {
    const operator = await operatorIn('UTC');
    const start = Math.floor(Date.now() / DAY) * DAY - 6 * DAY;
    const account = await buildAccount(operator, { followers: 150, following: 20 });
    await t.db
      .updateTable('accountStatsHistory')
      .set({ recordedAt: new Date(start + 3 * DAY) })
      .where('accountId', '=', account.id)
      .execute();
    await t.db
      .insertInto('accountStatsHistory')
      .values({ workspaceId: ws(operator), accountId: account.id, followers: 100, following: 10, recordedAt: new Date(start + DAY) })
      .execute();
    // A change through the API is kept in the history too.
    expectStatus(await operator.patch(`/api/accounts/${account.id}`, { followers: 160 }), 200);

    const answer = await operator.get<AccountGrowth>(`/api/analytics/accounts/${account.id}/growth?range=7d`);
    expectStatus(answer, 200);
    expect(answer.body.points.map((point) => [point.followers, point.following])).toEqual([
      [0, 0],
      [100, 10],
      [100, 10],
      [150, 20],
      [150, 20],
      [150, 20],
      [160, 20],
    ]);
  });

  it('answers 404 for another workspace’s account', async () => {
    const { operator, stranger } = await people(t.app);
    const account = await buildAccount(operator);
    expectError(await stranger.get(`/api/analytics/accounts/${account.id}/growth`), 404, 'Not found');
  });
});

describe('analytics of one group of phones', () => {
  it('counts the stat cards, the charts and the phones table over the group’s phones only, and refuses a group not its own', async () => {
    const operator = await signUp(t.app);
    const stranger = await signUp(t.app);
    const inGroup = (await operator.post('/api/devices', { name: 'Rack A 1' })).body as { id: string };
    const outside = (await operator.post('/api/devices', { name: 'Rack B 1' })).body as { id: string };
    for (const [deviceId, status] of [
      [inGroup.id, 'completed'],
      [inGroup.id, 'failed'],
      [outside.id, 'completed'],
      [outside.id, 'completed'],
      [outside.id, 'pending'],
    ] as const) {
      const made = await operator.post('/api/tasks', { title: 'Warm up', type: 'warmup', priority: 'medium', deviceId });
      expectStatus(made, 201);
      if (status !== 'pending') await t.db.updateTable('tasks').set({ status, completedAt: new Date() }).where('id', '=', made.body.id).execute();
    }
    const group = (await operator.post('/api/groups', { name: 'Rack A', deviceIds: [inGroup.id] })).body as { id: string };

    const all = (await operator.get<WindowedStats>('/api/analytics/stats?range=7d')).body;
    expect(all).toMatchObject({ totalTasks: 5, completedTasks: 3, totalDevices: 2 });
    const ofGroup = (await operator.get<WindowedStats>(`/api/analytics/stats?range=7d&groupId=${group.id}`)).body;
    expect(ofGroup).toMatchObject({ totalTasks: 2, completedTasks: 1, successRate: 50, totalDevices: 1, previous: { totalTasks: 0, totalDevices: 0 } });
    // All time too.
    expect((await operator.get<WindowedStats>(`/api/analytics/stats?groupId=${group.id}`)).body).toMatchObject({ totalTasks: 2, totalDevices: 1 });

    const table = (await operator.get<Leaderboard>(`/api/analytics/tables/devices?range=7d&groupId=${group.id}`)).body;
    expect(table.total).toBe(1);
    expect(table.rows).toEqual([expect.objectContaining({ id: inGroup.id, name: 'Rack A 1', totalTasks: 2, completedTasks: 1, failedTasks: 1 })]);
    expect((await operator.get<Leaderboard>('/api/analytics/tables/devices?range=7d')).body.total).toBe(2);

    // The charts too: tasks finished by the group's phones only.
    const finished = async (query: string) => {
      const series = (await operator.get<Timeseries>(`/api/analytics/timeseries?metric=tasks&range=7d${query}`)).body;
      return ['completed', 'failed'].map((key) => series.points.reduce((sum, point) => sum + (point[key] ?? 0), 0));
    };
    expect(await finished('')).toEqual([3, 1]);
    expect(await finished(`&groupId=${group.id}`)).toEqual([1, 1]);
    for (const metric of ['posts', 'sessions', 'engagement', 'devices'])
      expectStatus(await operator.get(`/api/analytics/timeseries?metric=${metric}&range=30d&groupId=${group.id}`), 200);
    expectFieldError(
      await stranger.get(`/api/analytics/timeseries?metric=tasks&groupId=${group.id}`),
      'groupId',
      "Group must be one of this workspace's groups or tags",
    );

    expectFieldError(await operator.get(`/api/analytics/tables/vas?groupId=${group.id}`), 'groupId', 'Filter by group applies to the phones table only');
    expectFieldError(await stranger.get(`/api/analytics/stats?groupId=${group.id}`), 'groupId', "Group must be one of this workspace's groups or tags");
    expectFieldError(await operator.get('/api/analytics/stats?groupId=rack'), 'groupId', 'Group id must be an id');
  });
});
