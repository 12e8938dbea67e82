/**
 * `webhooks.deliver`: raises the alerts found by looking (phones offline, tasks overdue, posts failed), then
 * sends every delivery that is due. The deliveries table is the queue: a run claims a batch by pushing its
 * next attempt a lease ahead (SKIP LOCKED, so two workers never send one twice at once), posts each one,
 * and records the answer. A failure is retried with exponential backoff until MAX_ATTEMPTS, then marked
 * failed; the table keeps the log of every attempt's last status and error.
 *
 * Each request is JSON with a Slack-compatible `text` (an incoming-webhook URL works as it is) and is signed:
 * `x-farm-signature: sha256=HEX(HMAC-SHA256(secret, timestamp + "." + body))` with the same `x-farm-timestamp`.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { checkAlerts } from './alerts.ts';
import type { JobDeps } from './jobs.types.ts';
import { outboundFailureText, sendOutbound } from './net/outbound.ts';
import { automation } from './settings.ts';

export const MAX_ATTEMPTS = 8;
export const DELIVERIES_PER_RUN = 50;
/** How long a claimed delivery is left alone by other runs while it is being sent. */
const LEASE_MS = 2 * 60_000;
const TIMEOUT_MS = 10_000;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 6 * 3600_000;

/** Wait before attempt n+1 after n failed attempts: 30 s, 1 min, 2 min, … at most 6 h. */
export function deliveryBackoffMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_MS);
}

export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * A text for Slack's markup: names of phones, tasks and accounts are typed by people, and Slack reads `<!channel>`,
 * `<@U123>` and `<https://…|label>` in them as mentions and links. Slack asks for exactly these three escapes.
 */
export function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export interface WebhooksDeliverResult {
  raised: number;
  delivered: number;
  retried: number;
  failed: number;
}

interface Claimed {
  id: string;
  workspaceId: string;
  event: string;
  payload: Record<string, unknown>;
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
}

export async function processWebhooksDeliver(_data: unknown, deps: JobDeps): Promise<WebhooksDeliverResult> {
  const now = deps.now?.() ?? new Date();
  const raised = await checkAlerts(deps.db, now);
  const { rows } = await sql<Claimed>`
    update webhook_deliveries d
    set attempts = d.attempts + 1, next_attempt_at = ${new Date(now.getTime() + LEASE_MS)}
    from webhooks w
    where w.id = d.webhook_id
      and d.id in (
        select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${now}
        order by next_attempt_at
        limit ${DELIVERIES_PER_RUN}
        for update skip locked)
    returning d.id, d.workspace_id as "workspaceId", d.event, d.payload, d.attempts, d.created_at as "createdAt", w.url, w.secret`.execute(deps.db);
  const result: WebhooksDeliverResult = { raised, delivered: 0, retried: 0, failed: 0 };
  await Promise.all(
    rows.map(async (delivery) => {
      const outcome = await send(delivery, now);
      if (outcome.ok) {
        result.delivered += 1;
        await deps.db
          .updateTable('webhookDeliveries')
          .set({ status: 'delivered', deliveredAt: new Date(), lastStatus: outcome.status, lastError: null })
          .where('id', '=', delivery.id)
          .execute();
        return;
      }
      const giveUp = delivery.attempts >= MAX_ATTEMPTS;
      if (giveUp) result.failed += 1;
      else result.retried += 1;
      await deps.db
        .updateTable('webhookDeliveries')
        .set({
          status: giveUp ? 'failed' : 'pending',
          lastStatus: outcome.status,
          lastError: outcome.error.slice(0, 500),
          nextAttemptAt: new Date(now.getTime() + deliveryBackoffMs(delivery.attempts)),
        })
        .where('id', '=', delivery.id)
        .execute();
    }),
  );
  return result;
}

async function send(delivery: Claimed, now: Date): Promise<{ ok: true; status: number } | { ok: false; status: number | null; error: string }> {
  const { text, ...data } = delivery.payload;
  const body = JSON.stringify({
    text: typeof text === 'string' ? slackEscape(text) : text,
    event: delivery.event,
    deliveryId: delivery.id,
    workspaceId: delivery.workspaceId,
    occurredAt: data.at ?? delivery.createdAt.toISOString(),
    data,
  });
  const timestamp = String(Math.floor(now.getTime() / 1000));
  // Checked and pinned to the address it checked (net/outbound.ts); redirects are never followed, and the log
  // names the failure's class, never the raw error (which would name hosts and ports inside the network).
  const answer = await sendOutbound(
    delivery.url,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'farm-console-webhooks/1',
        'x-farm-event': delivery.event,
        'x-farm-delivery': delivery.id,
        'x-farm-timestamp': timestamp,
        'x-farm-signature': signature(delivery.secret, timestamp, body),
      },
      body,
      timeoutMs: TIMEOUT_MS,
    },
    { allowPrivate: automation().outboundAllowPrivate },
  );
  if (answer.ok && answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
  if (answer.ok) return { ok: false, status: answer.status, error: `The endpoint answered ${answer.status}` };
  return { ok: false, status: answer.status, error: outboundFailureText[answer.failure] };
}
