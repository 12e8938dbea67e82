/**
 * What this instance says to a phone's agent wherever it is connected: a command, a message for agents that listed a
 * feature in their hello (`dryrun`), and a question whose answer it waits for. A phone's features are kept with its
 * connection, so any instance can tell what it can do.
 */
import type { Namespace } from 'socket.io';
import type { Ack, ServerMessage } from '@farm/agent-protocol';
import { type AgentNamespace, deviceRoom } from './agents.namespace.ts';

export class PhoneAsks {
  constructor(private readonly nsp: AgentNamespace) {}

  /**
   * What this instance says to a phone on one of its own sockets goes straight to that socket. A plain `socket.emit`
   * passes through the adapter, to be kept for connection-state recovery: with Redis, one stream entry per dispatch,
   * read back by every instance, and the dispatch held until Redis answers. A phone's work does not rest on a replay:
   * a dispatch lost with its connection is never acked, its lease expires and the task goes out again.
   */
  ownSocket(socketId: string) {
    return this.nsp.local.to(socketId);
  }

  /** The device's agent is connected, on any instance. */
  async connected(deviceId: string): Promise<boolean> {
    return (await this.nsp.in(deviceRoom(deviceId)).fetchSockets()).length > 0;
  }

  /** Sends a command to the device's agent; answers whether one was there to hear it. */
  async command(deviceId: string, name: ServerMessage<'command'>['name']): Promise<boolean> {
    if (!(await this.connected(deviceId))) return false;
    this.nsp.to(deviceRoom(deviceId)).emit('command', { name });
    return true;
  }

  /** Whether the device's agent is connected (anywhere) and listed `feature` in its hello. */
  async ready(deviceId: string, feature: string): Promise<'ready' | 'offline' | 'unsupported'> {
    const sockets = await this.nsp.in(deviceRoom(deviceId)).fetchSockets();
    if (sockets.length === 0) return 'offline';
    return sockets.some((socket) => socket.data.kind === 'phone' && socket.data.features?.includes(feature)) ? 'ready' : 'unsupported';
  }

  /** Sends a message to the device's agent if it listed `feature`; answers whether one was there to hear it. */
  async tell(deviceId: string, feature: string, event: string, message: unknown): Promise<boolean> {
    if ((await this.ready(deviceId, feature)) !== 'ready') return false;
    (this.nsp as unknown as Namespace).to(deviceRoom(deviceId)).emit(event, message);
    return true;
  }

  /** Asks the device's agent that listed `feature` and waits for its answer, or says why there is none. */
  async ask(deviceId: string, feature: string, event: string, message: unknown, timeoutMs: number): Promise<Ack | 'offline' | 'unsupported' | 'no answer'> {
    const sockets = await this.nsp.in(deviceRoom(deviceId)).fetchSockets();
    if (sockets.length === 0) return 'offline';
    const able = sockets.find((socket) => socket.data.kind === 'phone' && socket.data.features?.includes(feature));
    if (!able) return 'unsupported';
    try {
      const answers: unknown = await (this.nsp as unknown as Namespace).to(able.id).timeout(timeoutMs).emitWithAck(event, message);
      const answer = (Array.isArray(answers) ? answers[0] : answers) as Ack | undefined;
      if (!answer || typeof answer !== 'object' || typeof answer.ok !== 'boolean') return 'no answer';
      return answer.ok ? { ok: true } : { ok: false, error: String(answer.error).slice(0, 500) };
    } catch {
      return 'no answer';
    }
  }
}
