/**
 * The console's stored files: DATA_DIR/objects/<key>. The API writes and reads them (api/src/storage); retention
 * removes them, in the API or in a workers process; a file already gone is not an error.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredFiles {
  remove(keys: readonly string[]): Promise<void>;
  /** Writes a new file whole (temporary name, then rename). */
  write(key: string, bytes: Buffer): Promise<void>;
}

/** Where the console keeps its files: the API writes and reads them there, the workers remove them. */
export const objectsDir = (dataDir: string): string => join(dataDir, 'objects');

export function storedFiles(dataDir: string): StoredFiles {
  const dir = objectsDir(dataDir);
  return {
    async write(key, bytes) {
      if (!/^[\w-]+$/.test(key)) throw new Error('not a stored file key');
      await mkdir(dir, { recursive: true });
      const partial = join(dir, `${key}.${process.pid}.part`);
      await writeFile(partial, bytes);
      await rename(partial, join(dir, key));
    },
    async remove(keys) {
      for (const key of keys) {
        // Keys are ours (uuids); anything with a path in it is not a key and is left alone.
        if (!/^[\w-]+$/.test(key)) continue;
        await rm(join(dir, key), { force: true });
      }
    },
  };
}
