/**
 * `devices.watchdog`: a phone whose agent has not been heard for three heartbeat intervals is offline, whether or not
 * its socket is still open and whichever API process held it (a crashed process leaves nothing "online"). The rule is
 * devices/status.ts.
 */
import { deviceColumns, serialize } from '@farm/sql';
import { recordActivity } from '../activities.ts';
import type { JobDeps } from '../jobs.types.ts';
import { Outboxes } from '../outbox.ts';
import { GONE, silentBefore } from '../devices/status.ts';

export async function processDevicesWatchdog(_data: unknown, deps: JobDeps): Promise<{ offline: number }> {
  const outboxes = new Outboxes();
  const silent = await deps.db.transaction().execute(async (tx) => {
    const rows = await tx
      .updateTable('devices')
      .set({ status: GONE })
      .where('status', '<>', GONE)
      .where('lastSeenAt', 'is not', null)
      .where('lastSeenAt', '<', silentBefore())
      .returning(deviceColumns)
      .execute();
    for (const device of rows) {
      const outbox = outboxes.for(device.workspaceId);
      outbox.add('device.updated', serialize(device));
      const seconds = Math.round((Date.now() - device.lastSeenAt!.getTime()) / 1000);
      await recordActivity(
        tx,
        {
          workspaceId: device.workspaceId,
          userId: null,
          action: `${device.name} went offline: no heartbeat for ${seconds} s`,
          deviceId: device.id,
          type: 'warning',
        },
        undefined,
        outbox,
      );
    }
    return rows.length;
  });
  outboxes.flush(deps.announce);
  return { offline: silent };
}
