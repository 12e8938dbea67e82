/**
 * Social accounts: the per-phone limit, tinder profiles and their images, what a VA may change,
 * and the profile picture sent as a data URL.
 */
import { describe, expect, it } from 'vitest';
import { messages, type Account } from '@farm/contracts';
import { signUp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildAccount, buildDevice, PNG, uploadImage } from '../helpers/factories.ts';
import { appWithTeam } from '../helpers/file-app.ts';

const { t, operator, va } = await appWithTeam();

const create = (body: Record<string, unknown>) => operator.post<Account>('/api/accounts', body);
const pngDataUrl = `data:image/png;base64,${PNG.toString('base64')}`;

describe('POST /api/accounts', () => {
  it('creates an account with the spec defaults and records the activity', async () => {
    const device = await buildDevice(operator);
    const answer = await create({ username: ' glow.daily ', platform: 'instagram', deviceId: device.id, bio: 'Skincare tips' });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      username: 'glow.daily',
      platform: 'instagram',
      status: 'creation_pending',
      deviceId: device.id,
      bio: 'Skincare tips',
      followers: 0,
      following: 0,
      profilePicture: null,
      profileImages: [],
      interests: [],
      warmupStartDate: null,
    });
    const activities = await operator.get(`/api/activities?deviceId=${device.id}`);
    expect(activities.body[0]).toMatchObject({ action: 'Account @glow.daily (instagram) added', type: 'success' });
  });

  it.each([
    ['username', { username: '' }, messages.usernameRequired],
    ['username', { username: '   ' }, messages.usernameRequired],
    ['username', { username: undefined }, messages.usernameRequired],
    ['platform', { platform: 'myspace' }, 'Platform must be one of tiktok, instagram, facebook, twitter, youtube or tinder'],
    ['status', { status: 'warming' }, 'Status must be one of creation_pending, warmup, active, paused or suspended'],
    ['followers', { followers: -1 }, 'Followers must be at least 0'],
    ['deviceId', { deviceId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }, "Device must be one of this workspace's devices"],
  ])('refuses a bad %s (%j)', async (field, overrides, message) => {
    expectFieldError(await create({ username: 'someone', platform: 'instagram', ...overrides }), field, message);
  });
});

describe('three Instagram and three TikTok accounts per phone', () => {
  it('refuses the 4th Instagram account of one phone with 409', async () => {
    const device = await buildDevice(operator);
    for (let n = 1; n <= 3; n += 1) await buildAccount(operator, { platform: 'instagram', deviceId: device.id });
    expectError(await create({ username: 'fourth', platform: 'instagram', deviceId: device.id }), 409, messages.accountLimit);
    expect((await operator.get(`/api/accounts?deviceId=${device.id}`)).body).toHaveLength(3);
  });

  it('counts each platform on its own and leaves other platforms unlimited', async () => {
    const device = await buildDevice(operator);
    for (let n = 1; n <= 3; n += 1) await buildAccount(operator, { platform: 'instagram', deviceId: device.id });
    for (let n = 1; n <= 3; n += 1) await buildAccount(operator, { platform: 'tiktok', deviceId: device.id });
    expectError(await create({ username: 'tok4', platform: 'tiktok', deviceId: device.id }), 409, messages.accountLimit);
    for (let n = 1; n <= 4; n += 1) await buildAccount(operator, { platform: 'facebook', deviceId: device.id });
    expectStatus(await create({ username: 'ig_elsewhere', platform: 'instagram', deviceId: (await buildDevice(operator)).id }), 201);
    expectStatus(await create({ username: 'ig_nowhere', platform: 'instagram' }), 201);
  });

  it('applies the limit when an account moves to another phone', async () => {
    const full = await buildDevice(operator);
    for (let n = 1; n <= 3; n += 1) await buildAccount(operator, { platform: 'tiktok', deviceId: full.id });
    const mover = await buildAccount(operator, { platform: 'tiktok', deviceId: (await buildDevice(operator)).id });
    expectError(await operator.patch(`/api/accounts/${mover.id}`, { deviceId: full.id }), 409, messages.accountLimit);
    const spare = await buildDevice(operator);
    expect((await operator.patch<Account>(`/api/accounts/${mover.id}`, { deviceId: spare.id })).body.deviceId).toBe(spare.id);
    // Staying on its own full phone is no move.
    const resident = (await operator.get<Account[]>(`/api/accounts?deviceId=${full.id}`)).body[0]!;
    expectStatus(await operator.patch(`/api/accounts/${resident.id}`, { deviceId: full.id, bio: 'still here' }), 200);
  });
});

describe('tinder profiles', () => {
  it('needs 2 to 6 uploaded profile images', async () => {
    const images = await Promise.all(Array.from({ length: 7 }, () => uploadImage(operator)));
    const tinder = { username: 'swiper', platform: 'tinder' };
    expectFieldError(await create(tinder), 'profileImages', messages.tinderImages);
    expectFieldError(await create({ ...tinder, profileImages: images.slice(0, 1) }), 'profileImages', messages.tinderImages);
    expectFieldError(await create({ ...tinder, profileImages: images.slice(0, 7) }), 'profileImages', messages.tinderImages);
    expectStatus(await create({ ...tinder, profileImages: images.slice(0, 6) }), 201);

    const answer = await create({
      ...tinder,
      profileImages: images.slice(0, 2),
      gender: 'woman',
      age: 27,
      birthday: '1998-04-12',
      sexualOrientation: 'bisexual',
      relationshipGoal: 'long-term',
      interests: ['hiking', ' ', 'coffee '],
    });
    expectStatus(answer, 201);
    expect(answer.body).toMatchObject({
      profileImages: images.slice(0, 2),
      gender: 'woman',
      age: 27,
      birthday: '1998-04-12',
      sexualOrientation: 'bisexual',
      relationshipGoal: 'long-term',
      interests: ['hiking', 'coffee'],
    });
  });

  it('accepts only images uploaded to this workspace', async () => {
    const image = await uploadImage(operator);
    const answer = await create({ username: 'swiper', platform: 'tinder', profileImages: [image, '/api/objects/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'] });
    expectFieldError(answer, 'profileImages.1', 'Profile images (item 2) must be an image uploaded to this workspace');
    const reserved = await operator.post<{ url: string }>('/api/objects/upload');
    const notYetUploaded = reserved.body.url.split('?')[0]!;
    expectFieldError(
      await create({ username: 'swiper', platform: 'tinder', profileImages: [notYetUploaded, image] }),
      'profileImages.0',
      'Profile images (item 1) must be an image uploaded to this workspace',
    );
    expectFieldError(
      await create({ username: 'swiper', platform: 'tinder', profileImages: ['https://evil.example/a.png', image] }),
      'profileImages.0',
      'Profile images (item 1) must be an image uploaded to this workspace',
    );
  });

  it.each([
    ['age', { age: 17 }, 'Age must be between 18 and 100'],
    ['age', { age: 101 }, 'Age must be between 18 and 100'],
    ['birthday', { birthday: '12/04/1998' }, 'Birthday must be a date (YYYY-MM-DD)'],
    ['gender', { gender: 'robot' }, 'Gender must be one of man, woman, non-binary or other'],
    ['relationshipGoal', { relationshipGoal: 'forever' }, 'Relationship goal must be one of long-term, short-term, new-friends or still-figuring'],
  ])('refuses a bad %s (%j)', async (field, overrides, message) => {
    expectFieldError(
      await create({ username: 'swiper', platform: 'tinder', profileImages: ['/api/objects/x', '/api/objects/y'], ...overrides }),
      field,
      message,
    );
  });

  it('keeps 2 to 6 images on update', async () => {
    const images = await Promise.all(Array.from({ length: 3 }, () => uploadImage(operator)));
    const account = (await create({ username: 'swiper', platform: 'tinder', profileImages: images.slice(0, 2) })).body;
    expectFieldError(await operator.patch(`/api/accounts/${account.id}`, { profileImages: images.slice(0, 1) }), 'profileImages', messages.tinderImages);
    expect((await operator.patch<Account>(`/api/accounts/${account.id}`, { profileImages: images })).body.profileImages).toEqual(images);
  });
});

describe('PATCH /api/accounts/:id', () => {
  it('lets the operator change any field but the platform', async () => {
    const account = await buildAccount(operator, { platform: 'tiktok' });
    const answer = await operator.patch<Account>(`/api/accounts/${account.id}`, {
      username: 'renamed',
      status: 'active',
      followers: 10,
      following: 20,
      bio: 'New bio',
      platform: 'instagram',
    });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ username: 'renamed', status: 'active', followers: 10, following: 20, bio: 'New bio', platform: 'tiktok' });
    expect(Date.parse(answer.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(account.updatedAt));
  });

  it('starts the warm-up clock when the status becomes warmup', async () => {
    const account = await buildAccount(operator);
    const answer = await operator.patch<Account>(`/api/accounts/${account.id}`, { status: 'warmup' });
    expect(Date.parse(answer.body.warmupStartDate!)).toBeGreaterThan(Date.now() - 60_000);
    const given = await operator.patch<Account>(`/api/accounts/${(await buildAccount(operator)).id}`, {
      status: 'warmup',
      warmupStartDate: '2030-01-01T00:00:00Z',
      warmupEndDate: '2030-01-15T00:00:00Z',
    });
    expect(given.body).toMatchObject({ warmupStartDate: '2030-01-01T00:00:00.000Z', warmupEndDate: '2030-01-15T00:00:00.000Z' });
  });

  it('lets a VA update followers and following only, of accounts on their own phone', async () => {
    const phone = await buildDevice(operator, { assignedToId: va.user!.id });
    const account = await buildAccount(operator, { deviceId: phone.id });
    const elsewhere = await buildAccount(operator);
    expectError(await va.patch(`/api/accounts/${elsewhere.id}`, { followers: 5 }), 403, 'You can only update accounts on the device assigned to you');
    const answer = await va.patch<Account>(`/api/accounts/${account.id}`, { followers: 1500, following: 321 });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ followers: 1500, following: 321 });
    expectError(
      await va.patch(`/api/accounts/${account.id}`, { bio: 'hijacked' }),
      403,
      'A virtual assistant may update only followers and following, not bio',
    );
    expectError(
      await va.patch(`/api/accounts/${account.id}`, { followers: 1, status: 'paused' }),
      403,
      'A virtual assistant may update only followers and following, not status',
    );
    expectError(await va.post('/api/accounts', { username: 'va_made', platform: 'instagram' }), 403, messages.forbidden);
    expectError(await va.delete(`/api/accounts/${account.id}`), 403, messages.forbidden);
    expect((await operator.get(`/api/accounts/${account.id}`)).body).toMatchObject({ bio: null, status: 'creation_pending', followers: 1500 });
  });

  it('stores a profile picture sent as a data URL and answers its /api/objects path', async () => {
    const account = await buildAccount(operator);
    const answer = await operator.patch<Account>(`/api/accounts/${account.id}`, { profilePicture: pngDataUrl });
    expectStatus(answer, 200);
    expect(answer.body.profilePicture).toMatch(/^\/api\/objects\/[0-9a-f-]{36}$/);
    const image = await t.app.inject({ method: 'GET', url: answer.body.profilePicture!, headers: { cookie: `sid=${va.cookie}` } });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.equals(PNG)).toBe(true);
    expect((await operator.get<Account>(`/api/accounts/${account.id}`)).body.profilePicture).toBe(answer.body.profilePicture);
    // The stored path is accepted back as it is, and null removes the picture.
    expect((await operator.patch<Account>(`/api/accounts/${account.id}`, { profilePicture: answer.body.profilePicture })).body.profilePicture).toBe(
      answer.body.profilePicture,
    );
    expect((await operator.patch<Account>(`/api/accounts/${account.id}`, { profilePicture: null })).body.profilePicture).toBeNull();
  });

  it('refuses a profile picture that is not an image of this workspace', async () => {
    const account = await buildAccount(operator);
    const text = `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`;
    expectFieldError(await operator.patch(`/api/accounts/${account.id}`, { profilePicture: text }), 'profilePicture', 'Profile picture must be an image');
    expectFieldError(
      await operator.patch(`/api/accounts/${account.id}`, { profilePicture: 'https://evil.example/x.png' }),
      'profilePicture',
      'Profile picture must be an image',
    );
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`;
    expectFieldError(
      await operator.patch(`/api/accounts/${account.id}`, { profilePicture: svg }),
      'profilePicture',
      'Profile picture must be an image data URL',
    );
    expectFieldError(
      await operator.patch(`/api/accounts/${account.id}`, { profilePicture: '/api/objects/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' }),
      'profilePicture',
      'Profile picture must be an image uploaded to this workspace',
    );
    expect((await operator.get(`/api/accounts/${account.id}`)).body.profilePicture).toBeNull();
  });

  it('answers the account unchanged for an empty body, and 404 for an unknown one', async () => {
    const account = await buildAccount(operator);
    const answer = await operator.patch(`/api/accounts/${account.id}`, {});
    expectStatus(answer, 200);
    expect(answer.body).toEqual(account);
    expectError(await operator.patch('/api/accounts/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b', { followers: 1 }), 404, messages.notFound);
    expectError(await operator.get('/api/accounts/6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'), 404, messages.notFound);
  });
});

describe('lists and delete', () => {
  it('lists newest first and filters by platform, status, phone and username', async () => {
    const owner = await signUp(t.app);
    const device = await buildDevice(owner);
    const a = await buildAccount(owner, { username: 'Glow_Daily', platform: 'instagram', deviceId: device.id });
    const b = await buildAccount(owner, { username: 'tok_star', platform: 'tiktok', status: 'active' });
    const c = await buildAccount(owner, { username: 'glowXdaily', platform: 'tiktok' });
    const ids = async (url: string) => (await owner.get<Account[]>(url)).body.map((row) => row.id);
    expect(await ids('/api/accounts')).toEqual([c.id, b.id, a.id]);
    expect(await ids('/api/accounts?platform=tiktok')).toEqual([c.id, b.id]);
    expect(await ids('/api/accounts?status=active')).toEqual([b.id]);
    expect(await ids(`/api/accounts?deviceId=${device.id}`)).toEqual([a.id]);
    expect(await ids('/api/accounts?search=GLOW')).toEqual([c.id, a.id]);
    expect(await ids('/api/accounts?search=_')).toEqual([b.id, a.id]);
    expect(await ids('/api/accounts?search=w_d')).toEqual([a.id]);
  });

  it('deletes an account with its posts', async () => {
    const account = await buildAccount(operator, { username: 'goner' });
    const post = await operator.post('/api/posts', { accountId: account.id, caption: 'bye' });
    expectStatus(await operator.delete(`/api/accounts/${account.id}`), 204);
    expectError(await operator.get(`/api/accounts/${account.id}`), 404, messages.notFound);
    expectError(await operator.get(`/api/posts/${post.body.id}`), 404, messages.notFound);
    expectError(await operator.delete(`/api/accounts/${account.id}`), 404, messages.notFound);
  });
});
