/**
 * Alerts: what a workspace's webhooks may ask to be told of, and how an occurrence becomes deliveries.
 * An alert is a row per interested webhook in `webhook_deliveries` (PostgreSQL is the queue's source of
 * truth); `webhooks.deliver` sends them. Each occurrence has a key, so raising it twice delivers it once.
 *
 * Raised today: `account.paused` by the accounts routes; `device.offline`, `task.overdue` and `post.failed`
 * by the periodic check below. The task lifecycle and farm hosts call `raiseAlert` for `post.failed` and
 * `host.disconnected` at the moment they happen; the API raises `user.security` when a person's sign-in is touched
 * (codes of their app refused after too many wrong ones, a password reset made for them). Farm hosts raise
 * `device.health` when a phone overheats, its battery fails, its storage is almost full or it reboots in a loop.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '@farm/sql';

/** The events a webhook may ask for: one tuple, the contracts' (the console's form and the API's check read it too). */
export { alertEventValues, type AlertEvent } from '@farm/contracts';
import type { AlertEvent } from '@farm/contracts';

/** What every alert carries: the entity it is about, when it happened, and a sentence for people (Slack's `text`). */
export interface AlertPayload {
  id: string;
  at: string;
  text: string;
  [detail: string]: unknown;
}

/**
 * The key of one occurrence: a second raise of the same event for the same entity at the same time is a no-op.
 * `at` is the time that names the occurrence: a phone's last contact, a task's deadline, a failed post's
 * scheduled time (its creation when it had none), a host's disconnection.
 */
export function alertKey(event: AlertEvent, payload: Pick<AlertPayload, 'id' | 'at'>): string {
  return `${event}:${payload.id}:${new Date(payload.at).toISOString()}`;
}

/** Queues the alert for every active webhook of the workspace that wants this event; answers how many were queued. */
export async function raiseAlert(db: Kysely<DB>, workspaceId: string, event: AlertEvent, payload: AlertPayload): Promise<number> {
  const body = JSON.stringify({ ...payload, event });
  const result = await sql`
    insert into webhook_deliveries (workspace_id, webhook_id, event, dedupe_key, payload)
    select w.workspace_id, w.id, ${event}, ${alertKey(event, payload)}, ${body}::jsonb
    from webhooks w
    where w.workspace_id = ${workspaceId} and w.is_active and ${event} = any(w.events)
    on conflict (webhook_id, dedupe_key) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

const isoOf = (column: ReturnType<typeof sql.ref>) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The checks that find alerts by looking at the state of things: phones offline longer than each webhook's
 * N minutes, tasks past their deadline and unfinished, posts that failed. Only occurrences that began after
 * the webhook was created are raised, so a new webhook is not flooded with the past. All in SQL.
 */
export async function checkAlerts(db: Kysely<DB>, now: Date): Promise<number> {
  const offline = await sql`
    insert into webhook_deliveries (workspace_id, webhook_id, event, dedupe_key, next_attempt_at, payload)
    select w.workspace_id, w.id, 'device.offline',
           'device.offline:' || d.id || ':' || ${isoOf(sql.ref('d.last_active'))}, ${now},
           jsonb_build_object('event', 'device.offline', 'id', d.id, 'at', ${isoOf(sql.ref('d.last_active'))}, 'name', d.name,
             'minutes', w.offline_minutes,
             'text', 'Phone ' || d.name || ' has been offline for more than ' || w.offline_minutes || ' minutes')
    from webhooks w
    join devices d on d.workspace_id = w.workspace_id
    where w.is_active and 'device.offline' = any(w.events)
      and d.status = 'offline'
      and d.last_active <= ${now}::timestamptz - make_interval(mins => w.offline_minutes)
      and d.last_active + make_interval(mins => w.offline_minutes) >= w.created_at
      and exists (select 1 from device_status_history h where h.device_id = d.id and h.status <> 'offline')
    on conflict (webhook_id, dedupe_key) do nothing`.execute(db);
  const overdue = await sql`
    insert into webhook_deliveries (workspace_id, webhook_id, event, dedupe_key, next_attempt_at, payload)
    select w.workspace_id, w.id, 'task.overdue',
           'task.overdue:' || t.id || ':' || ${isoOf(sql.ref('t.deadline'))}, ${now},
           jsonb_build_object('event', 'task.overdue', 'id', t.id, 'at', ${isoOf(sql.ref('t.deadline'))}, 'title', t.title,
             'text', 'Task "' || t.title || '" is overdue')
    from webhooks w
    join tasks t on t.workspace_id = w.workspace_id
    where w.is_active and 'task.overdue' = any(w.events)
      and t.status in ('pending', 'in-progress')
      and t.deadline < ${now} and t.deadline >= w.created_at
    on conflict (webhook_id, dedupe_key) do nothing`.execute(db);
  // A failure per schedule: a post retried at a new time that fails again is a new alert.
  const failed = await sql`
    insert into webhook_deliveries (workspace_id, webhook_id, event, dedupe_key, next_attempt_at, payload)
    select w.workspace_id, w.id, 'post.failed',
           'post.failed:' || p.id || ':' || coalesce(${isoOf(sql.ref('p.scheduled_at'))}, ${isoOf(sql.ref('p.created_at'))}), ${now},
           jsonb_build_object('event', 'post.failed', 'id', p.id,
             'at', coalesce(${isoOf(sql.ref('p.scheduled_at'))}, ${isoOf(sql.ref('p.created_at'))}), 'account', a.username,
             'platform', a.platform, 'text', 'Post for @' || a.username || ' (' || a.platform || ') failed to publish')
    from webhooks w
    join posts p on p.workspace_id = w.workspace_id
    join accounts a on a.id = p.account_id
    where w.is_active and 'post.failed' = any(w.events)
      and p.status = 'failed' and p.updated_at >= w.created_at
    on conflict (webhook_id, dedupe_key) do nothing`.execute(db);
  return [offline, overdue, failed].reduce((sum, result) => sum + Number(result.numAffectedRows ?? 0), 0);
}
