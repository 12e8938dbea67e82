import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUrl, isPublicAddress, sendOutbound } from './outbound.ts';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.10',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '224.0.0.251',
    '239.255.255.250',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:0:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '2001:db8::1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '1.1.1.1', '8.8.8.8', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('refuses what is not an address', () => {
    expect(isPublicAddress('localhost')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
  });
});

describe('checkUrl', () => {
  const publicDns = async () => [{ address: '93.184.215.14', family: 4 }];

  it.each([
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://0177.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::1]:6379/',
    'http://169.254.169.254/latest/meta-data/',
  ])('refuses the numeric and literal forms of a local address: %s', async (url) => {
    const check = await checkUrl(url, { allowPrivate: false, resolve: publicDns });
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.reason).toBe('private');
      expect(check.message).toMatch(/private or local address, which is not allowed; only addresses on the public internet are allowed\.$/);
    }
  });

  it('refuses a name when any of its addresses is private', async () => {
    const check = await checkUrl('https://hooks.example.com/x', {
      allowPrivate: false,
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.3.4', family: 4 },
      ],
    });
    expect(check).toEqual({
      ok: false,
      reason: 'private',
      message: 'hooks.example.com is a private or local address, which is not allowed; only addresses on the public internet are allowed.',
    });
    expect(await checkUrl('http://169.254.169.254/', { allowPrivate: false })).toMatchObject({
      message: '169.254.169.254 is a private or local address, which is not allowed; only addresses on the public internet are allowed.',
    });
  });

  it('says when a name does not resolve', async () => {
    const check = await checkUrl('https://nowhere.invalid/x', {
      allowPrivate: false,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
      },
    });
    expect(check).toEqual({ ok: false, reason: 'unresolved', message: 'The name nowhere.invalid does not resolve to any address.' });
  });

  it('refuses other schemes', async () => {
    expect(await checkUrl('ftp://example.com/', { allowPrivate: false, resolve: publicDns })).toMatchObject({ ok: false, reason: 'invalid' });
    expect(await checkUrl('redis:6379', { allowPrivate: false, resolve: publicDns })).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('allows private addresses when the farm says so', async () => {
    expect(await checkUrl('http://10.0.0.5:8080/hook', { allowPrivate: true })).toMatchObject({ ok: true, host: '10.0.0.5' });
  });
});

describe('sendOutbound', () => {
  let server: Server;
  let port = 0;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(`${request.method} ${request.url} ${request.headers.host}`);
      if (request.url === '/redirect') {
        response.writeHead(302, { location: 'http://127.0.0.1:6379/' }).end();
        return;
      }
      if (request.url === '/big') {
        response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(4096, 1));
        return;
      }
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.close();
  });

  it('never connects to a local address unless allowed', async () => {
    const before = seen.length;
    const answer = await sendOutbound(`http://127.0.0.1:${port}/hook`, { method: 'POST', body: '{}', timeoutMs: 2000 }, { allowPrivate: false });
    expect(answer).toEqual({ ok: false, status: null, failure: 'address_refused' });
    expect(seen.length).toBe(before);
  });

  it('connects to the address it checked, once, whatever the name resolves to later', async () => {
    let lookups = 0;
    const answer = await sendOutbound(
      `http://receiver.example:${port}/hook`,
      { method: 'POST', body: '{}', timeoutMs: 2000 },
      {
        allowPrivate: true,
        resolve: async () => {
          lookups += 1;
          return [{ address: lookups === 1 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
        },
      },
    );
    expect(answer).toMatchObject({ ok: true, status: 204 });
    expect(lookups).toBe(1);
    expect(seen.at(-1)).toBe(`POST /hook receiver.example:${port}`);
  });

  it('does not follow a redirect', async () => {
    const answer = await sendOutbound(`http://127.0.0.1:${port}/redirect`, { method: 'POST', timeoutMs: 2000 }, { allowPrivate: true });
    expect(answer).toEqual({ ok: false, status: 302, failure: 'redirect' });
  });

  it('cuts a body over the cap', async () => {
    const small = await sendOutbound(`http://127.0.0.1:${port}/big`, { method: 'GET', timeoutMs: 2000, maxBytes: 1024 }, { allowPrivate: true });
    expect(small).toEqual({ ok: false, status: 200, failure: 'failed' });
    const whole = await sendOutbound(`http://127.0.0.1:${port}/big`, { method: 'GET', timeoutMs: 2000, maxBytes: 8192 }, { allowPrivate: true });
    expect(whole).toMatchObject({ ok: true, status: 200, contentType: 'image/jpeg' });
    if (whole.ok) expect(whole.body?.length).toBe(4096);
  });

  it('names a refused connection by its class, not by its address', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const freePort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const answer = await sendOutbound(`http://127.0.0.1:${freePort}/`, { method: 'POST', timeoutMs: 2000 }, { allowPrivate: true });
    expect(answer).toEqual({ ok: false, status: null, failure: 'refused' });
  });
});
