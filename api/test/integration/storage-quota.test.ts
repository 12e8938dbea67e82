/**
 * The workspace storage quota: every stored file (uploads, profile pictures, screenshots) counts against it; over it,
 * a 413 with a sentence. Files recorded at once are counted one after the other, so racing uploads cannot both pass.
 */
import { describe, expect, it } from 'vitest';
import { configureAutomation } from '@farm/workers';
import type { Account, StorageUsage } from '@farm/contracts';
import { expectStatus } from '../helpers/assertions.ts';
import { buildAccount, PNG, uploadImage } from '../helpers/factories.ts';
import { appWithTeam } from '../helpers/file-app.ts';

const { operator, va } = await appWithTeam();
const account = await buildAccount(operator, { username: 'quota.daily' });

const usage = async () => {
  const answer = await operator.get<StorageUsage>('/api/storage');
  expectStatus(answer, 200);
  return answer.body;
};
/** Room for exactly `bytes` more from now on. */
const leaveRoom = async (bytes: number) => configureAutomation({ storageQuotaBytes: (await usage()).usedBytes + bytes });
const reserve = async () => (await operator.post<{ url: string }>('/api/objects/upload', {})).body.url;
const put = (url: string) => operator.put(url, PNG, { 'content-type': 'image/png' });
const FULL = /^This workspace's storage is full: .+ of .+ used, and this file needs \d+ bytes more\. Delete files/;

describe('storage usage', () => {
  it('shows operators the bytes stored against the 5 GiB default, and no VA', async () => {
    const before = await usage();
    expect(before.quotaBytes).toBe(5 * 1024 ** 3);
    await uploadImage(operator);
    expect((await usage()).usedBytes).toBe(before.usedBytes + PNG.length);
    expect((await va.get('/api/storage')).status).toBe(403);
  });
});

describe('over the quota', () => {
  it('refuses an upload with a 413 and a sentence, and the same link works once there is room', async () => {
    await leaveRoom(PNG.length);
    await uploadImage(operator);
    const url = await reserve();
    const refused = await put(url);
    expect(refused.status).toBe(413);
    expect((refused.body as { error: string }).error).toMatch(FULL);
    configureAutomation({ storageQuotaBytes: (await usage()).usedBytes + PNG.length });
    expectStatus(await put(url), 200);
  });

  it('lets exactly one of two uploads racing at the edge through', async () => {
    for (let round = 0; round < 4; round += 1) {
      await leaveRoom(PNG.length);
      const [first, second] = await Promise.all([reserve(), reserve()]);
      const statuses = (await Promise.all([put(first!), put(second!)])).map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 413]);
      expect((await usage()).usedBytes).toBe((await usage()).quotaBytes);
    }
  });

  it('routes profile pictures sent as data URLs through the same limits: type, size and quota', async () => {
    const patch = (profilePicture: string) => operator.patch(`/api/accounts/${account.id}`, { profilePicture });
    const svg = await patch(`data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`);
    expect(svg.status).toBe(400);
    expect((svg.body as { details: unknown[] }).details).toContainEqual({
      field: 'profilePicture',
      message: expect.stringContaining('must be an image data URL'),
    });
    const huge = await patch(`data:image/png;base64,${Buffer.alloc(10_485_761, 1).toString('base64')}`);
    expect(huge.status).toBe(413);
    expect((huge.body as { error: string }).error).toBe('Profile picture exceeds maximum allowed size of 10 MB');
    await leaveRoom(PNG.length - 1);
    const full = await patch(`data:image/png;base64,${PNG.toString('base64')}`);
    expect(full.status).toBe(413);
    expect((full.body as { error: string }).error).toMatch(FULL);
    expect((await operator.get<Account>(`/api/accounts/${account.id}`)).body.profilePicture).toBeNull();
    await leaveRoom(PNG.length);
    const stored = await patch(`data:image/png;base64,${PNG.toString('base64')}`);
    expectStatus(stored, 200);
    expect((stored.body as Account).profilePicture).toMatch(/^\/api\/objects\/[0-9a-f-]{36}$/);
    expect((await usage()).usedBytes).toBe((await usage()).quotaBytes);
  });
});
