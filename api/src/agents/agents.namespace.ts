/**
 * The /agent namespace's shapes and rooms, shared by the phones' side (agents.socket.ts), the hosts' side
 * (agents.hosts.ts) and admission (agents.admission.ts): who a connection speaks for, the rooms it joins, and how a
 * message that does not read as its schema is answered.
 */
import type { Namespace, Socket } from 'socket.io';
import type { Ack, AgentToServer, HostToServer, ServerToAgent } from '@farm/agent-protocol';
import type { AgentDevice } from './agents.queries.ts';
import type { AgentHost } from './agents.hosts.queries.ts';

/** Who a connection speaks for: one phone (with its own credential or through its host), or a host itself. */
export type AgentSocketData =
  | ({ kind: 'phone'; hostId: string | null; features?: string[] } & AgentDevice)
  | ({ kind: 'host'; features?: string[] } & AgentHost);

export type AgentNamespace = Namespace<AgentToServer & HostToServer, ServerToAgent, Record<string, never>, AgentSocketData>;
export type AgentSocket = Socket<AgentToServer & HostToServer, ServerToAgent, Record<string, never>, AgentSocketData>;
export type Answer = (answer: Ack) => void;

export const deviceRoom = (deviceId: string) => `device:${deviceId}`;
/** Every connection a host opened: its own and its phones'. */
export const hostRoom = (hostId: string) => `host:${hostId}`;
/** A host's own (control) connection. */
export const hostControlRoom = (hostId: string) => `host-control:${hostId}`;
/** A host's control connection that listed the feature in its hello (`host-apps:<id>`: it installs apps). */
export const hostFeatureRoom = (hostId: string, feature: string) => `host-${feature}:${hostId}`;

/** A message that does not read as its schema, answered with every field that is wrong. */
export function refused(message: string, error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): Ack {
  return { ok: false, error: error.issues.map((issue) => `${issue.path.join('.') || message}: ${issue.message}`).join('; ') };
}
