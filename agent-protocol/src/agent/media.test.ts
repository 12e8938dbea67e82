import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaError, MediaFetcher } from './media.ts';

const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2048, 7)]);
let server: Server;
let origin: string;
let dir: string;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'farm-media-'));
  server = createServer((request, response) => {
    seen.push(request);
    if (request.url === '/api/agent/media/obj-1' && request.headers.authorization === 'Bearer dev_token') {
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    } else if (
      request.url === '/api/agent/media/obj-2' &&
      request.headers.authorization === 'Bearer host_token' &&
      request.headers['x-phone-serial'] === 'R58N'
    ) {
      response.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.from('mp4-bytes'));
    } else if (request.url === '/api/agent/media/moved') {
      response.writeHead(302, { location: '/cdn/pier.png' }).end();
    } else if (request.url === '/api/agent/media/chunked') {
      // No length announced, more bytes than the cap: only counting as it streams catches it.
      response.writeHead(200, { 'content-type': 'image/png' });
      for (let index = 0; index < 10; index++) response.write(Buffer.alloc(500, 1));
      response.end();
    } else if (request.url === '/cdn/pier.png') {
      response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('png-bytes'));
    } else if (request.url === '/api/agent/media/busy') {
      response.writeHead(503).end();
    } else if (request.url?.startsWith('/api/agent/media/')) {
      response.writeHead(request.headers.authorization ? 404 : 401).end();
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a post’s media brought to the farm host', () => {
  it('fetches a stored file through the agent route with the phone’s credential, once', async () => {
    const media = new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir });
    const file = await media.fetch('/api/objects/obj-1');
    expect(file.endsWith('.jpg')).toBe(true);
    expect(readFileSync(file)).toEqual(jpeg);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = seen.length;
    expect(await media.fetch('/api/objects/obj-1')).toBe(file);
    expect(seen.length).toBe(before);
    // The full address of the same server is the same stored file.
    expect(
      readFileSync(
        await new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir: join(dir, 'other') }).fetch(`${origin}/api/objects/obj-1`),
      ),
    ).toEqual(jpeg);
  });

  it('speaks for a host’s phone with the host credential and the phone’s serial', async () => {
    const media = new MediaFetcher({ server: origin, credential: { hostToken: 'host_token', serial: 'R58N' }, dir });
    const file = await media.fetch('/api/objects/obj-2');
    expect(file.endsWith('.mp4')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('mp4-bytes');
  });

  it('refuses any address that is not a file stored on the connected server, and asks nothing of it', async () => {
    const media = new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir });
    const before = seen.length;
    for (const address of [
      `${origin}/cdn/pier.png`,
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost:6379/api/objects/obj-1',
      `${origin}/api/objects/obj-1/../../cdn/pier.png?x=1`,
      `${origin}/api/agent/media/obj-1`,
    ]) {
      expect(await media.fetch(address).catch((error: unknown) => error)).toMatchObject({
        retryable: false,
        message: expect.stringContaining('not a file stored'),
      });
    }
    expect(seen.length).toBe(before);
  });

  it('follows no redirect and cuts off a body over the cap, leaving no file behind', async () => {
    const moved = await new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir })
      .fetch('/api/objects/moved')
      .catch((error: unknown) => error);
    expect(moved).toMatchObject({ retryable: false, message: expect.stringContaining('redirect') });
    expect(seen.some((request) => request.url === '/cdn/pier.png')).toBe(false);
    const capped = new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir, maxBytes: 1000 });
    expect(await capped.fetch('/api/objects/chunked').catch((error: unknown) => error)).toMatchObject({
      retryable: false,
      message: expect.stringContaining('larger than'),
    });
    expect(readdirSync(dir).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('says whether a failed download is worth another attempt', async () => {
    const media = new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir });
    const gone = await media.fetch('/api/objects/obj-404').catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(MediaError);
    expect(gone).toMatchObject({ retryable: false });
    expect(await media.fetch('/api/objects/busy').catch((error: unknown) => error)).toMatchObject({ retryable: true });
    expect(await media.fetch('ftp://example.com/a.jpg').catch((error: unknown) => error)).toMatchObject({
      retryable: false,
      message: 'The media address "ftp://example.com/a.jpg" is not a web address',
    });
    const refused = await new MediaFetcher({ server: origin, credential: { token: 'wrong' }, dir })
      .fetch('/api/objects/obj-9')
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ retryable: false });
  });
});
