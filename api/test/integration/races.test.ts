/**
 * Invariants under real concurrency: requests sent side by side over HTTP, served on several database connections
 * at once (on PostgreSQL; PGlite serves one at a time, where the same tests hold trivially). Each race is run
 * several rounds; the counts of rounds are the races tried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { buildTestApp, signUp, uniqueEmail, type Client, type TestApp } from '../helpers/app.ts';
import { buildDevice, buildInvitation, PNG } from '../helpers/factories.ts';
import { duePostTask } from '../realtime/phones.ts';
import { http, serve, statuses, together } from '../helpers/http.ts';

const ROUNDS = 4;
const postgres = process.env.TEST_DB === 'postgres';
const PENDING_MAX = 5;
let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await buildTestApp({ uploadsPendingMax: PENDING_MAX });
  base = await serve(t.app);
});
afterAll(async () => {
  await t?.close();
});

const signupBody = (inviteToken: string) => ({ email: uniqueEmail('racer'), password: 'correct horse battery', name: 'Rae Racer', role: 'va', inviteToken });

async function members(operator: Client): Promise<{ id: string; role: string; isActive: boolean }[]> {
  return (await http(base, 'GET', '/api/users', { cookie: operator.cookie })).body;
}

describe('one invitation admits one person', () => {
  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))('six parallel signups with one token admit one (round %i)', async () => {
    const operator = await signUp(t.app);
    const invitation = await buildInvitation(operator);
    const answers = await together(6, () => http(base, 'POST', '/api/auth/signup', { body: signupBody(invitation.token) }));
    expect(statuses(answers)).toEqual({ 201: 1, 400: 5 });
    for (const refused of answers.filter((answer) => answer.status === 400)) expect(refused.body.error).toBe(messages.invitationInvalid);
    expect((await members(operator)).filter((member) => member.role === 'va')).toHaveLength(1);
  });

  it('two parallel signups with one email make one account', async () => {
    const email = uniqueEmail('twin');
    const answers = await together(4, () =>
      http(base, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery', name: 'Tia Twin', role: 'operator' } }),
    );
    expect(statuses(answers)).toEqual({ 201: 1, 409: 3 });
    for (const refused of answers.filter((answer) => answer.status === 409)) expect(refused.body.error).toBe(messages.emailTaken);
  });
});

describe('a workspace always keeps an active operator', () => {
  async function twoOperators(): Promise<[Client, Client]> {
    const first = await signUp(t.app);
    const invitation = await buildInvitation(first, { role: 'operator' });
    const second = await signUp(t.app, { role: 'operator', inviteToken: invitation.token });
    return [first, second];
  }

  it.each([
    ['demoting', { role: 'va' }],
    ['deactivating', { isActive: false }],
  ] as const)('two operators %s each other at once leave one operator (%j)', async (_what, change) => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const [a, b] = await twoOperators();
      const answers = await Promise.all([
        http(base, 'PATCH', `/api/users/${b.user!.id}`, { cookie: a.cookie, body: change }),
        http(base, 'PATCH', `/api/users/${a.user!.id}`, { cookie: b.cookie, body: change }),
      ]);
      // One change goes through; the other finds its author no longer an operator, or the last one.
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
      const operators = await t.db
        .selectFrom('workspaceMembers')
        .select('userId')
        .where('workspaceId', '=', a.user!.workspaceId!)
        .where('role', '=', 'operator')
        .where('deactivatedAt', 'is', null)
        .execute();
      expect(operators).toHaveLength(1);
    }
  });
});

describe('a signed upload URL stores one file', () => {
  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))('eight parallel PUTs to one URL store one (round %i)', async () => {
    const operator = await signUp(t.app);
    const reserved = await http<{ url: string }>(base, 'POST', '/api/objects/upload', { cookie: operator.cookie, body: {} });
    expect(reserved.status).toBe(200);
    const answers = await together(8, () => http(base, 'PUT', reserved.body.url, { body: PNG, headers: { 'content-type': 'image/png' } }));
    expect(statuses(answers)).toEqual({ 200: 1, 409: 7 });
    for (const refused of answers.filter((answer) => answer.status === 409)) expect(refused.body.error).toBe(messages.uploadLinkUsed);
  });
});

describe('upload URLs a person may hold unused', () => {
  it(`are ${PENDING_MAX} at most, however many are asked for at once`, async () => {
    const operator = await signUp(t.app);
    const answers = await together(20, (index) =>
      index % 2 === 0
        ? http(base, 'POST', '/api/objects/upload', { cookie: operator.cookie, body: {} })
        : http(base, 'POST', '/api/object-storage/presigned-url', { cookie: operator.cookie, body: { filename: `face-${index}.png` } }),
    );
    expect(statuses(answers)).toEqual({ 200: PENDING_MAX, 429: 20 - PENDING_MAX });
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body.error).toBe(messages.tooManyPendingUploads);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Using one frees one.
    const first = answers.find((answer) => answer.status === 200 && answer.body.url)!;
    expect((await http(base, 'PUT', first.body.url, { body: PNG, headers: { 'content-type': 'image/png' } })).status).toBe(200);
    expect((await http(base, 'POST', '/api/objects/upload', { cookie: operator.cookie, body: {} })).status).toBe(200);
    expect((await http(base, 'POST', '/api/objects/upload', { cookie: operator.cookie, body: {} })).status).toBe(429);
    // Another person has their own allowance.
    const other = await signUp(t.app);
    expect((await http(base, 'POST', '/api/objects/upload', { cookie: other.cookie, body: {} })).status).toBe(200);
  });
});

describe("a person's change and a phone's report on the same work", () => {
  // A phone's result locks its task, then writes its post; a person's edit locks the post, then calls off its task.
  // Met at the same moment, PostgreSQL ends one of the two to break the deadlock; the edit, ended here, is run again.
  it.runIf(postgres)('an edit of a post whose task is being settled goes through', async () => {
    const operator = await signUp(t.app);
    const device = await buildDevice(operator, { name: 'Pixel race' });
    const { post, task } = await duePostTask(t, operator, device.id);
    const phone = t.db.transaction().execute(async (tx) => {
      await tx.selectFrom('tasks').select('id').where('id', '=', task.id).forUpdate().execute();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await tx.updateTable('posts').set({ waitingCode: null, waitingMessage: null }).where('id', '=', post.id).execute();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The edit starts waiting for the task first, so its deadlock check runs first and it is the one ended.
    const [edit] = await Promise.all([
      http(base, 'PATCH', `/api/posts/${post.id}`, { cookie: operator.cookie, body: { caption: 'Spring drop, take two' } }),
      phone,
    ]);
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ caption: 'Spring drop, take two', status: 'scheduled' });
    expect(await t.db.selectFrom('tasks').select(['status', 'failureMessage']).where('id', '=', task.id).executeTakeFirstOrThrow()).toEqual({
      status: 'cancelled',
      failureMessage: 'The post was edited',
    });
  });
});
