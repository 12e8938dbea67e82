import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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
    } else if (request.url === '/cdn/pier.png') {
      response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('png-bytes'));
    } else if (request.url === '/cdn/busy.png') {
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

  it('downloads other web addresses as they are, without the credential', async () => {
    const media = new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir });
    const file = await media.fetch(`${origin}/cdn/pier.png`);
    expect(readFileSync(file, 'utf8')).toBe('png-bytes');
    expect(seen.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('says whether a failed download is worth another attempt', async () => {
    const media = new MediaFetcher({ server: origin, credential: { token: 'dev_token' }, dir });
    const gone = await media.fetch('/api/objects/obj-404').catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(MediaError);
    expect(gone).toMatchObject({ retryable: false });
    expect(await media.fetch(`${origin}/cdn/busy.png`).catch((error: unknown) => error)).toMatchObject({ retryable: true });
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
