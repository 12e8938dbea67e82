/**
 * The one home of a post task's source key, `post:<post id>:<schedule version>`: the key that makes a post's task
 * once per schedule (a retry or a second scheduler adds nothing), written by the scheduler, matched in SQL by the
 * scheduler and the stuck-post watchdog, and read back when the task settles to tell a stale schedule from the
 * current one.
 */
import { type RawBuilder, sql } from 'kysely';

const PREFIX = 'post:';

/** The key of the task that publishes `postId` at schedule `version`. */
export function postSourceKey(postId: string, version: number): string {
  return `${PREFIX}${postId}:${version}`;
}

/** The same key in SQL, from a post row's columns (`p.id`, `p.schedule_version`, or whatever the query names them). */
export function postSourceKeySql(idColumn: string, versionColumn: string): RawBuilder<string> {
  return sql<string>`${sql.lit(PREFIX)} || ${sql.ref(idColumn)} || ':' || ${sql.ref(versionColumn)}`;
}

/** The schedule version a task's key names, if it is a post's task. */
export function scheduleVersionOf(sourceKey: string | null): number | undefined {
  if (!sourceKey?.startsWith(PREFIX)) return undefined;
  const version = sourceKey.slice(sourceKey.lastIndexOf(':') + 1);
  const rest = sourceKey.slice(PREFIX.length, sourceKey.lastIndexOf(':'));
  if (rest.length === 0 || rest.includes(':') || !/^\d+$/.test(version)) return undefined;
  return Number(version);
}
