/**
 * Heartbeats are many and small: 2,000 phones every 2 s is 1,000 a second. They are gathered per workspace
 * for a twentieth of a second, written in one statement, and announced as one `devices.pulse` event, so the
 * database sees twenty writes a second instead of a thousand and each browser twenty frames instead of a thousand.
 * A heartbeat that changes nothing a screen shows (same status and battery, last activity within the same step, the
 * phone heard on time) is written (the phone was heard) but not announced: a farm's phones mostly say the same
 * thing every 2 s.
 * Measured (bench/realtime, heartbeat → browser p99): a tenth of a second gave 118 ms at 2,000 phones and 200
 * browsers and 276–372 ms at 10,000 and 500 (a point of battery a minute); a twentieth, 67 ms and 144–194 ms.
 * Once unchanged heartbeats stopped being announced, the gathering itself was most of the latency (the API process
 * was 84% idle at 10,000 phones).
 */
import { sql } from 'kysely';
import type { DeviceStatus } from '@farm/sql';
import { automation, phoneHasWorkSql } from '@farm/workers';
import type { Db } from '../shared/types.ts';
import type { ChangeFeed } from './changes.ts';

export const PULSE_MS = 50;
/**
 * A busy phone is active at every heartbeat; the console shows its last activity as "a few seconds ago" up to 45
 * s, so it is announced when it enters a new 30-second step rather than every 2 s.
 */
export const LAST_ACTIVE_STEP_S = 30;

/** What a heartbeat says: the agent's own word on what the phone is doing, its battery and screen. */
export interface Beat {
  id: string;
  /** online, busy or idle, as the agent sees it. */
  status: DeviceStatus;
  battery: number;
  screenOn?: boolean | undefined;
  foregroundApp?: string | undefined;
}

export class Pulse {
  private readonly pending = new Map<string, Map<string, Beat>>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly changes: ChangeFeed,
    private readonly onError: (error: unknown) => void,
    private readonly intervalMs = PULSE_MS,
  ) {}

  beat(workspaceId: string, beat: Beat): void {
    let beats = this.pending.get(workspaceId);
    if (!beats) {
      beats = new Map();
      this.pending.set(workspaceId, beats);
    }
    beats.set(beat.id, beat);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush()).catch(this.onError);
    }, this.intervalMs);
  }

  /** Writes and announces everything gathered so far. */
  async flush(): Promise<void> {
    const batches = [...this.pending.entries()];
    this.pending.clear();
    for (const [workspaceId, beats] of batches) {
      const rows = [...beats.values()];
      const values = sql.join(
        rows.map((b) => sql`(${b.id}::uuid, ${b.status}::text, ${b.battery}::int, ${b.screenOn ?? null}::boolean, ${b.foregroundApp ?? null}::text)`),
      );
      // A connected phone's status is derived here, once, from what it reports and what runs on it: busy while
      // work or a person's session runs, idle with the screen off or nothing done for five minutes, online otherwise.
      const updated = await sql<{ id: string; status: DeviceStatus; battery: number; lastActive: Date; shown: boolean }>`
        with v(id, agent_status, battery, screen_on, foreground_app) as (values ${values}),
        w as (
          select v.*, (
            v.agent_status = 'busy'
            or ${phoneHasWorkSql('v.id')}
            or exists (select 1 from sessions s where s.device_id = v.id and s.ended_at is null and s.is_active)
          ) as working
          from v
        )
        update devices d set
          battery = w.battery,
          screen_on = coalesce(w.screen_on, d.screen_on),
          foreground_app = coalesce(w.foreground_app, d.foreground_app),
          last_seen_at = now(),
          last_active = case when w.working then now() else d.last_active end,
          status = case
            when w.working then 'busy'
            when w.screen_on = false or w.agent_status = 'idle' or d.last_active < now() - interval '5 minutes' then 'idle'
            else 'online'
          end
        from w, devices o
        where d.id = w.id and o.id = d.id and d.workspace_id = ${workspaceId}
        returning d.id, d.status, d.battery, d.last_active as "lastActive",
          (d.status <> o.status or d.battery is distinct from o.battery
            or floor(extract(epoch from d.last_active) / ${LAST_ACTIVE_STEP_S}) is distinct from floor(extract(epoch from o.last_active) / ${LAST_ACTIVE_STEP_S})
            or o.last_seen_at is null or o.last_seen_at < now() - (${2 * automation().heartbeatMs} * interval '1 millisecond')) as shown`.execute(this.db);
      // Only what a screen would show differently is announced (o is the row as this statement first saw it). A
      // phone heard after a silence of two heartbeats is announced whatever it says: the watchdog (at three) may have
      // taken it offline in the same instant, after o was read. A phone on time, give or take, is not.
      const shown = updated.rows.filter((row) => row.shown);
      if (shown.length === 0) continue;
      this.changes.publish({
        workspaceId,
        event: 'devices.pulse',
        payload: {
          devices: shown.map((row) => ({ id: row.id, status: row.status, battery: row.battery, lastActive: new Date(row.lastActive).toISOString() })),
        },
      });
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }
}
