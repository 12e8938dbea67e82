/**
 * The console's stored files as the workers see them: DATA_DIR/objects/<key>, the layout the API writes. Workers
 * only remove files (retention); a file already gone is not an error.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredFiles {
  remove(keys: readonly string[]): Promise<void>;
}

export function storedFiles(dataDir: string): StoredFiles {
  const dir = join(dataDir, 'objects');
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
