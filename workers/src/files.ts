/**
 * The console's stored files: DATA_DIR/objects/<key>. The API writes and reads them (api/src/storage); retention
 * removes them, in the API or in a workers process; a file already gone is not an error.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredFiles {
  remove(keys: readonly string[]): Promise<void>;
}

/** Where the console keeps its files: the API writes and reads them there, the workers remove them. */
export const objectsDir = (dataDir: string): string => join(dataDir, 'objects');

export function storedFiles(dataDir: string): StoredFiles {
  const dir = objectsDir(dataDir);
  return {
    async remove(keys) {
      for (const key of keys) {
        // Keys are ours (uuids); anything with a path in it is not a key and is left alone.
        if (!/^[\w-]+$/.test(key)) continue;
        await rm(join(dir, key), { force: true });
      }
    },
  };
}
