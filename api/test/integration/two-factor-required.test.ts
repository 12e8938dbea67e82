/**
 * "Require two-factor sign-in for operators" holds for new operators too: signing up through an operator invitation
 * of such a workspace yields no session until two-factor sign-in is set up, and a promotion to operator ends the
 * person's sessions (they sign in again, through the second factor where the workspace requires it).
 */
import { describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { currentCode } from '../../src/auth/two-factor.service.ts';
import { Client, inviteVa, signUp, uniqueEmail } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildInvitation } from '../helpers/factories.ts';
import { fileApp } from '../helpers/file-app.ts';
import { codeAt, fixedClock } from '../helpers/two-factor.ts';

const PASSWORD = 'correct horse battery';
// Codes and their checks read one instant: none turns stale during a request.
fixedClock();
const t = await fileApp();

async function requiringWorkspace(): Promise<Client> {
  const operator = await signUp(t.app);
  const setup = await operator.post<{ secret: string }>('/api/auth/two-factor/setup');
  expectStatus(await operator.post('/api/auth/two-factor/enable', { code: await codeAt(setup.body.secret, -1) }), 200);
  expectStatus(await operator.put('/api/workspace/two-factor', { required: true }), 200);
  return operator;
}

describe('two-factor sign-in required of operators', () => {
  it('gives an operator who signs up through an invitation no session until they set it up', async () => {
    const operator = await requiringWorkspace();
    const invitation = await buildInvitation(operator, { role: 'operator' });
    const client = new Client(t.app);
    const email = uniqueEmail('newop');
    const answer = await client.post<{ twoFactor: string; challenge: string }>('/api/auth/signup', {
      email,
      password: PASSWORD,
      name: 'Nell New',
      role: 'operator',
      inviteToken: invitation.token,
    });
    expectStatus(answer, 201);
    expect(answer.body).toEqual({ twoFactor: 'setup', challenge: expect.any(String) });
    expect(client.cookie).toBeUndefined();
    expectError(await client.get('/api/auth/me'), 401, messages.notSignedIn);

    const setup = await client.post<{ secret: string }>('/api/auth/login/two-factor/setup', { challenge: answer.body.challenge });
    expectStatus(setup, 200);
    const done = await client.post<{ recoveryCodes: string[] }>('/api/auth/login/two-factor', {
      challenge: answer.body.challenge,
      code: currentCode(setup.body.secret),
    });
    expectStatus(done, 200);
    expect(done.body.recoveryCodes).toHaveLength(10);
    expectStatus(await client.get('/api/auth/me'), 200);
  });

  it('signs a VA invited to such a workspace in at once', async () => {
    const operator = await requiringWorkspace();
    const va = await inviteVa(t.app, operator);
    expectStatus(await va.get('/api/auth/me'), 200);
  });

  it('ends the sessions of a person promoted to operator; they sign in again through the setup step', async () => {
    const operator = await requiringWorkspace();
    const email = uniqueEmail('promoted');
    const invitation = await buildInvitation(operator);
    const va = await signUp(t.app, { role: 'va', email, password: PASSWORD, inviteToken: invitation.token });
    expectStatus(await va.get('/api/auth/me'), 200);
    expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { role: 'operator' }), 200);
    expectError(await va.get('/api/auth/me'), 401, messages.notSignedIn);
    const again = await new Client(t.app).post<{ twoFactor: string }>('/api/auth/login', { email, password: PASSWORD });
    expectStatus(again, 200);
    expect(again.body.twoFactor).toBe('setup');
  });
});
