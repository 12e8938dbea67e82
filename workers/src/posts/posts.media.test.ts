import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@farm/sql/testing';
import type { Db } from '../db.ts';
import { storedFiles } from '../files.ts';
import { configureAutomation, defaultSettings } from '../settings.ts';
import { account, recorder, workspace } from '../../test/farm.ts';
import { processPostsMedia } from './posts.media.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 3)]);
let t: TestDatabase;
let db: Db;
let dataDir: string;
let server: Server;
let origin: string;
const asked: string[] = [];
/** The test server is on 127.0.0.1, as a farm's LAN would be: allowed here, refused in the test of the checks. */
const lan = { allowPrivate: true };

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.database.db;
  dataDir = mkdtempSync(join(tmpdir(), 'farm-post-media-'));
  server = createServer((request, response) => {
    asked.push(request.url ?? '');
    if (request.url === '/pier.png') response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (request.url === '/moved.png') response.writeHead(302, { location: '/pier.png' }).end();
    else if (request.url === '/page.svg') response.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg onload="alert(1)"/>');
    else if (request.url === '/huge.png') {
      // No length announced: only counting while it streams finds it too big.
      response.writeHead(200, { 'content-type': 'image/png' });
      for (let chunk = 0; chunk < 11; chunk += 1) response.write(Buffer.alloc(1024 * 1024, 1));
      response.end();
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterEach(() => configureAutomation(defaultSettings));
afterAll(async () => {
  server.close();
  await t?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function postWith(workspaceId: string, mediaUrls: string[]) {
  const owner = await account(db, workspaceId, null);
  return db
    .insertInto('posts')
    .values({ workspaceId, accountId: owner.id, caption: 'Old post', hashtags: [], mediaUrls, status: 'draft' })
    .returning(['id'])
    .executeTakeFirstOrThrow();
}
const postRow = (id: string) => db.selectFrom('posts').select(['mediaUrls', 'mediaProblem']).where('id', '=', id).executeTakeFirstOrThrow();
const run = (policy = lan) => processPostsMedia(undefined, { ...recorder(db).deps, files: storedFiles(dataDir), policy });

describe('posts.media: outside media taken in once', () => {
  it('fetches outside images into the workspace’s files and rewrites the post; a second run finds nothing to do', async () => {
    const ws = await workspace(db);
    const post = await postWith(ws, [`${origin}/pier.png`]);
    expect(await run()).toMatchObject({ stored: 1, marked: 0 });
    const row = await postRow(post.id);
    expect(row.mediaProblem).toBeNull();
    expect(row.mediaUrls).toEqual([expect.stringMatching(/^\/api\/objects\/[0-9a-f-]{36}$/)]);
    const key = row.mediaUrls[0]!.split('/').pop()!;
    expect(readFileSync(join(dataDir, 'objects', key))).toEqual(PNG);
    expect(await db.selectFrom('storedObjects').select(['workspaceId', 'contentType', 'size']).where('key', '=', key).executeTakeFirst()).toEqual({
      workspaceId: ws,
      contentType: 'image/png',
      size: PNG.length,
    });
    const before = asked.length;
    expect(await run()).toEqual({ stored: 0, marked: 0 });
    expect(asked.length).toBe(before);
  });

  it('marks the post with the reason for a redirect, a wrong type, a file over the upload limit or a missing file, storing nothing', async () => {
    const ws = await workspace(db);
    const cases = {
      moved: await postWith(ws, [`${origin}/pier.png`, `${origin}/moved.png`]),
      svg: await postWith(ws, [`${origin}/page.svg`]),
      huge: await postWith(ws, [`${origin}/huge.png`]),
      gone: await postWith(ws, [`${origin}/nothing.png`]),
    };
    const files = readdirSync(join(dataDir, 'objects')).length;
    expect(await run()).toMatchObject({ stored: 0, marked: 4 });
    expect((await postRow(cases.moved.id)).mediaProblem).toMatch(
      /moved\.png could not be taken in: the server answered with a redirect, which is not followed\. Upload/,
    );
    expect((await postRow(cases.svg.id)).mediaProblem).toMatch(/not a PNG, JPEG, GIF, WebP, AVIF or BMP image \(image\/svg\+xml\)/);
    expect((await postRow(cases.huge.id)).mediaProblem).toMatch(/larger than 10 MB/);
    expect((await postRow(cases.gone.id)).mediaProblem).toMatch(/the server answered 404/);
    // The first file of the redirected post was fetched, then removed with the rest of the post's work.
    expect(readdirSync(join(dataDir, 'objects')).length).toBe(files);
    expect((await postRow(cases.moved.id)).mediaUrls).toEqual([`${origin}/pier.png`, `${origin}/moved.png`]);
  });

  it('applies the webhook address checks: a private or local address is refused without a request', async () => {
    const ws = await workspace(db);
    const post = await postWith(ws, [`${origin}/pier.png`]);
    const before = asked.length;
    expect(await run({ allowPrivate: false })).toMatchObject({ marked: 1 });
    expect((await postRow(post.id)).mediaProblem).toMatch(/the address is private or local, which is not allowed/);
    expect(asked.length).toBe(before);
  });

  it('keeps media already stored in the workspace, and refuses another workspace’s file', async () => {
    const ws = await workspace(db);
    const other = await workspace(db);
    const mine = randomUUID();
    const theirs = randomUUID();
    await db
      .insertInto('storedObjects')
      .values([
        { key: mine, workspaceId: ws, contentType: 'image/png', size: 10, uploadedAt: new Date() },
        { key: theirs, workspaceId: other, contentType: 'image/png', size: 10, uploadedAt: new Date() },
      ])
      .execute();
    const absolute = await postWith(ws, [`https://console.example.com/api/objects/${mine}`]);
    const crossed = await postWith(ws, [`/api/objects/${theirs}`]);
    await run();
    expect(await postRow(absolute.id)).toEqual({ mediaUrls: [`/api/objects/${mine}`], mediaProblem: null });
    expect((await postRow(crossed.id)).mediaProblem).toMatch(/not stored in this workspace/);
  });

  it('counts against the storage quota', async () => {
    const ws = await workspace(db);
    const post = await postWith(ws, [`${origin}/pier.png`]);
    configureAutomation({ storageQuotaBytes: PNG.length - 1 });
    expect(await run()).toMatchObject({ marked: 1 });
    expect((await postRow(post.id)).mediaProblem).toMatch(/storage is full/);
  });

  it('run twice at once, stores each post’s media exactly once and leaves no stray file', async () => {
    const ws = await workspace(db);
    const posts = await Promise.all(Array.from({ length: 4 }, () => postWith(ws, [`${origin}/pier.png`])));
    const filesBefore = readdirSync(join(dataDir, 'objects')).length;
    const [first, second] = await Promise.all([run(), run()]);
    expect(first!.stored + second!.stored).toBe(4);
    const keys = (await Promise.all(posts.map((post) => postRow(post.id)))).map((row) => {
      expect(row.mediaProblem).toBeNull();
      return row.mediaUrls[0]!.split('/').pop()!;
    });
    expect(new Set(keys).size).toBe(4);
    for (const key of keys) expect(existsSync(join(dataDir, 'objects', key))).toBe(true);
    expect(readdirSync(join(dataDir, 'objects')).length).toBe(filesBefore + 4);
    expect(await db.selectFrom('storedObjects').select('key').where('workspaceId', '=', ws).execute()).toHaveLength(4);
  });
});
