/**
 * Group control's apps (GET/PUT /api/group-control/apps): the built-in setup apps, and packages operators add; a
 * built-in social, dating, messaging, video or browser app and a package a recipe of the workspace drives are refused
 * naming the field; a change is audited and said in the feed; VAs are refused. PGlite, or PostgreSQL with TEST_DB=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupControlApps } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';

let t: TestApp;
let operator: Client;
let va: Client;

beforeAll(async () => {
  t = await buildTestApp();
  ({ operator, va } = await people(t.app));
});
afterAll(async () => {
  await t.close();
});

describe('group control apps', () => {
  it('lists the built-in setup apps, adds a package, and audits the change', async () => {
    const before = await operator.get<GroupControlApps>('/api/group-control/apps');
    expectStatus(before, 200);
    expect(before.body.added).toEqual([]);
    expect(before.body.builtIn).toEqual(expect.arrayContaining([{ package: 'com.android.settings', name: 'Settings' }]));
    expect(before.body.builtIn.map((app) => app.package)).toContain('com.android.vending');

    const saved = await operator.put<GroupControlApps>('/api/group-control/apps', { added: ['com.example.vpn', 'com.example.vpn'] });
    expectStatus(saved, 200);
    expect(saved.body.added).toEqual(['com.example.vpn']);
    expect((await operator.get<GroupControlApps>('/api/group-control/apps')).body.added).toEqual(['com.example.vpn']);
    const audit = await t.db.selectFrom('auditLog').select('data').where('action', '=', 'group_control.apps').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.data).toMatchObject({ added: ['com.example.vpn'], removed: [] });
  });

  it('refuses an app with accounts and one a recipe drives, naming the field; refuses a VA', async () => {
    const denied = await operator.put('/api/group-control/apps', { added: ['com.example.ok', 'com.instagram.android'] });
    expectStatus(denied, 400);
    expect(denied.body.details).toEqual([
      { field: 'added.1', message: 'Instagram (com.instagram.android) is a social, dating, messaging, video or browser app: group control never drives it.' },
    ]);
    const shape = await operator.put('/api/group-control/apps', { added: ['not a package'] });
    expectStatus(shape, 400);
    expect(JSON.stringify(shape.body)).toContain('Write a package name, such as com.example.app');

    const template = await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post');
    const body = { ...template.body.body, id: 'acme.reels', version: 1, app: { ...(template.body.body.app as object), package: 'com.acme.reels' } };
    expectStatus(await operator.post('/api/recipes', { recipe: body }), 201);
    const driven = await operator.put('/api/group-control/apps', { added: ['com.acme.reels'] });
    expectStatus(driven, 400);
    expect(driven.body.details[0]).toEqual({
      field: 'added.0',
      message: 'com.acme.reels is driven by a recipe of this workspace: group control never drives it.',
    });

    expectStatus(await va.get('/api/group-control/apps'), 403);
    expectStatus(await va.put('/api/group-control/apps', { added: [] }), 403);
  });
});
