/** `tasks.leases`: attempts whose lease ran out are taken back from their phones and tried again, or failed. */
import type { JobDeps } from '../jobs.types.ts';
import { Outboxes } from '../outbox.ts';
import { expireLeases } from '../tasks/lifecycle.ts';

const BATCH = 200;

export async function processTaskLeases(_data: unknown, deps: JobDeps): Promise<{ expired: number }> {
  let expired = 0;
  for (let round = 0; round < 50; round += 1) {
    const outboxes = new Outboxes();
    const count = await expireLeases(deps.db, outboxes, BATCH);
    outboxes.flush(deps.announce);
    expired += count;
    if (count < BATCH) break;
  }
  return { expired };
}
