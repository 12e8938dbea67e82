/**
 * Bulk actions: one request, one transaction, all or nothing. Each item goes through the same function as its
 * single-item route (so the same rules and the same audit entries apply); an item refused with a 4xx is
 * reported in its place, and if any is refused the transaction is rolled back and nothing is written or announced.
 */
import type { SelectQueryBuilder } from 'kysely';
import { BULK_LIMIT, messages, type BulkResult } from '@farm/contracts';
import { write, type WriteContext, type WriteOutbox } from './write.ts';
import { AppError, badRequest } from '../errors.ts';
import { isUuid } from '@farm/sql';
import type { Tx } from '../shared/types.ts';

class Refused extends Error {
  constructor(readonly body: BulkResult & { error: string }) {
    super(body.error);
  }
}

export async function runBulk(
  ctx: WriteContext,
  workspaceId: string,
  prepare: (tx: Tx, outbox: WriteOutbox) => Promise<{ ids: readonly string[]; apply: (id: string) => Promise<void> }>,
): Promise<{ refused: false; body: BulkResult } | { refused: true; body: BulkResult & { error: string } }> {
  try {
    const body = await write(ctx, workspaceId, async (tx, outbox) => {
      const { ids, apply } = await prepare(tx, outbox);
      const results: BulkResult['results'] = [];
      for (const id of new Set(ids)) {
        if (!isUuid(id)) {
          results.push({ id, ok: false, error: messages.notFound });
          continue;
        }
        try {
          await apply(id);
          results.push({ id, ok: true });
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) throw error;
          results.push({ id, ok: false, error: error.message });
        }
      }
      const refused = results.filter((result) => !result.ok).length;
      if (refused > 0) {
        const items = results.length === 1 ? 'item' : 'items';
        throw new Refused({ error: `Nothing was changed: ${refused} of ${results.length} ${items} ${refused === 1 ? 'was' : 'were'} refused`, results });
      }
      return { results };
    });
    return { refused: false, body };
  } catch (error) {
    if (error instanceof Refused) return { refused: true, body: error.body };
    throw error;
  }
}

/** The ids a list filter matches (at most BULK_LIMIT; more is refused, so a bulk action never runs on a guess). */
// biome-ignore lint/suspicious/noExplicitAny: any table's query that selects ids
export async function selectIds<O extends { id: string }>(query: SelectQueryBuilder<any, any, O>): Promise<string[]> {
  const rows = await query.limit(BULK_LIMIT + 1).execute();
  if (rows.length === 0) throw badRequest('filter', 'Filter matches no items');
  if (rows.length > BULK_LIMIT) throw badRequest('filter', `filter: matches more than ${BULK_LIMIT} items; narrow it down`);
  return rows.map((row) => row.id);
}
