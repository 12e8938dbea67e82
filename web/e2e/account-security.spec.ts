/**
 * Account security as people use it: an operator turns on two-factor sign-in in Settings (scanning is replaced
 * by reading the setup key, as an authenticator app would), logs in again with a code, and resets a VA's
 * password with a one-time link that the VA opens to choose a new one.
 */
import { expect, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { expectToast, PASSWORD, uniqueEmail } from './support/ui';

/** What an authenticator app holding `secret` shows `stepsAhead` periods from now. */
function code(secret: string, stepsAhead = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

const json = { 'Content-Type': 'application/json' };

test('an operator turns on two-factor sign-in, then logs in with a code', async ({ page, browser }) => {
  const email = uniqueEmail('tess');
  expect(
    (await page.request.post('/api/auth/signup', { data: { name: 'Tess Twofactor', email, password: PASSWORD, role: 'operator' }, headers: json })).status(),
  ).toBe(201);

  await page.goto('/settings/two-factor');
  const section = page.getByRole('region', { name: 'Two-factor sign-in' });
  await section.getByRole('button', { name: 'Turn On Two-Factor Sign-In' }).click();
  const setup = page.getByRole('dialog', { name: 'Set up two-factor sign-in' });
  await expect(setup.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = await setup.getByRole('textbox', { name: 'Setup key (if you cannot scan)' }).inputValue();
  await setup.getByRole('textbox', { name: 'Code' }).fill('000000');
  await setup.getByRole('button', { name: 'Verify and Turn On' }).click();
  await expect(setup.getByText('That code is not right. Please try again.')).toBeVisible();
  await setup.getByRole('textbox', { name: 'Code' }).fill(code(secret));
  await setup.getByRole('button', { name: 'Verify and Turn On' }).click();
  const codes = page.getByRole('dialog', { name: 'Recovery codes' });
  await expect(codes.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
  await codes.getByRole('button', { name: 'I Have Saved My Codes' }).click();
  await expect(section.getByText('On', { exact: true })).toBeVisible();

  const fresh = await browser.newContext();
  const login = await fresh.newPage();
  await login.goto('/login');
  await login.getByRole('textbox', { name: 'Email' }).fill(email);
  await login.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await login.getByRole('button', { name: 'Login' }).click();
  await expect(login.getByRole('heading', { level: 1, name: 'Two-factor sign-in' })).toBeVisible();
  // The code of the next period: the one of this period was just used to turn it on, and a code works once.
  await login.getByRole('textbox', { name: 'Code' }).fill(code(secret, 1));
  await login.getByRole('button', { name: 'Verify' }).click();
  await expectToast(login, 'Login successful', 'Welcome back, Tess Twofactor!');
  await expect(login).toHaveURL(/\/dashboard$/);
  await fresh.close();
});

test('an operator resets a VA’s password with a one-time link, and the VA sets a new one', async ({ page, browser, baseURL }) => {
  expect(
    (
      await page.request.post('/api/auth/signup', {
        data: { name: 'Rita Resetter', email: uniqueEmail('rita'), password: PASSWORD, role: 'operator' },
        headers: json,
      })
    ).status(),
  ).toBe(201);
  const invite = await page.request.post('/api/invitations', { data: { role: 'va' }, headers: json });
  const { invitation } = (await invite.json()) as { invitation: { token: string } };
  const vaEmail = uniqueEmail('vince');
  const vaApi = await browser.newContext();
  expect(
    (
      await vaApi.request.post('/api/auth/signup', {
        data: { name: 'Vince Forgetful', email: vaEmail, password: PASSWORD, role: 'va', inviteToken: invitation.token },
        headers: json,
      })
    ).status(),
  ).toBe(201);
  await vaApi.close();

  await page.goto('/settings/members');
  await page.getByRole('listitem', { name: 'Vince Forgetful' }).getByRole('button', { name: 'Reset Password' }).click();
  await page.getByRole('dialog', { name: 'Reset password' }).getByRole('button', { name: 'Make Reset Link' }).click();
  const shown = page.getByRole('dialog', { name: 'Password reset link' });
  const link = await shown.getByRole('textbox', { name: 'Password reset link' }).inputValue();
  expect(link).toMatch(new RegExp(`^${baseURL}/reset-password\\?token=`));
  await shown.getByRole('button', { name: 'Done' }).click();

  const vaContext = await browser.newContext();
  const va = await vaContext.newPage();
  await va.goto(link);
  await expect(va.getByText(`Choose a new password for ${vaEmail}`)).toBeVisible();
  await va.getByRole('textbox', { name: 'New Password', exact: true }).fill('a brand new password');
  await va.getByRole('textbox', { name: 'Confirm Password', exact: true }).fill('a brand new password');
  await va.getByRole('button', { name: 'Set New Password' }).click();
  await expectToast(va, 'Password Updated', 'You can now log in with your new password.');
  await expect(va).toHaveURL(/\/login$/);
  await va.getByRole('textbox', { name: 'Email' }).fill(vaEmail);
  await va.getByRole('textbox', { name: 'Password', exact: true }).fill('a brand new password');
  await va.getByRole('button', { name: 'Login' }).click();
  await expectToast(va, 'Login successful', 'Welcome back, Vince Forgetful!');

  // The link worked once.
  await va.goto(link);
  await expect(va.getByRole('alert')).toContainText('This password reset link is invalid or has expired');
  await vaContext.close();
});

test('a person sees where they are signed in and ends another session, which is signed out', async ({ page, browser }) => {
  const email = uniqueEmail('sana');
  expect(
    (await page.request.post('/api/auth/signup', { data: { name: 'Sana Sessions', email, password: PASSWORD, role: 'operator' }, headers: json })).status(),
  ).toBe(201);
  // The same person signed in on a second browser.
  const other = await browser.newContext();
  const elsewhere = await other.newPage();
  expect((await elsewhere.request.post('/api/auth/login', { data: { email, password: PASSWORD }, headers: json })).status()).toBe(200);

  await page.goto('/settings/sessions');
  const section = page.getByRole('region', { name: 'Sessions' });
  await expect(section.getByRole('listitem')).toHaveCount(2);
  await expect(section.getByText('This session')).toHaveCount(1);
  const notThis = section.getByRole('listitem').filter({ hasNot: page.getByText('This session') });
  await notThis.getByRole('button', { name: 'End Session' }).click();
  await expectToast(page, 'Session Ended', 'is signed out.');
  await expect(section.getByRole('listitem')).toHaveCount(1);
  // The other browser is signed out at once.
  expect((await elsewhere.request.get('/api/auth/me')).status()).toBe(401);
  await other.close();
});
