/**
 * CSV export of every list (streamed in batches, with the list's filters, escaped for spreadsheets) and CSV
 * import of posts and accounts (a verdict per row with the forms' messages, then one transaction).
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { csvColumns, exportEntityValues, messages, type ImportResult } from '@farm/contracts';
import { signUp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildCampaign, buildDevice, buildPost, buildTask, reportFromPhone } from '../helpers/factories.ts';
import { appWithPeople } from '../helpers/file-app.ts';

const { t, operator, va, stranger, anonymous } = await appWithPeople();

const CSV = { 'content-type': 'text/csv' };
const rowsOf = (text: string) => parse(text, { columns: true, bom: true }) as Record<string, string>[];
const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

describe('GET /api/export/{list}.csv', () => {
  it('streams text/csv with the console’s column names, escaping commas, quotes, newlines and formulas', async () => {
    const owner = await signUp(t.app);
    const device = await buildDevice(owner, { name: 'Pixel, "Blue"' });
    const titles = ['Plain', 'Comma, inside', 'Say "hi"', 'Two\nlines', '=SUM(A1:A9)', '+1 555', '-cmd', '@import'];
    for (const title of titles) await buildTask(owner, { title, deviceId: device.id, deadline: '2030-05-01T09:30:00.000Z' });

    const answer = await owner.get<string>('/api/export/tasks.csv');
    expectStatus(answer, 200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toMatch(/^attachment; filename="tasks-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = answer.body;
    expect(text.split('\r\n')[0]).toBe(csvColumns.tasks.join(','));
    // Exact cells as a spreadsheet receives them: quoted where needed, formulas defused with a leading apostrophe.
    expect(text).toContain('"Comma, inside"');
    expect(text).toContain('"Say ""hi"""');
    expect(text).toContain('"Two\nlines"');
    expect(text).toContain(",'=SUM(A1:A9),");
    expect(text).toContain(",'+1 555,");
    expect(text).toContain(",'-cmd,");
    expect(text).toContain(",'@import,");
    expect(text).toContain('"Pixel, ""Blue"""');
    const rows = rowsOf(text);
    expect(rows.map((row) => row.Title)).toEqual([...titles].reverse().map((title) => (/^[=+\-@]/.test(title) ? `'${title}` : title)));
    expect(rows[0]).toMatchObject({
      Type: 'warmup',
      Priority: 'medium',
      Status: 'pending',
      Device: 'Pixel, "Blue"',
      'Assigned To': '',
      Deadline: '2030-05-01T09:30:00.000Z',
      'Completed At': '',
    });
    expect(rows[0]!['Created At']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('keeps the list’s filters and the workspace’s rows only, across batches', async () => {
    const owner = await signUp(t.app);
    const workspaceId = owner.user!.workspaceId!;
    await t.db
      .insertInto('tasks')
      .values(
        Array.from({ length: 2300 }, (_, index) => ({
          workspaceId,
          title: `Task ${index}`,
          type: 'engage' as const,
          priority: index % 2 === 0 ? ('high' as const) : ('low' as const),
          createdAt: new Date(Date.UTC(2026, 0, 1) + index * 1000),
        })),
      )
      .execute();
    await buildTask(stranger, { priority: 'high' });
    const all = rowsOf((await owner.get<string>('/api/export/tasks.csv')).body);
    expect(all).toHaveLength(2300);
    expect(new Set(all.map((row) => row.ID)).size).toBe(2300);
    expect(all[0]!.Title).toBe('Task 2299');
    expect(all.at(-1)!.Title).toBe('Task 0');
    const high = rowsOf((await owner.get<string>('/api/export/tasks.csv?priority=high&search=Task%201')).body);
    expect(high.every((row) => row.Priority === 'high' && row.Title!.startsWith('Task 1'))).toBe(true);
    expect(high).toHaveLength(Array.from({ length: 2300 }, (_, index) => index).filter((index) => index % 2 === 0 && String(index).startsWith('1')).length);
  });

  it('exports every list with its header row', async () => {
    const owner = await signUp(t.app);
    const account = await buildAccount(owner, { username: 'glow', status: 'active', followers: 12 });
    await buildPost(owner, account.id, { caption: 'Hello, world', hashtags: ['#a', '#b'] });
    // The battery is what the phone last reported.
    await reportFromPhone(t.db, (await buildDevice(owner, { name: 'Phone 1' })).id, { status: 'offline', battery: 77 });
    for (const entity of exportEntityValues) {
      const answer = await owner.get<string>(`/api/export/${entity}.csv`);
      expectStatus(answer, 200);
      expect(answer.body.split('\r\n')[0]).toBe(csvColumns[entity].join(','));
    }
    expect(rowsOf((await owner.get<string>('/api/export/posts.csv')).body)[0]).toMatchObject({
      Account: 'glow',
      Platform: 'instagram',
      Caption: 'Hello, world',
      Hashtags: '#a #b',
      Status: 'draft',
    });
    expect(rowsOf((await owner.get<string>('/api/export/accounts.csv?status=active')).body)).toMatchObject([{ Username: 'glow', Followers: '12' }]);
    expect(rowsOf((await owner.get<string>('/api/export/devices.csv')).body)).toMatchObject([{ Name: 'Phone 1', Battery: '77', Status: 'offline' }]);
    expect(rowsOf((await owner.get<string>('/api/export/activities.csv')).body).map((row) => row.Action)).toContain('Device Phone 1 added');
  });

  it('refuses an unknown list or filter, and is for members only', async () => {
    expectError(
      await operator.get('/api/export/passwords.csv'),
      404,
      'There is no export named passwords.csv; try one of tasks.csv, posts.csv, accounts.csv, devices.csv, sessions.csv, activities.csv',
    );
    expectError(
      await operator.get('/api/export/tasks.json'),
      404,
      'There is no export named tasks.json; try one of tasks.csv, posts.csv, accounts.csv, devices.csv, sessions.csv, activities.csv',
    );
    expectFieldError(
      await operator.get('/api/export/tasks.csv?status=lost'),
      'status',
      'Status must be one of pending, in-progress, completed, failed or cancelled',
    );
    expectFieldError(await operator.get('/api/export/devices.csv?assignedToId=nobody'), 'assignedToId', 'Assignee must be an id');
    expectStatus(await va.get('/api/export/tasks.csv'), 200);
    expectError(await anonymous.get('/api/export/tasks.csv'), 401, 'Not signed in');
  });
});

describe('POST /api/import/posts', () => {
  it('answers a verdict per row on a dry run, with the form’s messages, and writes nothing', async () => {
    const owner = await signUp(t.app);
    await buildAccount(owner, { username: 'glow', status: 'active' });
    await buildAccount(owner, { username: 'sleepy', status: 'paused' });
    await buildCampaign(owner, { name: 'Spring' });
    const future = inADay();
    const csv = [
      'Account,Platform,Campaign,Caption,Hashtags,Status,Scheduled At',
      `@glow,instagram,Spring,"Launch, day ""one""",#a #b nope,scheduled,${future}`,
      'glow,,,,,draft,',
      'nobody,,,Hi,,draft,',
      'sleepy,,,Hi,,,',
      'glow,,Autumn,Hi,,failed,',
      'glow,,,Hi,,scheduled,2020-01-01T00:00:00Z',
      'glow,,,Hi,,scheduled,',
      "glow,,,'=HYPERLINK(1),,,",
    ].join('\n');
    const answer = await owner.post<ImportResult>('/api/import/posts?dryRun=1', csv, CSV);
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ dryRun: true, total: 8, valid: 2, invalid: 6, created: 0 });
    const [first, noCaption, unknown, paused, failed, past, noTime, formula] = answer.body.rows;
    expect(first).toEqual({
      line: 2,
      ok: true,
      errors: [],
      values: {
        Account: '@glow',
        Platform: 'instagram',
        Campaign: 'Spring',
        Caption: 'Launch, day "one"',
        Hashtags: '#a #b',
        'Media URLs': '',
        Status: 'scheduled',
        'Scheduled At': future,
      },
    });
    expect(noCaption!.errors).toEqual([{ field: 'Caption', message: messages.captionRequired }]);
    expect(unknown!.errors).toEqual([{ field: 'Account', message: 'Account: no account @nobody in this workspace' }]);
    expect(paused!.errors).toEqual([{ field: 'Account', message: 'Account: @sleepy is not active; only active accounts can post' }]);
    expect(failed!.errors).toEqual([
      { field: 'Campaign', message: 'Campaign: no campaign "Autumn" in this workspace' },
      { field: 'Status', message: 'Status: a post cannot be created as failed' },
    ]);
    expect(past!.errors).toEqual([{ field: 'Scheduled At', message: 'Scheduled At: must be in the future' }]);
    expect(noTime!.errors).toEqual([{ field: 'Scheduled At', message: messages.scheduleRequired }]);
    // A cell our export protected from spreadsheets reads back as it was written.
    expect(formula).toMatchObject({ ok: true, values: { Caption: '=HYPERLINK(1)', Status: 'draft' } });
    expect(await t.db.selectFrom('posts').select('id').where('workspaceId', '=', owner.user!.workspaceId!).execute()).toEqual([]);

    const committed = await owner.post<ImportResult>('/api/import/posts', csv, CSV);
    expectStatus(committed, 200);
    expect(committed.body).toMatchObject({ dryRun: false, total: 8, valid: 2, created: 2 });
    const posts = await t.db
      .selectFrom('posts')
      .select(['caption', 'status', 'scheduledAt', 'hashtags'])
      .where('workspaceId', '=', owner.user!.workspaceId!)
      .orderBy('caption')
      .execute();
    expect(posts).toEqual([
      { caption: '=HYPERLINK(1)', status: 'draft', scheduledAt: null, hashtags: [] },
      { caption: 'Launch, day "one"', status: 'scheduled', scheduledAt: new Date(future), hashtags: ['#a', '#b'] },
    ]);
    expect((await owner.get('/api/activities')).body[0].action).toBe('Imported 2 posts from CSV');
  });

  it('reads back its own export', async () => {
    const owner = await signUp(t.app);
    const account = await buildAccount(owner, { username: 'round', status: 'active' });
    await buildPost(owner, account.id, { caption: '=1+1, "quoted"\nnext line', hashtags: ['#x'] });
    const exported = (await owner.get<string>('/api/export/posts.csv')).body;
    const answer = await owner.post<ImportResult>('/api/import/posts?dryRun=1', exported, CSV);
    expect(answer.body.rows).toMatchObject([
      { ok: true, values: { Account: '@round', Caption: '=1+1, "quoted"\nnext line', Hashtags: '#x', Status: 'draft' } },
    ]);
  });

  it('refuses what is not a CSV it can read', async () => {
    expectFieldError(
      await operator.post('/api/import/posts', 'Caption\n"unclosed', CSV),
      'body',
      'The file is not a CSV file this console can read (see line 2)',
    );
    expectFieldError(await operator.post('/api/import/posts', 'Account,Caption\n', CSV), 'body', 'The CSV file has no rows under its header');
    expectFieldError(
      await operator.post('/api/import/posts', 'Caption\nHello', CSV),
      'body',
      'The CSV needs the column "Account" (columns: Account, Platform, Campaign, Caption, Hashtags, Media URLs, Status, Scheduled At)',
    );
    expectFieldError(await operator.post('/api/import/posts', { caption: 'json' }), 'body', 'Send the CSV file as text/csv');
    expectError(await operator.post('/api/import/planets', 'a\nb', CSV), 404, 'Route POST /api/import/planets not found');
    expectFieldError(await operator.post('/api/import/posts?dryRun=maybe', 'a\nb', CSV), 'dryRun', 'Dry run must be one of 0, 1, true or false');
    const many = ['Account,Caption', ...Array.from({ length: 5001 }, () => 'a,b')].join('\n');
    expectFieldError(await operator.post('/api/import/posts?dryRun=1', many, CSV), 'body', 'A CSV import takes at most 5000 rows at once');
  });
});

describe('POST /api/import/accounts', () => {
  it('checks usernames, platforms, numbers and room on each phone, then adds the valid rows', async () => {
    const owner = await signUp(t.app);
    const phone = await buildDevice(owner, { name: 'Rack 1' });
    await buildAccount(owner, { username: 'taken', platform: 'tiktok' });
    await buildAccount(owner, { username: 'one', platform: 'instagram', deviceId: phone.id });
    await buildAccount(owner, { username: 'two', platform: 'instagram', deviceId: phone.id });
    const csv = [
      'Username,Platform,Status,Device,Bio,Followers,Following',
      'three,instagram,active,Rack 1,"Bio, with comma",1200,10',
      'four,instagram,,rack 1,,,',
      'taken,tiktok,,,,,',
      ',youtube,,,,,',
      'five,myspace,,,,,',
      'six,twitter,sleeping,,,,',
      'seven,twitter,,Nowhere,,lots,',
      'three,instagram,,,,,',
    ].join('\r\n');
    const dry = await owner.post<ImportResult>('/api/import/accounts?dryRun=true', csv, CSV);
    expectStatus(dry, 200);
    const errors = dry.body.rows.map((row) => row.errors);
    expect(dry.body.rows[0]).toMatchObject({ ok: true, values: { Username: 'three', Device: 'Rack 1', Followers: '1200', Bio: 'Bio, with comma' } });
    expect(errors[1]).toEqual([{ field: 'Device', message: messages.accountLimit }]);
    expect(errors[2]).toEqual([{ field: 'Username', message: 'Username: @taken on tiktok is already in this workspace or earlier in the file' }]);
    expect(errors[3]).toEqual([{ field: 'Username', message: messages.usernameRequired }]);
    expect(errors[4]).toEqual([{ field: 'Platform', message: 'Platform must be one of tiktok, instagram, facebook, twitter, youtube or tinder' }]);
    expect(errors[5]).toEqual([{ field: 'Status', message: 'Status must be one of creation_pending, warmup, active, paused or suspended' }]);
    expect(errors[6]).toEqual([
      { field: 'Device', message: 'Device: no phone named "Nowhere" in this workspace' },
      { field: 'Followers', message: 'Followers: must be a whole number' },
    ]);
    expect(errors[7]).toEqual([{ field: 'Username', message: 'Username: @three on instagram is already in this workspace or earlier in the file' }]);

    const done = await owner.post<ImportResult>('/api/import/accounts', csv, CSV);
    expect(done.body).toMatchObject({ created: 1, valid: 1, invalid: 7 });
    const added = await t.db
      .selectFrom('accounts')
      .select(['username', 'status', 'followers', 'deviceId'])
      .where('username', '=', 'three')
      .where('workspaceId', '=', owner.user!.workspaceId!)
      .execute();
    expect(added).toEqual([{ username: 'three', status: 'active', followers: 1200, deviceId: phone.id }]);
  });

  it('lets a VA import neither posts nor accounts; a visitor neither', async () => {
    expectError(await va.post('/api/import/accounts?dryRun=1', 'Username,Platform\nx,tiktok', CSV), 403, 'You do not have permission to do this');
    expectError(await va.post('/api/import/posts?dryRun=1', 'Account,Caption\nx,y', CSV), 403, 'Importing posts is for operators');
    expectError(await anonymous.post('/api/import/posts?dryRun=1', 'Account,Caption\nx,y', CSV), 401, 'Not signed in');
  });

  it('never matches another workspace’s accounts or phones', async () => {
    const other = await buildAccount(stranger, { username: 'elsewhere', status: 'active' });
    await buildDevice(stranger, { name: 'Their phone' });
    const posts = await operator.post<ImportResult>('/api/import/posts?dryRun=1', `Account,Caption\n${other.username},Hi`, CSV);
    expect(posts.body.rows[0]!.errors).toEqual([{ field: 'Account', message: 'Account: no account @elsewhere in this workspace' }]);
    const accounts = await operator.post<ImportResult>('/api/import/accounts?dryRun=1', 'Username,Platform,Device\nnew,tiktok,Their phone', CSV);
    expect(accounts.body.rows[0]!.errors).toEqual([{ field: 'Device', message: 'Device: no phone named "Their phone" in this workspace' }]);
  });
});
