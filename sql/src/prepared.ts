/**
 * Prepared statements for PostgreSQL: each distinct query text the application sends with parameters gets a name,
 * so every connection parses and plans it once and afterwards only binds values (the lookup of a signed-in session
 * spent half its database time planning). Kysely writes the same text for the same query whatever the values, so the
 * names are few; past MAX_NAMED, new texts go unnamed as before.
 *
 * Left unnamed: a text selecting or returning `*` (a column added by a migration while this process runs would fail
 * it with "cached plan must not change result type"), and anything that is not a plain statement with parameters.
 * Should that error happen anyway, the text gets a new name, prepared afresh on each connection.
 *
 * The rule cannot tell a product (`2 * n`) from a star, so a statement with one stays unnamed too, which is the safe
 * side: some of them plan better per call. A statement whose generic plan has been measured to serve it, and that
 * returns no `*` a migration could change, says so by starting with NAMED_STATEMENT.
 */
import type { PostgresPool } from 'kysely';
import type { Pool, PoolClient, QueryConfig } from 'pg';

export const MAX_NAMED = 2000;
const PLAIN = /^\s*(select|insert|update|delete|with)\b/i;
const STAR = /[\s,](?:"[^"]+"\.)?\*(?=[\s,)]|$)/;
/** Starts a statement that is named although the rule above would leave it unnamed (see above). */
export const NAMED_STATEMENT = '/* named */';
const RESULT_TYPE_CHANGED = 'cached plan must not change result type';

export class StatementNames {
  private readonly names = new Map<string, string>();
  private next = 0;

  /** The text's statement name, or undefined when it stays unnamed. */
  of(text: string, hasValues: boolean): string | undefined {
    if (!hasValues) return undefined;
    const known = this.names.get(text);
    if (known !== undefined) return known;
    const vouched = text.startsWith(NAMED_STATEMENT);
    if (this.names.size >= MAX_NAMED || !PLAIN.test(vouched ? text.slice(NAMED_STATEMENT.length) : text) || (!vouched && STAR.test(text))) {
      return undefined;
    }
    const name = `farm_${(this.next++).toString(36)}`;
    this.names.set(text, name);
    return name;
  }

  /** The text's prepared form no longer fits (see above): it is prepared again, under a new name. */
  forget(text: string): void {
    this.names.delete(text);
  }

  get size(): number {
    return this.names.size;
  }
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;
const prepared = new WeakSet<PoolClient>();

/** The pool, as Kysely's PostgresDialect takes it, whose connections send named statements. */
export function preparingPool(pool: Pool, names = new StatementNames()): PostgresPool {
  return {
    connect: async () => {
      const client = await pool.connect();
      if (!prepared.has(client)) {
        prepared.add(client);
        const query = client.query.bind(client) as Query;
        (client as unknown as { query: Query }).query = (config, values, callback) => {
          if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined) return query(config, values, callback);
          const name = names.of(config, values.length > 0);
          if (name === undefined) return query(config, values);
          const named: QueryConfig = { name, text: config, values };
          return (query(named) as Promise<unknown>).catch((error: unknown) => {
            if (error instanceof Error && error.message === RESULT_TYPE_CHANGED) names.forget(config);
            throw error;
          });
        };
      }
      return client;
    },
    end: () => pool.end(),
  };
}
