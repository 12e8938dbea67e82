/**
 * Who a new /agent connection speaks for, from its handshake: a phone's own credential, a host's credential alone (its
 * control connection), or a host's credential and a phone's serial (a phone on that host, registered on first sight
 * and said in the activity feed). Anything else is let in as nobody, that is, not at all.
 */
import { serialize } from '@farm/sql';
import { write, type WriteContext } from '../events/write.ts';
import { findAgentDevice } from './agents.queries.ts';
import type { AgentSocketData } from './agents.namespace.ts';
import { type AgentHost, findHostByToken, hostPhone } from './agents.hosts.queries.ts';

/** Why a connection was not let in, said to the agent as it is. */
export class AdmissionRefused extends Error {}

/** A handshake's text field, if it is one of a sensible length. */
const text = (value: unknown, max: number) => (typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined);

/** Who the handshake's credential speaks for, or nothing; throws `AdmissionRefused` for a host that may not add a phone. */
export async function admit(ctx: WriteContext, auth: Record<string, unknown>): Promise<AgentSocketData | undefined> {
  const token = text(auth.token, 200);
  if (token) {
    const device = await findAgentDevice(ctx.db, token);
    return device ? { kind: 'phone', hostId: null, ...device } : undefined;
  }
  const hostToken = text(auth.hostToken, 200);
  const host = hostToken ? await findHostByToken(ctx.db, hostToken) : undefined;
  if (!host) return undefined;
  const serial = text(auth.serial, 100);
  if (!serial) return { kind: 'host', ...host };
  return admitHostPhone(ctx, host, { serial, model: text(auth.model, 100), androidVersion: text(auth.androidVersion, 20) });
}

/** A host speaks for the phones it registered; a phone it sees for the first time is registered now. */
async function admitHostPhone(
  ctx: WriteContext,
  host: AgentHost,
  seen: { serial: string; model: string | undefined; androidVersion: string | undefined },
): Promise<AgentSocketData> {
  const phone = await hostPhone(ctx.db, host, seen);
  if ('refused' in phone) throw new AdmissionRefused(phone.refused);
  const { device } = phone;
  if (phone.created) {
    await write(ctx, host.workspaceId, async (_tx, outbox) => {
      outbox.add('device.created', serialize(device));
      await outbox.record(
        { userId: null, action: `${device.name} joined through host "${host.name}"`, deviceId: device.id, type: 'success' },
        { action: 'device.registered', entityType: 'device', entityId: device.id, data: { hostId: host.id, serial: seen.serial } },
      );
    });
  }
  return { kind: 'phone', hostId: host.id, id: device.id, workspaceId: device.workspaceId, name: device.name };
}
