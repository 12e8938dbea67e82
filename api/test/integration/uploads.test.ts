/** Uploads: a signed PUT URL per object, images only, read back by members of the owning workspace. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { buildTestApp, inviteVa, signUp, Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { PNG, uploadImage } from '../helpers/factories.ts';

const BAD_LINK = 'This upload link is invalid or has expired';

let t: TestApp;
let operator: Client;
let va: Client;
let stranger: Client;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await signUp(t.app);
  va = await inviteVa(t.app, operator);
  stranger = await signUp(t.app);
});
afterAll(async () => {
  await t?.close();
});

async function reserve(client: Client = operator): Promise<{ url: string; path: string; id: string }> {
  const answer = await client.post<{ url: string }>('/api/objects/upload');
  expectStatus(answer, 200);
  const path = answer.body.url.split('?')[0]!;
  return { url: answer.body.url, path, id: path.split('/').pop()! };
}

/** GET of raw bytes: the Client would try to parse them. */
function download(client: Client, path: string) {
  return t.app.inject({ method: 'GET', url: path, headers: client.cookie ? { cookie: `sid=${client.cookie}` } : {} });
}

describe('the signed PUT flow', () => {
  it('answers a signed URL, takes the image bytes, and gives the same bytes back', async () => {
    const { url, path } = await reserve();
    expect(url).toMatch(/^\/api\/objects\/[0-9a-f-]{36}\?expires=\d+&signature=[A-Za-z0-9_-]+$/);
    expectError(await operator.get(path), 404, messages.notFound);

    // The signature is the authority: the PUT carries no cookie.
    const put = await new Client(t.app).put(url, PNG, { 'content-type': 'image/png' });
    expectStatus(put, 200);
    expect(put.body).toEqual({ objectPath: path });

    for (const reader of [operator, va]) {
      const image = await download(reader, path);
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(image.headers['x-content-type-options']).toBe('nosniff');
      expect(image.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(image.rawPayload.equals(PNG)).toBe(true);
    }
  });

  it('works for a VA', async () => {
    const { url, path } = await reserve(va);
    expectStatus(await va.put(url, PNG, { 'content-type': 'image/webp' }), 200);
    expect((await download(operator, path)).headers['content-type']).toBe('image/webp');
  });

  it('refuses a bad or expired signature with 403', async () => {
    const { url, path, id } = await reserve();
    const tampered = url.replace(/signature=[^&]+/, 'signature=AAAA');
    expectError(await operator.put(tampered, PNG, { 'content-type': 'image/png' }), 403, BAD_LINK);
    const otherId = url.replace(id, '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b');
    expectError(await operator.put(otherId, PNG, { 'content-type': 'image/png' }), 403, BAD_LINK);
    const expired = t.app.ctx.storage.signUpload(id, Date.now() - 16 * 60_000);
    expectError(await operator.put(expired, PNG, { 'content-type': 'image/png' }), 403, BAD_LINK);
    expectError(await operator.put(`${path}?expires=abc&signature=x`, PNG, { 'content-type': 'image/png' }), 403, BAD_LINK);
    expectFieldError(await operator.put(path, PNG, { 'content-type': 'image/png' }), 'expires', 'Expiry is required');
    expectError(await operator.get(path), 404, messages.notFound);
  });

  it('takes images only: 415 for anything else', async () => {
    const { url, path } = await reserve();
    expectError(await operator.put(url, 'plain text', { 'content-type': 'text/plain' }), 415, 'You can only upload: image/*');
    expectError(await operator.put(url, '<svg onload="alert(1)"/>', { 'content-type': 'image/svg+xml' }), 415, 'You can only upload: image/*');
    expectError(await operator.put(url, PNG, { 'content-type': 'application/octet-stream' }), 415, 'You can only upload: image/*');
    expectError(await operator.put(url, { some: 'json' }), 415, 'You can only upload: image/*');
    expectError(await operator.put(url, Buffer.from('%PDF-1.4'), { 'content-type': 'application/pdf' }), 415, 'You can only upload: image/*');
    expectError(await operator.get(path), 404, messages.notFound);
    // The link is still good for an image.
    expectStatus(await operator.put(url, PNG, { 'content-type': 'image/png' }), 200);
  });

  it('refuses an empty file and a file over 10 MB', async () => {
    const { url } = await reserve();
    expectFieldError(await operator.put(url, Buffer.alloc(0), { 'content-type': 'image/png' }), 'body', 'The file is empty');
    expectError(await operator.put(url, Buffer.alloc(10_485_761, 1), { 'content-type': 'image/png' }), 413, 'Request body is too large: the limit is 10 MB');
    expectStatus(await operator.put(url, Buffer.alloc(10_485_760, 1), { 'content-type': 'image/png' }), 200);
  });

  it('uses a link once', async () => {
    const { url, path } = await reserve();
    expectStatus(await operator.put(url, PNG, { 'content-type': 'image/png' }), 200);
    expectError(await operator.put(url, Buffer.from('other bytes'), { 'content-type': 'image/png' }), 409, 'This upload link was already used');
    expect((await download(operator, path)).rawPayload.equals(PNG)).toBe(true);
  });
});

describe('reading back', () => {
  it('answers 404 to another workspace and 401 to a stranger without a session', async () => {
    const path = await uploadImage(operator);
    expectError(await stranger.get(path), 404, messages.notFound);
    expectError(await new Client(t.app).get(path), 401, messages.notSignedIn);
    expectError(await operator.get('/api/objects/not-a-uuid'), 404, messages.notFound);
  });
});

describe('the presigned-url flow (profile images)', () => {
  it('answers a presigned URL and the object path it fills', async () => {
    const answer = await operator.post<{ presignedUrl: string; objectPath: string }>('/api/object-storage/presigned-url', {
      directory: '.private',
      filename: 'face.png',
    });
    expectStatus(answer, 200);
    expect(answer.body.presignedUrl.split('?')[0]).toBe(answer.body.objectPath);
    expectStatus(await new Client(t.app).put(answer.body.presignedUrl, PNG, { 'content-type': 'image/jpeg' }), 200);
    expect((await download(operator, answer.body.objectPath)).rawPayload.equals(PNG)).toBe(true);
  });

  it('needs a filename', async () => {
    expectFieldError(await operator.post('/api/object-storage/presigned-url', { directory: '.private', filename: '' }), 'filename', 'File name is required');
  });
});

describe('PUT /api/campaign-images', () => {
  it('confirms an uploaded image of the workspace by its URL or path', async () => {
    const path = await uploadImage(operator);
    const answer = await operator.put('/api/campaign-images', { imageURL: `http://localhost${path}` });
    expectStatus(answer, 200);
    expect(answer.body).toEqual({ objectPath: path });
    expect((await va.put('/api/campaign-images', { imageURL: path })).body).toEqual({ objectPath: path });
  });

  it('refuses an image that is not uploaded, or not of this workspace', async () => {
    const reserved = await reserve();
    expectFieldError(
      await operator.put('/api/campaign-images', { imageURL: reserved.path }),
      'imageURL',
      'Image URL must be an image uploaded to this workspace',
    );
    const theirs = await uploadImage(stranger);
    expectFieldError(await operator.put('/api/campaign-images', { imageURL: theirs }), 'imageURL', 'Image URL must be an image uploaded to this workspace');
    expectFieldError(await operator.put('/api/campaign-images', { imageURL: '' }), 'imageURL', 'Image URL is required');
  });
});
