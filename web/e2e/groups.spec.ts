/**
 * Groups of phones on Devices, at desktop and phone widths: an operator makes a group, puts two selected phones in
 * it from the bulk bar, filters the list by it, and gives the group's phones to a VA at once.
 */
import { expect, test, type APIRequestContext } from '@playwright/test';
import { choose, dialog, expectToast, PASSWORD, unique, uniqueEmail } from './support/ui';

const json = { 'Content-Type': 'application/json' };

async function post<T>(request: APIRequestContext, url: string, data: unknown): Promise<T> {
  const answer = await request.post(url, { data, headers: json });
  expect(answer.status(), `${url}: ${await answer.text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
}

for (const { label, viewport } of [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 375, height: 812 } },
]) {
  test(`groups: make one, fill it from the bulk bar, filter by it and assign it (${label})`, async ({ browser }) => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Gina Groups', email: uniqueEmail('gina'), password: PASSWORD, role: 'operator' });
    const { invitation } = await post<{ invitation: { token: string } }>(page.request, '/api/invitations', { role: 'va' });
    const vaContext = await browser.newContext();
    const { user: va } = await post<{ user: { id: string } }>(vaContext.request, '/api/auth/signup', {
      name: 'Gus Grouped',
      email: uniqueEmail('gus'),
      password: PASSWORD,
      role: 'va',
      inviteToken: invitation.token,
    });
    await vaContext.close();
    const phones = ['Hub Pixel A', 'Hub Pixel B', 'Other Pixel C'];
    const ids: string[] = [];
    for (const name of phones) ids.push((await post<{ id: string }>(page.request, '/api/devices', { name })).id);
    const groupName = unique('Client Acme');

    await page.goto('/devices');
    await expect(page.getByRole('article', { name: 'Other Pixel C' })).toBeVisible();

    // A new group, from Manage groups.
    await page.getByRole('button', { name: 'Manage groups' }).click();
    const groups = dialog(page, 'Groups and tags');
    await groups.getByLabel('New group or tag').fill(groupName);
    await groups.getByRole('button', { name: 'Create' }).click();
    await expectToast(page, 'Group Created');
    await expect(groups.getByRole('row', { name: new RegExp(groupName) })).toBeVisible();
    // The same name in another case is refused with a sentence.
    await groups.getByLabel('New group or tag').fill(groupName.toUpperCase());
    await groups.getByRole('button', { name: 'Create' }).click();
    await expect(groups.getByText(`A group or tag named "${groupName.toUpperCase()}" already exists in this workspace`)).toBeVisible();
    await groups.getByRole('button', { name: 'Close' }).first().click();
    await expect(groups).toBeHidden();

    // Two phones into the group from the bulk bar.
    await page.getByRole('checkbox', { name: 'Select Hub Pixel A' }).click();
    await page.getByRole('checkbox', { name: 'Select Hub Pixel B' }).click();
    await page.getByRole('button', { name: 'Groups', exact: true }).click();
    await page.getByRole('menuitem', { name: groupName }).first().click();
    await expectToast(page, 'Group Updated', `2 phones added to ${groupName}.`);

    // The list filtered by the group, kept in the address.
    await choose(page, 'Filter by group', `${groupName} (2)`);
    await expect(page.getByRole('article', { name: 'Other Pixel C' })).toHaveCount(0);
    await expect(page.getByRole('article', { name: 'Hub Pixel A' })).toBeVisible();
    await expect(page.getByRole('article', { name: 'Hub Pixel B' })).toBeVisible();
    expect(page.url()).toContain('groupId=');
    await page.reload();
    await expect(page.getByRole('article', { name: 'Hub Pixel A' })).toBeVisible();
    await expect(page.getByRole('article', { name: 'Other Pixel C' })).toHaveCount(0);

    // The group's phones to a VA at once.
    await page.getByRole('button', { name: 'Manage groups' }).click();
    await choose(groups, `Assign the phones of ${groupName} to`, 'Gus Grouped');
    await groups.getByRole('button', { name: 'Assign', exact: true }).click();
    await expectToast(page, 'VA Assigned', `2 phones of ${groupName} now assigned to Gus Grouped.`);
    const devices = (await (await page.request.get('/api/devices')).json()) as { id: string; assignedToId: string | null }[];
    expect(Object.fromEntries(devices.map((row) => [row.id, row.assignedToId]))).toEqual({ [ids[0]!]: va.id, [ids[1]!]: va.id, [ids[2]!]: null });
    await context.close();
  });
}
