import { sql } from 'kysely';
import type { Db } from '../../shared/types.ts';

/** The first steps of a new workspace, in order, each answered by whether it has happened. */
export async function onboardingOf(db: Db, workspaceId: string) {
  const { rows } = await sql<{ phoneConnected: boolean; vaInvited: boolean; accountAdded: boolean; campaignCreated: boolean }>`
    select
      exists (select 1 from device_credentials c where c.workspace_id = ${workspaceId})
        or exists (select 1 from device_status_history h where h.workspace_id = ${workspaceId} and h.status <> 'offline') as "phoneConnected",
      exists (select 1 from invitations i where i.workspace_id = ${workspaceId})
        or exists (select 1 from workspace_members m where m.workspace_id = ${workspaceId} and m.role = 'va') as "vaInvited",
      exists (select 1 from accounts a where a.workspace_id = ${workspaceId}) as "accountAdded",
      exists (select 1 from campaigns c where c.workspace_id = ${workspaceId}) as "campaignCreated"`.execute(db);
  return rows[0]!;
}
