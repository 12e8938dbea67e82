/** Groups and tags of phones (issue #42): management, the devices filter, bulk and export by group, assigning a group. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupNameTaken, type BulkResult, type Device, type DeviceGroup } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function newWorkspace(): Promise<{ operator: Client; va: Client }> {
  const operator = await signUp(t.app);
  return { operator, va: await inviteVa(t.app, operator, 'Vera Assistant') };
}

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

async function makeGroup(client: Client, body: Record<string, unknown>): Promise<DeviceGroup> {
  const answer = await client.post<DeviceGroup>('/api/groups', body);
  expectStatus(answer, 201);
  return answer.body;
}

describe('groups and tags', () => {
  it('creates a group with phones, lists it by name, renames it and removes it, each audited', async () => {
    const { operator, va } = await newWorkspace();
    const a = await buildDevice(operator, { name: 'A' });
    const b = await buildDevice(operator, { name: 'B' });
    const group = await makeGroup(operator, { name: '  Client Acme ', deviceIds: [a.id, b.id, a.id] });
    expect(group).toMatchObject({ name: 'Client Acme', kind: 'group', deviceIds: [a.id, b.id].sort() });
    const tag = await makeGroup(operator, { name: 'aged accounts', kind: 'tag' });
    expect(tag).toMatchObject({ kind: 'tag', deviceIds: [] });

    // VAs read groups.
    const listed = await va.get<DeviceGroup[]>('/api/groups');
    expectStatus(listed, 200);
    expect(listed.body.map((row) => row.name)).toEqual(['aged accounts', 'Client Acme']);
    expectStatus(await va.get(`/api/groups/${group.id}`), 200);

    const renamed = await operator.patch<DeviceGroup>(`/api/groups/${group.id}`, { name: 'Client Acme (hub 2)' });
    expectStatus(renamed, 200);
    expect(renamed.body.name).toBe('Client Acme (hub 2)');

    expectStatus(await operator.delete(`/api/groups/${tag.id}`), 204);
    expectStatus(await operator.get(`/api/groups/${tag.id}`), 404);
    expectStatus(await operator.delete(`/api/groups/${tag.id}`), 404);

    const actions = (await operator.get<{ action: string }[]>('/api/audit-log')).body.map((row) => row.action);
    expect(actions).toEqual(expect.arrayContaining(['group.created', 'group.renamed', 'group.deleted']));
    // Removing a group leaves its phones.
    expectStatus(await operator.delete(`/api/groups/${group.id}`), 204);
    expect(ids((await operator.get<Device[]>('/api/devices')).body)).toEqual([a.id, b.id]);
  });

  it('refuses a name already used in the workspace, whatever its case, and writes nothing', async () => {
    const { operator } = await newWorkspace();
    const other = await newWorkspace();
    const group = await makeGroup(operator, { name: 'Hub A' });
    const phone = await buildDevice(operator);
    const taken = await operator.post('/api/groups', { name: 'hub a', kind: 'tag', deviceIds: [phone.id] });
    expectError(taken, 409, groupNameTaken('hub a'));
    const second = await makeGroup(operator, { name: 'Hub B' });
    expectError(await operator.patch(`/api/groups/${second.id}`, { name: 'HUB A' }), 409, groupNameTaken('HUB A'));
    // Its own name in another case is a rename, not a clash.
    expectStatus(await operator.patch(`/api/groups/${group.id}`, { name: 'HUB A' }), 200);
    // Another workspace may use the same name.
    await makeGroup(other.operator, { name: 'Hub A' });
    const listed = (await operator.get<DeviceGroup[]>('/api/groups')).body;
    expect(listed.map((row) => `${row.name}:${row.deviceIds.length}`)).toEqual(['HUB A:0', 'Hub B:0']);
  });

  it('lets one of many simultaneous creations of a name win; the others get the sentence', async () => {
    const { operator } = await newWorkspace();
    const names = ['Race', 'race', 'RACE', 'rAce', 'Race '];
    const answers = await Promise.all(names.map((name) => operator.post('/api/groups', { name })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const answer of answers.filter((row) => row.status === 409))
      expect(answer.body.error).toMatch(/^A group or tag named "race" already exists in this workspace$/i);
    expect((await operator.get<DeviceGroup[]>('/api/groups')).body).toHaveLength(1);
  });

  it('refuses bad input naming the field', async () => {
    const { operator } = await newWorkspace();
    expectFieldError(await operator.post('/api/groups', { name: '   ' }), 'name', 'Name is required');
    expectFieldError(await operator.post('/api/groups', {}), 'name', 'Name is required');
    expectFieldError(await operator.post('/api/groups', { name: 'x'.repeat(101) }), 'name', 'Name must be at most 100 characters');
    const bad = await operator.post('/api/groups', { name: 'G', kind: 'folder' });
    expectStatus(bad, 400);
    expect(JSON.stringify(bad.body)).toContain('kind');
    const group = await makeGroup(operator, { name: 'G' });
    expectFieldError(await operator.post(`/api/groups/${group.id}/devices`, {}), 'add', 'Choose at least one phone');
    expectStatus(await operator.get('/api/groups/not-an-id'), 404);
    expectStatus(await operator.get('/api/devices?groupId=nope'), 400);
    expect((await operator.get<DeviceGroup[]>('/api/groups')).body).toHaveLength(1);
  });

  it('lets only operators manage groups', async () => {
    const { operator, va } = await newWorkspace();
    const group = await makeGroup(operator, { name: 'Mine' });
    const phone = await buildDevice(operator);
    expectStatus(await va.post('/api/groups', { name: 'Theirs' }), 403);
    expectStatus(await va.patch(`/api/groups/${group.id}`, { name: 'Theirs' }), 403);
    expectStatus(await va.delete(`/api/groups/${group.id}`), 403);
    expectStatus(await va.post(`/api/groups/${group.id}/devices`, { add: [phone.id] }), 403);
    expectStatus(await va.post(`/api/groups/${group.id}/assign`, { assignedToId: va.user!.id }), 403);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/groups' });
    expect(anonymous.statusCode).toBe(401);
    expect((await operator.get<DeviceGroup>(`/api/groups/${group.id}`)).body).toMatchObject({ name: 'Mine', deviceIds: [] });
  });

  it('keeps groups and phones within their workspace', async () => {
    const mine = await newWorkspace();
    const theirs = await newWorkspace();
    const group = await makeGroup(mine.operator, { name: 'Ours' });
    const own = await buildDevice(mine.operator);
    const foreign = await buildDevice(theirs.operator);
    const foreignGroup = await makeGroup(theirs.operator, { name: 'Theirs', deviceIds: [foreign.id] });

    // A phone of another workspace refuses the whole change: the own phone is not added either.
    expectFieldError(
      await mine.operator.post(`/api/groups/${group.id}/devices`, { add: [own.id, foreign.id] }),
      'add',
      `1 phone was not found in this workspace: ${foreign.id}`,
    );
    expectFieldError(
      await mine.operator.post('/api/groups', { name: 'Mixed', deviceIds: [foreign.id] }),
      'deviceIds',
      `1 phone was not found in this workspace: ${foreign.id}`,
    );
    expect((await mine.operator.get<DeviceGroup>(`/api/groups/${group.id}`)).body.deviceIds).toEqual([]);
    expect((await mine.operator.get<DeviceGroup[]>('/api/groups')).body.map((row) => row.name)).toEqual(['Ours']);

    // Another workspace's group is not found, for reading, changing and filtering.
    expectStatus(await mine.operator.get(`/api/groups/${foreignGroup.id}`), 404);
    expectStatus(await mine.operator.patch(`/api/groups/${foreignGroup.id}`, { name: 'Mine now' }), 404);
    expectStatus(await mine.operator.post(`/api/groups/${foreignGroup.id}/devices`, { add: [own.id] }), 404);
    expectStatus(await mine.operator.post(`/api/groups/${foreignGroup.id}/assign`, { assignedToId: null }), 404);
    expectStatus(await mine.operator.delete(`/api/groups/${foreignGroup.id}`), 404);
    expect((await mine.operator.get<Device[]>(`/api/devices?groupId=${foreignGroup.id}`)).body).toEqual([]);
    expect((await theirs.operator.get<DeviceGroup>(`/api/groups/${foreignGroup.id}`)).body).toMatchObject({ name: 'Theirs', deviceIds: [foreign.id] });
  });

  it('adds and takes out phones; a phone may be in several groups; a removed phone leaves its groups', async () => {
    const { operator } = await newWorkspace();
    const [a, b, c] = [await buildDevice(operator, { name: 'A' }), await buildDevice(operator, { name: 'B' }), await buildDevice(operator, { name: 'C' })];
    const g1 = await makeGroup(operator, { name: 'G1', deviceIds: [a.id] });
    const g2 = await makeGroup(operator, { name: 'G2', kind: 'tag', deviceIds: [a.id, b.id] });
    const changed = await operator.post<DeviceGroup>(`/api/groups/${g1.id}/devices`, { add: [b.id, c.id, a.id], remove: [] });
    expectStatus(changed, 200);
    expect([...changed.body.deviceIds].sort()).toEqual([a.id, b.id, c.id].sort());
    expectFieldError(
      await operator.post(`/api/groups/${g1.id}/devices`, { add: [c.id], remove: [c.id] }),
      'remove',
      'A phone cannot be added and taken out in the same change',
    );
    const out = await operator.post<DeviceGroup>(`/api/groups/${g1.id}/devices`, { remove: [c.id] });
    expect([...out.body.deviceIds].sort()).toEqual([a.id, b.id].sort());
    const said = (await operator.get<{ action: string }[]>('/api/activities')).body.map((row) => row.action);
    expect(said).toEqual(expect.arrayContaining(['2 phones added to G1', '1 phone taken out of G1']));
    expect(said.filter((action) => action.endsWith(' G1'))).toHaveLength(2);

    // The devices list, filtered by group.
    expect(ids((await operator.get<Device[]>(`/api/devices?groupId=${g1.id}`)).body)).toEqual([a.id, b.id]);
    expect(ids((await operator.get<Device[]>(`/api/devices?groupId=${g2.id}&search=B`)).body)).toEqual([b.id]);

    expectStatus(await operator.delete(`/api/devices/${a.id}`), 204);
    expect((await operator.get<DeviceGroup>(`/api/groups/${g2.id}`)).body.deviceIds).toEqual([b.id]);
  });

  it('filters bulk actions and exports by group', async () => {
    const { operator, va } = await newWorkspace();
    const a = await buildDevice(operator, { name: 'A' });
    const b = await buildDevice(operator, { name: 'B' });
    const group = await makeGroup(operator, { name: 'Bulk', deviceIds: [b.id] });
    const bulk = await operator.post<BulkResult>('/api/devices/bulk', {
      filter: { groupId: group.id },
      action: 'update',
      changes: { assignedToId: va.user!.id },
    });
    expectStatus(bulk, 200);
    expect(ids(bulk.body.results)).toEqual([b.id]);
    const devices = (await operator.get<Device[]>('/api/devices')).body;
    expect(devices.map((row) => [row.name, row.assignedToId])).toEqual([
      ['A', null],
      ['B', va.user!.id],
    ]);
    const exported = await operator.get<string>(`/api/export/devices.csv?groupId=${group.id}`);
    expectStatus(exported, 200);
    expect(exported.body).toContain(b.id);
    expect(exported.body).not.toContain(a.id);
  });

  it("gives a group's phones to a VA at once through the devices' own assignment", async () => {
    const { operator, va } = await newWorkspace();
    const a = await buildDevice(operator, { name: 'A' });
    const b = await buildDevice(operator, { name: 'B' });
    const outside = await buildDevice(operator, { name: 'C' });
    const group = await makeGroup(operator, { name: 'Hub 1', deviceIds: [a.id, b.id] });
    const empty = await makeGroup(operator, { name: 'Empty' });
    expectFieldError(await operator.post(`/api/groups/${empty.id}/assign`, { assignedToId: va.user!.id }), 'id', 'This group has no phones yet');

    const answer = await operator.post<BulkResult>(`/api/groups/${group.id}/assign`, { assignedToId: va.user!.id });
    expectStatus(answer, 200);
    expect(answer.body.results.every((row) => row.ok)).toBe(true);
    const devices = (await operator.get<Device[]>('/api/devices')).body;
    expect(devices.map((row) => [row.name, row.assignedToId])).toEqual([
      ['A', va.user!.id],
      ['B', va.user!.id],
      ['C', null],
    ]);
    expect(outside.assignedToId).toBeNull();
    const activities = (await operator.get<{ action: string }[]>('/api/activities')).body.map((row) => row.action);
    expect(activities).toEqual(expect.arrayContaining(['A assigned to Vera Assistant', 'B assigned to Vera Assistant']));

    // A person outside the workspace: refused with the assignment's own sentence, nothing changed.
    const stranger = await signUp(t.app);
    const refused = await operator.post<BulkResult & { error: string }>(`/api/groups/${group.id}/assign`, { assignedToId: stranger.user!.id });
    expectStatus(refused, 409);
    expect(refused.body.results.map((row) => row.error)).toEqual([
      'Assignee must be an active member of this workspace',
      'Assignee must be an active member of this workspace',
    ]);
    expect((await operator.get<Device[]>(`/api/devices?groupId=${group.id}`)).body.map((row) => row.assignedToId)).toEqual([va.user!.id, va.user!.id]);

    const back = await operator.post<BulkResult>(`/api/groups/${group.id}/assign`, { assignedToId: null });
    expectStatus(back, 200);
    expect((await operator.get<Device[]>(`/api/devices?groupId=${group.id}`)).body.map((row) => row.assignedToId)).toEqual([null, null]);
  });
});
