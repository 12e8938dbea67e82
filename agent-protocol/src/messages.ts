/**
 * Every message between a phone agent and the server, on the Socket.IO namespace `/agent`.
 * The agent authenticates at handshake with its device credential (`auth: { token }`) and speaks
 * only for its own device. Both sides parse what they receive with these schemas.
 */
import { z } from 'zod';

export const AGENT_NAMESPACE = '/agent';
export const PROTOCOL_VERSION = 1;

const id = z.string().min(1).max(64);
const battery = z.number().int().min(0).max(100);

/** Screenshots travel as base64 JPEG or PNG of at most this many bytes once decoded. */
export const MAX_SCREENSHOT_BYTES = 512 * 1024;

export const agentMessages = {
  /** First message after connecting: who the phone is and how it is. */
  'agent.hello': z.object({
    protocol: z.literal(PROTOCOL_VERSION),
    agentVersion: z.string().max(40),
    model: z.string().max(100).optional(),
    androidVersion: z.string().max(20).optional(),
    battery,
  }),
  /** Every few seconds: liveness, battery and what the phone is doing. */
  'agent.heartbeat': z.object({
    battery,
    status: z.enum(['online', 'busy', 'idle']),
    charging: z.boolean().optional(),
  }),
  'agent.screenshot': z.object({
    mime: z.enum(['image/jpeg', 'image/png']),
    data: z.string().max(Math.ceil((MAX_SCREENSHOT_BYTES * 4) / 3) + 4),
    capturedAt: z.string().max(40).optional(),
  }),
  /** The phone took the task of this attempt. */
  'task.ack': z.object({ taskId: id, attempt: z.number().int().min(1) }),
  'task.progress': z.object({ taskId: id, attempt: z.number().int().min(1), percent: z.number().min(0).max(100), note: z.string().max(500).optional() }),
  /** The end of an attempt; repeating it changes nothing. */
  'task.result': z.object({
    taskId: id,
    attempt: z.number().int().min(1),
    status: z.enum(['completed', 'failed']),
    error: z.string().max(2000).optional(),
  }),
} as const;

export const serverMessages = {
  /** Work for the phone: run it, ack it, report its result for this attempt. */
  'task.dispatch': z.object({
    taskId: id,
    attempt: z.number().int().min(1),
    type: z.enum(['post', 'engage', 'warmup', 'monitor']),
    title: z.string(),
    description: z.string().nullable(),
    deadline: z.string().nullable(),
  }),
  /** An operator's command to the phone. */
  command: z.object({ name: z.enum(['screenshot', 'pause', 'resume', 'stop', 'restart_session']) }),
} as const;

export type AgentMessageName = keyof typeof agentMessages;
export type AgentMessage<N extends AgentMessageName> = z.infer<(typeof agentMessages)[N]>;
export type ServerMessageName = keyof typeof serverMessages;
export type ServerMessage<N extends ServerMessageName> = z.infer<(typeof serverMessages)[N]>;

/** Acknowledgement every agent message gets back: ok, or why it was refused. */
export type Ack = { ok: true } | { ok: false; error: string };

export type AgentToServer = { [N in AgentMessageName]: (message: AgentMessage<N>, ack?: (answer: Ack) => void) => void };
export type ServerToAgent = { [N in ServerMessageName]: (message: ServerMessage<N>) => void };
