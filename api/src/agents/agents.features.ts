/**
 * Where features plug into the phone side. agents/ carries the messages of /agent and knows no feature: a feature that
 * answers a phone's (or a farm host's) message does it in `modules/<feature>/<feature>.agent.ts`, and hears of a
 * connection's life (a result written, a phone gone, a host ready) through a hook. The top puts them together
 * (api/src/phone-messages.ts), as the web puts its features' `*.events.ts` together, and gives them to the socket.
 *
 * The types are the closed set: a message is the transport's own (a connection's hello, hold and heartbeats, and the
 * task lifecycle's moves, agents.handlers.ts), the live screen's (realtime/live.ts), or a feature's, and the features'
 * map must answer every one of the rest. A message added to agent-protocol is a type error here until someone answers it.
 */
import type { z } from 'zod';
import type { Ack, AgentMessage, AgentMessageName, FleetHostMessage, FleetHostMessageName, ProtocolVersion } from '@farm/agent-protocol';
import type { AgentDevice } from './agents.queries.ts';
import type { ConnectedPhone } from './dispatcher.ts';
import type { AgentHost } from './agents.hosts.queries.ts';

/** One connected phone as the handlers see it. */
export interface AgentPeer {
  device: AgentDevice;
  socketId: string;
  /** The protocol it speaks: 1 until its hello says otherwise. */
  protocol: ProtocolVersion;
  send: ConnectedPhone['send'];
}

/** The answer to one message of a phone, given as its ack. */
export type PhoneHandler<N extends AgentMessageName> = (peer: AgentPeer, message: AgentMessage<N>) => Promise<Ack>;

/** The messages the transport answers itself (agents.handlers.ts). */
export type TransportMessageName = 'agent.hello' | 'agent.hold' | 'agent.heartbeat' | 'task.ack' | 'task.progress' | 'task.result';
/** The live screen's frames and packets: passed to the live hub at once, never queued. */
export type LiveMessageName = 'live.frame' | 'live.video';
/** Every other message a phone sends is a feature's to answer. */
export type FeatureMessageName = Exclude<AgentMessageName, TransportMessageName | LiveMessageName>;
export type FeatureMessages = { [N in FeatureMessageName]: PhoneHandler<N> };

/** The answer to one message of a host's control connection: done once it is stored (the host is then told ok). */
export type HostHandler<N extends FleetHostMessageName> = (host: AgentHost, message: FleetHostMessage<N>) => Promise<void>;
/** Every message of a host's control connection but its hello is a feature's to answer. */
export type HostMessages = { [N in FleetHostMessageName]: HostHandler<N> };

/** A phone's result as read: its schema's answer, or a feature's own reading of it (`AgentFeatures.parseResult`). */
export type ParsedResult = { success: true; data: AgentMessage<'task.result'> } | { success: false; error: z.ZodError };

/** What a feature hears of a connection's life; each is optional, and each runs in the order the features are given. */
export interface AgentHooks {
  /** A result of an attempt this phone was given is written: what the feature keeps of it, before the phone is answered. */
  resultTaken?(peer: AgentPeer, result: AgentMessage<'task.result'>): Promise<void>;
  /** The phone's last connection (on any instance) closed: before it is marked offline. */
  phoneGone?(device: AgentDevice): Promise<void>;
  /** A host's control connection said hello, with what it can do; it is in the rooms of those features already. */
  hostReady?(host: AgentHost, features: readonly string[]): Promise<void>;
}

/** Everything the features add to the phone side. */
export interface AgentFeatures {
  messages: FeatureMessages;
  hostMessages: HostMessages;
  /** Reads a phone's result in place of its schema (at most one feature does). */
  parseResult?(raw: unknown, peer: AgentPeer): ParsedResult;
  hooks: readonly AgentHooks[];
}
