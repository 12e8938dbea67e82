/**
 * A phone's comings and goings (issue #50): since when its host waits for its transport (a column of its health row,
 * migration 0056), what it runs once it is back, and its timeline of blips, rungs and reboots, which are audit facts
 * of the device (read by the audit log's own query, newest first).
 */
import type { AgentMessage } from '@farm/agent-protocol';
import type { Db, Tx } from '../../shared/types.ts';
import { listAuditLog } from '../audit/audit.queries.ts';

/** The audit actions of a phone's timeline share this prefix (`phone.blip`, `phone.rung`, `phone.reboot`). */
export const TIMELINE_ACTION_PREFIX = 'phone.';

/** Since when the phone is away, or null; its row is locked for the write that changes it. */
export async function reconnectingSince(tx: Tx, deviceId: string): Promise<Date | null> {
  const row = await tx.selectFrom('deviceHealth').select('reconnectingSince').where('deviceId', '=', deviceId).forUpdate().executeTakeFirst();
  return row?.reconnectingSince ?? null;
}

/** What the phone runs now, as it said coming back: only what it said is changed (a hello wrote the row first). */
export function updateSoftware(tx: Tx, deviceId: string, back: Pick<AgentMessage<'phone.back'>, 'uiReader' | 'apps'>) {
  if (!back.uiReader && !back.apps) return Promise.resolve();
  return tx
    .updateTable('deviceSoftware')
    .set({
      ...(back.uiReader ? { uiReader: back.uiReader.kind, uiReaderVersion: back.uiReader.version } : {}),
      ...(back.apps ? { apps: JSON.stringify(back.apps) } : {}),
      reportedAt: new Date(),
    })
    .where('deviceId', '=', deviceId)
    .execute();
}

/** A page of the phone's timeline, newest first (one row more than asked, for the next page's cursor). */
export function listTimeline(db: Db, workspaceId: string, deviceId: string, page: { cursor?: string | undefined; limit: number }) {
  return listAuditLog(db, workspaceId, { entityType: 'device', entityId: deviceId, action: TIMELINE_ACTION_PREFIX, ...page });
}
