/**
 * A post's media, brought to the farm host before the phone publishes it: files the console stores
 * (`/api/objects/<id>`) come through the agent's own route with the phone's credential; any other web address is
 * downloaded as it is. Files are kept under the agent's state folder by a hash of their address, so a retry does not
 * download again, and written whole (temporary file, then rename) with owner-only permissions.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
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

  /** Downloads the file (or finds it already here) and answers its path on the host. */
  async fetch(address: string): Promise<string> {
    const server = new URL(this.options.server);
    let target: URL;
    try {
      target = new URL(address, server);
    } catch {
      throw new MediaError(`The media address "${address.slice(0, 200)}" is not a web address`, false);
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:')
      throw new MediaError(`The media address "${address.slice(0, 200)}" is not a web address`, false);
    const stored = target.origin === server.origin ? /^\/api\/objects\/([^/?#]+)$/.exec(target.pathname) : null;
    const headers: Record<string, string> = {};
    if (stored) {
      target = new URL(`/api/agent/media/${stored[1]}`, server);
      const credential = this.options.credential;
      headers.authorization = `Bearer ${'token' in credential ? credential.token : credential.hostToken}`;
      if ('serial' in credential) headers['x-phone-serial'] = credential.serial;
    }

    const hash = createHash('sha256').update(address).digest('hex').slice(0, 32);
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    for (const extension of new Set(Object.values(EXTENSIONS).concat(''))) {
      const known = join(this.options.dir, `${hash}${extension}`);
      if (
        await stat(known)
          .then((s) => s.isFile() && s.size > 0)
          .catch(() => false)
      )
        return known;
    }

    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(target, { headers, redirect: 'follow', signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000) });
    } catch (error) {
      throw new MediaError(`The media could not be downloaded: ${error instanceof Error ? error.message : String(error)}`, true);
    }
    if (response.status === 404 || response.status === 410)
      throw new MediaError(`The post's media is gone (${target.pathname.slice(0, 200)} answered ${response.status})`, false);
    if (response.status === 401 || response.status === 403) throw new MediaError(`The server refused this phone the post's media (${response.status})`, false);
    if (!response.ok) throw new MediaError(`The media could not be downloaded (${response.status})`, response.status >= 500 || response.status === 429);
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_MEDIA_BYTES) throw new MediaError(`The media is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`, false);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length === 0) throw new MediaError('The media file is empty', false);
    if (bytes.length > MAX_MEDIA_BYTES) throw new MediaError(`The media is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`, false);
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const file = join(this.options.dir, `${hash}${EXTENSIONS[type] ?? ''}`);
    const partial = `${file}.${process.pid}.part`;
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file);
    return file;
  }
}
