/**
 * Sessions: a person lists their signed-in browsers (user agent, address, last seen) and ends any; an operator ends
 * every session of a member; nobody ends another's session through their own list.
 */
import { describe, expect, it } from 'vitest';
import { messages, type AuthSession } from '@farm/contracts';
import { Client, inviteVa, signUp, uniqueEmail } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { fileApp } from '../helpers/file-app.ts';

const PASSWORD = 'correct horse battery';
const t = await fileApp();

describe('sessions', () => {
  it('lists the person’s sessions and ends one of them', async () => {
    const email = uniqueEmail('sessions');
    const person = await signUp(t.app, { email, password: PASSWORD });
    const phone = new Client(t.app);
    expectStatus(await phone.post('/api/auth/login', { email, password: PASSWORD }, { 'user-agent': 'Phone Browser 1.0' }), 200);
    const list = await person.get<AuthSession[]>('/api/auth/sessions');
    expectStatus(list, 200);
    expect(list.body).toHaveLength(2);
    const other = list.body.find((row) => !row.current)!;
    expect(other).toMatchObject({ userAgent: 'Phone Browser 1.0', ip: '127.0.0.1', current: false });
    expect(list.body.filter((row) => row.current)).toHaveLength(1);
    expectStatus(await person.delete(`/api/auth/sessions/${other.id}`), 204);
    expectError(await phone.get('/api/auth/me'), 401, messages.notSignedIn);
    expectStatus(await person.get('/api/auth/me'), 200);
    expect((await person.get<AuthSession[]>('/api/auth/sessions')).body).toHaveLength(1);
  });

  it('refuses to end another person’s session through one’s own list', async () => {
    const person = await signUp(t.app);
    const stranger = await signUp(t.app);
    const theirs = (await stranger.get<AuthSession[]>('/api/auth/sessions')).body[0]!;
    expectError(await person.delete(`/api/auth/sessions/${theirs.id}`), 404, messages.notFound);
    expectStatus(await stranger.get('/api/auth/me'), 200);
  });

  it('lets an operator end a member’s sessions, and no one else’s', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator);
    const stranger = await signUp(t.app);
    expectError(await stranger.delete(`/api/users/${va.user!.id}/sessions`), 404, messages.notFound);
    expectError(await va.delete(`/api/users/${operator.user!.id}/sessions`), 403, messages.forbidden);
    expectStatus(await va.get('/api/auth/me'), 200);
    expectStatus(await operator.delete(`/api/users/${va.user!.id}/sessions`), 204);
    expectError(await va.get('/api/auth/me'), 401, messages.notSignedIn);
  });
});
