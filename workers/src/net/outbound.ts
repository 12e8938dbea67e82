/**
 * Requests the product makes on someone's behalf (alert webhooks, media fetched from a post's URL) go only to the
 * public internet. Otherwise anyone who may save a URL could point one at 127.0.0.1, a private address, the cloud
 * metadata endpoint or `redis:6379`, fire it, and read the answer or the connection error: a port scanner into the
 * deployment's network.
 *
 * The rule: a URL's host is resolved once; every address it resolves to must be public (not loopback, private,
 * link-local, CGNAT, multicast, reserved or a metadata address, in IPv4 or IPv6, IPv4-mapped and NAT64 forms
 * included); the request then connects to the address that was checked (the socket's `lookup` answers it), so a
 * name that resolves differently a second time (DNS rebinding) cannot reach anything else. Redirects are never
 * followed. A farm whose receivers live on its own LAN turns the rule off with `ALERTS_ALLOW_PRIVATE=1`.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

/** Ranges no request on someone's behalf may reach (IANA special-purpose registries, RFC 6890 and successors). */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata endpoint 169.254.169.254 among them
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast included
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo and ORCHID among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: carries an IPv4 address of any kind
  ['fc00::', 7], // unique local (fd00:ec2::254 is AWS's IPv6 metadata endpoint)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries where it is only a wrapper of one (mapped, compatible, NAT64), else null. */
function embeddedIpv4(address: string): string | null {
  const words = expandIpv6(address);
  if (!words) return null;
  const tail = `${words[6]! >> 8}.${words[6]! & 0xff}.${words[7]! >> 8}.${words[7]! & 0xff}`;
  const zeroUpTo = (n: number) => words.slice(0, n).every((word) => word === 0);
  if (zeroUpTo(5) && words[5] === 0xffff) return tail; // ::ffff:a.b.c.d (mapped)
  if (zeroUpTo(4) && words[4] === 0xffff && words[5] === 0) return tail; // ::ffff:0:a.b.c.d (translated)
  if (zeroUpTo(6)) return tail; // ::a.b.c.d (compatible, deprecated)
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((word) => word === 0)) return tail; // 64:ff9b::/96
  return null;
}

/** An IPv6 address as its eight 16-bit words, or null when it is not one. */
function expandIpv6(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, -dotted[1]!.length)}${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  const words = [...left, ...fill, ...right].map((word) => Number.parseInt(word || '0', 16));
  return words.length === 8 ? words : null;
}

/** Whether a request on someone's behalf may connect to this IP address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !blocked.check(address, 'ipv4');
  const inner = embeddedIpv4(address);
  if (inner !== null) return isPublicAddress(inner);
  return !blocked.check(address.replace(/%.*$/, ''), 'ipv6');
}

export interface OutboundPolicy {
  /** Private and local addresses allowed (`ALERTS_ALLOW_PRIVATE=1`): farms whose receivers live on their own LAN. */
  allowPrivate: boolean;
  /** Resolves a host name to every address it has; DNS unless a test gives another. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

/** What checking a URL found. */
export type UrlCheck =
  | { ok: true; host: string; addresses: { address: string; family: number }[] }
  | { ok: false; reason: 'invalid' | 'unresolved' | 'private'; message: string };

const defaultResolve = (host: string) => dnsLookup(host, { all: true, verbatim: true });

/** The host of a URL as a socket takes it: IPv6 literals without their brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks where a URL leads before anything is sent to it. The WHATWG parser has already turned numeric host forms
 * (`http://2130706433/`, `http://0x7f.1/`, `http://127.1/`) into dotted addresses, so they are caught as such.
 */
export async function checkUrl(raw: string, policy: OutboundPolicy): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid', message: 'Enter a full address starting with https:// or http://.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'invalid', message: 'Enter a full address starting with https:// or http://.' };
  }
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, reason: 'unresolved', message: `The name ${host} does not resolve to any address.` };
  }
  if (!policy.allowPrivate) {
    const inside = addresses.find((entry) => !isPublicAddress(entry.address));
    // The message names only what the person typed: where a name leads inside the farm's network (`http://redis`
    // → 172.18.0.4) is a map of that network, and is never said back.
    if (inside) {
      return {
        ok: false,
        reason: 'private',
        message: `${host} is a private or local address, which is not allowed; only addresses on the public internet are allowed.`,
      };
    }
  }
  return { ok: true, host, addresses };
}

/** Why a request on someone's behalf failed, as a class a person may see (never the raw error, which names hosts and ports inside). */
export type OutboundFailure = 'address_refused' | 'unresolved' | 'refused' | 'timeout' | 'tls' | 'reset' | 'redirect' | 'failed';

export const outboundFailureText: Record<OutboundFailure, string> = {
  address_refused: 'The address is private or local, which is not allowed',
  unresolved: 'The name does not resolve',
  refused: 'The connection was refused',
  timeout: 'No answer in time',
  tls: 'The secure connection failed',
  reset: 'The connection was closed',
  redirect: 'The endpoint answered with a redirect, which is not followed',
  failed: 'The request failed',
};

function classify(error: unknown): OutboundFailure {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ETIMEDOUT' || code === 'ABORT_ERR' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return 'reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unresolved';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('CERT_') ||
    code.includes('SSL') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  ) {
    return 'tls';
  }
  return 'failed';
}

export interface OutboundRequest {
  method: 'POST' | 'GET';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** Largest body read back; the rest is cut and the request fails. Unset: the body is discarded. */
  maxBytes?: number;
}

export type OutboundAnswer =
  | { ok: true; status: number; body: Buffer | null; contentType: string | null }
  | { ok: false; status: number | null; failure: OutboundFailure };

/**
 * Sends one request to a URL under the policy: the host is checked (every address), then the socket connects to
 * the first checked address through `lookup`, so no second resolution happens; TLS still verifies the name. A 3xx
 * is a failure (`redirect`), never followed.
 */
export async function sendOutbound(raw: string, request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundAnswer> {
  const checked = await checkUrl(raw, policy);
  if (!checked.ok)
    return { ok: false, status: null, failure: checked.reason === 'private' ? 'address_refused' : checked.reason === 'unresolved' ? 'unresolved' : 'failed' };
  const url = new URL(raw);
  const pinned = checked.addresses[0]!;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundAnswer>((resolve) => {
    let settled = false;
    const finish = (answer: OutboundAnswer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const req = client.request(
      url,
      {
        method: request.method,
        headers: request.headers,
        agent: false,
        timeout: request.timeoutMs,
        servername: isIP(checked.host) ? undefined : checked.host,
        lookup: (_host, options, callback) => {
          // `all` is asked by happy-eyeballs connects (Node 20's autoSelectFamily); answer the one checked address.
          if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
          else callback(null, pinned.address, pinned.family);
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          finish({ ok: false, status, failure: 'redirect' });
          return;
        }
        if (request.maxBytes === undefined) {
          response.resume();
          response.on('end', () => finish({ ok: true, status, body: null, contentType: response.headers['content-type'] ?? null }));
          response.on('error', (error) => finish({ ok: false, status, failure: classify(error) }));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > (request.maxBytes ?? 0)) {
            req.destroy();
            finish({ ok: false, status, failure: 'failed' });
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => finish({ ok: true, status, body: Buffer.concat(chunks), contentType: response.headers['content-type'] ?? null }));
        response.on('error', (error) => finish({ ok: false, status, failure: classify(error) }));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      finish({ ok: false, status: null, failure: 'timeout' });
    });
    req.on('error', (error) => finish({ ok: false, status: null, failure: classify(error) }));
    req.end(request.body);
  });
}
