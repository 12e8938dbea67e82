import type { Announce } from './changes.ts';
import type { Db } from './db.ts';
import type { StoredFiles } from './files.ts';

/** What every job processor gets: the database, where to announce changes, the stored files, and (in tests) the clock. */
export interface JobDeps {
  db: Db;
  announce: Announce;
  /** The console's files (retention removes screenshots' files); absent where the process has no DATA_DIR. */
  files?: StoredFiles | undefined;
  now?: () => Date;
}
