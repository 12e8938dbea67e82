import type { Announce } from './changes.ts';
import type { Db } from './db.ts';

/** What every job processor gets: the database, where to announce changes, and (in tests) the clock. */
export interface JobDeps {
  db: Db;
  announce: Announce;
  now?: () => Date;
}
