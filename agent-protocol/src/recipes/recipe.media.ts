/**
 * The files a recipe run may copy onto its phone. A run is handed the files the agent's media fetcher brought for
 * it (a post's media, a dry run's picked uploads: stored objects of the console, `/api/objects/<id>`) and the folder
 * the fetcher keeps them in; nothing else of the farm host reaches a phone. A name from the recipe, its `defaults`,
 * another scope value or a request's parameters is not a file the run was given, and a file that leads out of the
 * media folder through a symbolic link (the agent's credential, adb's private key, `/proc/self/environ`) is refused
 * once its real place is read. The real path is what gets pushed, so a link swapped after the check leads nowhere new.
 */
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';

/** The files the agent fetched for this run, and the folder it fetched them into. */
export interface RunMedia {
  files: readonly string[];
  dir: string;
}

/** A file a step may not copy to the phone; the sentence says why without trusting the name further. */
export class MediaRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaRefused';
  }
}

const shown = (file: string) => JSON.stringify(file.length > 120 ? `${file.slice(0, 120)}…` : file);

/** Whether `real` (already resolved) lies inside the resolved folder `root`. */
export function liesInside(root: string, real: string): boolean {
  const base = root.endsWith(sep) ? root : `${root}${sep}`;
  return real.startsWith(base);
}

/**
 * The file's real path on the host, when the run was given it and it lies inside the media folder once every link
 * is followed; else MediaRefused with a sentence a person reads on the failed step.
 */
export async function checkRunFile(media: RunMedia | undefined, file: string, step: string): Promise<string> {
  if (!media?.files.includes(file))
    throw new MediaRefused(
      `${step} copies only the media the farm host fetched for this run from the console's stored uploads; ${shown(file)} is not one of them.`,
    );
  const [root, real] = await Promise.all([realpath(media.dir).catch(() => null), realpath(file).catch(() => null)]);
  if (!root || !real) throw new MediaRefused(`${step}: the fetched media file ${shown(file)} is no longer on this farm host.`);
  if (!liesInside(root, real))
    throw new MediaRefused(`${step}: the media file ${shown(file)} leads outside the farm host's media folder and is not copied to a phone.`);
  return real;
}
