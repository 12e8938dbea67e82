/** Notices about a person's sign-in, shown once at their next sign-in: read as the contract's shape, then marked seen. */
import type { SignInNotice } from '@farm/contracts';
import type { Db } from '../shared/types.ts';
import { listUnseenNotices, markNoticesSeen } from './security.queries.ts';

export async function listNotices(db: Db, userId: string): Promise<SignInNotice[]> {
  const rows = await listUnseenNotices(db, userId);
  return rows.map((row) => ({ id: row.id, kind: row.kind, message: row.message, createdAt: row.createdAt.toISOString() }));
}

export function seeNotices(db: Db, userId: string, ids: readonly string[]): Promise<void> {
  return markNoticesSeen(db, userId, ids);
}
