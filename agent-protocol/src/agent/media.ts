/**
 * A post's media, brought to the farm host before the phone publishes it. Only files the console stores
 * (`/api/objects/<id>` on the very server the agent is connected to) are fetched, through the agent's own route with
 * the phone's credential: any other address is refused, so nothing a person types into a post makes the farm PC
 * reach into its own network. No redirect is followed; the body is streamed to disk under a byte cap. Files are kept
 * under the agent's state folder by a hash of their address, so a retry does not download again, and written whole
 * (temporary file, then rename) with owner-only permissions.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The largest media file a post may bring (a phone's video). */
export const MAX_MEDIA_BYTES = 200 * 1024 * 1024;

export interface MediaFetcherOptions {
  /** The console's address (the one the agent connects to). */
  server: string;
  /** How the phone proves who it is: its own token, or its host's token and its serial. */
  credential: { token: string } | { hostToken: string; serial: string };
  /** Where downloaded files are kept. */
  dir: string;
  timeoutMs?: number;
  /** The byte cap of one file (default MAX_MEDIA_BYTES). */
  maxBytes?: number;
  fetch?: typeof fetch;
}

/** A download that failed; `retryable` says whether trying again later may help (a missing file will not). */
export class MediaError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'image/heic': '.heic',
  'video/mp4': '.mp4',
  'video/quicktime': '.mov',
};

export class MediaFetcher {
  constructor(private readonly options: MediaFetcherOptions) {}

  /** The folder the fetched files are kept in: a run copies to its phone nothing from outside it. */
  get dir(): string {
    return this.options.dir;
  }

  /** Downloads the file (or finds it already here) and answers its path on the host. */
  async fetch(address: string): Promise<string> {
    const target = agentRoute(address, new URL(this.options.server));
    const hash = createHash('sha256').update(address).digest('hex').slice(0, 32);
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const known = await this.known(hash);
    if (known) return known;
    const response = await this.request(target);
    await refuseAnswer(response, target);
    const cap = this.options.maxBytes ?? MAX_MEDIA_BYTES;
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > cap) throw tooLarge(cap);
    if (!response.body) throw new MediaError('The media file is empty', false);
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const file = join(this.options.dir, `${hash}${EXTENSIONS[type] ?? ''}`);
    await save(response.body as unknown as AsyncIterable<Uint8Array>, file, cap);
    return file;
  }

  /** The file fetched before for this address, under any of the extensions a type gives. */
  private async known(hash: string): Promise<string | undefined> {
    for (const extension of new Set(Object.values(EXTENSIONS).concat(''))) {
      const known = join(this.options.dir, `${hash}${extension}`);
      if (
        await stat(known)
          .then((s) => s.isFile() && s.size > 0)
          .catch(() => false)
      )
        return known;
    }
    return undefined;
  }

  /** Asks the agent's route with the phone's credential; a redirect is answered, never followed. */
  private async request(target: URL): Promise<Response> {
    const credential = this.options.credential;
    const headers: Record<string, string> = { authorization: `Bearer ${'token' in credential ? credential.token : credential.hostToken}` };
    if ('serial' in credential) headers['x-phone-serial'] = credential.serial;
    try {
      return await (this.options.fetch ?? fetch)(target, { headers, redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000) });
    } catch (error) {
      throw new MediaError(`The media could not be downloaded: ${error instanceof Error ? error.message : String(error)}`, true);
    }
  }
}

/** The agent's own route for a file the console stores (`/api/objects/<id>` on `server`); any other address is refused. */
function agentRoute(address: string, server: URL): URL {
  let target: URL;
  try {
    target = new URL(address, server);
  } catch {
    throw new MediaError(`The media address "${address.slice(0, 200)}" is not a web address`, false);
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:')
    throw new MediaError(`The media address "${address.slice(0, 200)}" is not a web address`, false);
  const stored = target.origin === server.origin ? /^\/api\/objects\/([0-9A-Za-z-]{1,64})$/.exec(target.pathname) : null;
  if (!stored)
    throw new MediaError(`The media address "${address.slice(0, 200)}" is not a file stored on this farm's console; upload the media to the post again`, false);
  return new URL(`/api/agent/media/${stored[1]}`, server);
}

/** Throws for an answer that brings no file: gone, refused, a redirect, or another failure (retryable when the server may recover). */
async function refuseAnswer(response: Response, target: URL): Promise<void> {
  if (response.status === 404 || response.status === 410)
    throw new MediaError(`The post's media is gone (${target.pathname.slice(0, 200)} answered ${response.status})`, false);
  if (response.status === 401 || response.status === 403) throw new MediaError(`The server refused this phone the post's media (${response.status})`, false);
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new MediaError(`The server answered the media request with a redirect (${response.status}), which is not followed`, false);
  }
  if (!response.ok) throw new MediaError(`The media could not be downloaded (${response.status})`, response.status >= 500 || response.status === 429);
}

const tooLarge = (cap: number) => new MediaError(`The media is larger than ${Math.round((cap / 1024 / 1024) * 10) / 10} MB`, false);

/**
 * Streams the body to a temporary file, counted as it comes (a server that lies about its length is cut off at the
 * cap), then renames it into place; nothing is left behind when it fails or is empty.
 */
async function save(body: AsyncIterable<Uint8Array>, file: string, cap: number): Promise<void> {
  const partial = `${file}.${process.pid}.${Date.now()}.part`;
  let written = 0;
  const out = createWriteStream(partial, { mode: 0o600 });
  try {
    await new Promise<void>((resolve, reject) => {
      out.on('error', reject);
      out.on('open', () => resolve());
    });
    for await (const chunk of body) {
      written += chunk.byteLength;
      if (written > cap) throw tooLarge(cap);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    if (error instanceof MediaError) throw error;
    throw new MediaError(`The media could not be downloaded: ${error instanceof Error ? error.message : String(error)}`, true);
  }
  if (written === 0) {
    await rm(partial, { force: true });
    throw new MediaError('The media file is empty', false);
  }
  await rename(partial, file);
}
