/**
 * Settings in bulk (issue #42): each phone's settings go to the farm host it hangs on (all of one host's phones in one
 * message), and come back per phone and setting. What adb cannot set becomes one task for the phone's VA, saying what
 * to do by hand. Nothing is stored of the settings themselves: the phone is the record.
 */
import type { PhoneSettings, PhoneSettingsResult, SettingOutcome } from '@farm/contracts';
import { createTasks, Outboxes } from '@farm/workers';
import type { Agents } from '../../agents/agents.socket.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Actor } from '../../shared/types.ts';
import type { SettingsPhone } from './fleet.phone-settings.queries.ts';

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

export async function setPhoneSettings(
  ctx: WriteContext & { agents?: Agents | undefined },
  actor: Actor,
  phones: readonly SettingsPhone[],
  settings: PhoneSettings,
): Promise<PhoneSettingsResult> {
  const results = new Map<string, Result>(phones.map((phone) => [phone.id, { deviceId: phone.id, name: phone.name, outcomes: [], error: null, taskId: null }]));
  const byHost = new Map<string, SettingsPhone[]>();
  for (const phone of phones) {
    if (!phone.hostId || !phone.serial) {
      results.get(phone.id)!.error = 'Settings reach phones through a farm host; this phone has an agent of its own.';
      continue;
    }
    byHost.set(phone.hostId, [...(byHost.get(phone.hostId) ?? []), phone]);
  }
  await Promise.all(
    [...byHost].map(async ([hostId, onHost]) => {
      const answer = ctx.agents
        ? await ctx.agents.setPhoneSettings(hostId, { serials: onHost.map((phone) => phone.serial!), settings }, SETTINGS_ANSWER_MS)
        : 'offline';
      for (const phone of onHost) {
        const result = results.get(phone.id)!;
        if (typeof answer === 'string') {
          result.error = why[answer];
          continue;
        }
        const mine = answer.results.find((item) => item.serial === phone.serial);
        result.outcomes = mine?.outcomes ?? [];
        result.error = mine ? mine.error : 'Its farm host did not say how it went on this phone.';
      }
    }),
  );
  const all = [...results.values()];
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    // What adb cannot set: one task per phone for its VA, saying what to do by hand.
    const byHand = phones.flatMap((phone) => {
      const person = results.get(phone.id)!.outcomes.filter((outcome) => outcome.outcome === 'person');
      return person.length === 0 ? [] : [{ phone, person }];
    });
    const made = await createTasks(
      tx,
      byHand.map(({ phone, person }) => {
        const description = person.map((outcome) => outcome.detail ?? settingWords[outcome.setting]).join('\n');
        return {
          workspaceId: actor.workspaceId,
          title: `Settings by hand on ${phone.name}`,
          description,
          type: 'monitor' as const,
          priority: 'medium' as const,
          deviceId: phone.id,
          assignedToId: phone.assignedToId,
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
      { action: 'devices.settings', entityType: 'device', entityId: phones[0]?.id ?? actor.userId, data: { settings, phones: phones.length, failed } },
    );
  });
  return { results: all };
}
