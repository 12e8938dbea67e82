/**
 * Settings in bulk (issue #42): each phone's settings go to the farm host it hangs on (all of one host's phones in one
 * message), and come back per phone and setting. What adb cannot set becomes one task for the phone's VA, saying what
 * to do by hand. Nothing is stored of the settings themselves: the phone is the record.
 */
import type { z } from 'zod';
import type { PhoneSettings, PhoneSettingsResult, SettingOutcome, phoneSettingsBody } from '@farm/contracts';
import { createTasks, Outboxes } from '@farm/workers';
import type { Agents } from '../../agents/agents.socket.ts';
import { write, type WriteContext } from '../../events/write.ts';
import { badRequest } from '../../errors.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { devicesByIds, devicesOfGroup, type SettingsDevice } from './fleet.phone-settings.queries.ts';

/** How long a host has to set everything on its phones (a few commands each, one phone after another). */
export const SETTINGS_ANSWER_MS = 60_000;

const why = {
  offline: 'Its farm host is not connected.',
  unsupported: "Its farm host's farm-agent cannot set phone settings yet: update it.",
  'no answer': 'Its farm host did not answer in time.',
} as const;

const settingWords: Record<SettingOutcome['setting'], string> = {
  stayAwake: 'stay awake while charging',
  screenTimeoutMs: 'screen timeout',
  brightness: 'brightness',
  wifi: 'Wi-Fi',
  autoUpdatesOff: 'automatic system updates',
  appStoreUpdates: 'Play Store auto-updates',
  appLocale: 'app language',
};

type Result = PhoneSettingsResult['results'][number];
type Body = z.output<typeof phoneSettingsBody>;

/**
 * The devices the body names: a group's (refused when the group is not the workspace's, or has no phones) or the
 * selected ones (refused when any is not the workspace's). Nothing is sent when refused.
 */
async function devicesToSet(db: Db, workspaceId: string, body: Body): Promise<SettingsDevice[]> {
  if (body.groupId) {
    const devices = await devicesOfGroup(db, workspaceId, body.groupId);
    if (!devices) throw badRequest('groupId', "Group must be one of this workspace's groups or tags");
    if (devices.length === 0) throw badRequest('groupId', 'This group has no phones');
    return devices;
  }
  const ids = [...new Set(body.deviceIds ?? [])];
  const devices = await devicesByIds(db, workspaceId, ids);
  if (devices.length < ids.length) {
    const missing = ids.length - devices.length;
    throw badRequest('deviceIds', `${missing === 1 ? '1 phone was' : `${missing} phones were`} not found in this workspace`);
  }
  return devices;
}

/** Sends the body's settings to the devices it names, through their hosts, and answers per device and setting. */
export async function sendPhoneSettings(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, body: Body): Promise<PhoneSettingsResult> {
  return setPhoneSettings(ctx, actor, await devicesToSet(ctx.db, actor.workspaceId, body), body.settings);
}

async function setPhoneSettings(
  ctx: WriteContext & { agents?: Agents | undefined },
  actor: Actor,
  devices: readonly SettingsDevice[],
  settings: PhoneSettings,
): Promise<PhoneSettingsResult> {
  const results = new Map<string, Result>(
    devices.map((device) => [device.id, { deviceId: device.id, name: device.name, outcomes: [], error: null, taskId: null }]),
  );
  const byHost = new Map<string, SettingsDevice[]>();
  for (const device of devices) {
    if (!device.hostId || !device.serial) {
      results.get(device.id)!.error = 'Settings reach phones through a farm host; this phone has an agent of its own.';
      continue;
    }
    byHost.set(device.hostId, [...(byHost.get(device.hostId) ?? []), device]);
  }
  await Promise.all(
    [...byHost].map(async ([hostId, onHost]) => {
      const answer = ctx.agents
        ? await ctx.agents.setPhoneSettings(hostId, { serials: onHost.map((device) => device.serial!), settings }, SETTINGS_ANSWER_MS)
        : 'offline';
      for (const device of onHost) {
        const result = results.get(device.id)!;
        if (typeof answer === 'string') {
          result.error = why[answer];
          continue;
        }
        const mine = answer.results.find((item) => item.serial === device.serial);
        result.outcomes = mine?.outcomes ?? [];
        result.error = mine ? mine.error : 'Its farm host did not say how it went on this phone.';
      }
    }),
  );
  const all = [...results.values()];
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    // What adb cannot set: one task per phone for its VA, saying what to do by hand.
    const byHand = devices.flatMap((device) => {
      const person = results.get(device.id)!.outcomes.filter((outcome) => outcome.outcome === 'person');
      return person.length === 0 ? [] : [{ device, person }];
    });
    const made = await createTasks(
      tx,
      byHand.map(({ device, person }) => {
        const description = person.map((outcome) => outcome.detail ?? settingWords[outcome.setting]).join('\n');
        return {
          workspaceId: actor.workspaceId,
          title: `Settings by hand on ${device.name}`,
          description,
          type: 'monitor' as const,
          priority: 'medium' as const,
          deviceId: device.id,
          assignedToId: device.assignedToId,
          work: { kind: 'manual' as const, description },
        };
      }),
      Outboxes.of(outbox),
    );
    for (const task of made) {
      const result = task.deviceId ? results.get(task.deviceId) : undefined;
      if (result) result.taskId = task.id;
    }
    const failed = all.filter((result) => result.error || result.outcomes.some((outcome) => outcome.outcome === 'failed')).length;
    const asked = Object.keys(settings).join(', ');
    await outbox.record(
      {
        userId: actor.userId,
        action: `Settings (${asked}) sent to ${all.length} ${all.length === 1 ? 'phone' : 'phones'}: ${all.length - failed} set${failed ? `, ${failed} not` : ''}${byHand.length ? `, ${byHand.length} need a person` : ''}`,
        type: failed ? 'warning' : 'info',
      },
      { action: 'devices.settings', entityType: 'device', entityId: devices[0]?.id ?? actor.userId, data: { settings, phones: devices.length, failed } },
    );
  });
  return { results: all };
}
