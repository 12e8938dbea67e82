/**
 * The shapes the browser gateway (realtime/gateway.ts), the agent namespace (agents/) and the live screens
 * (realtime/live.ts) share. A leaf: it imports no file of the api, so each room can name these without importing
 * the room that builds them.
 */
import type { Server } from 'socket.io';
import type { Ack, GroupActMessage, LiveFrame, LiveInput, LiveStart, LiveStreamName, LiveVideo, LiveVideoStream } from '@farm/agent-protocol';
import type { Role, ServerToClientEvents } from '@farm/contracts';

/** A signed-in person's socket, or a wall screen's (read-only, through a revocable link). */
export type SocketData =
  | { kind: 'person'; userId: string; sessionId: string; workspaceId: string; role: Role }
  | { kind: 'wall'; wallLinkId: string; workspaceId: string };

export type RealtimeServer = Server<Record<string, never>, ServerToClientEvents, Record<string, never>, SocketData>;

/** A phone's agent connected to this instance, as the live screen sees it. */
export interface LivePhone {
  deviceId: string;
  workspaceId: string;
  socketId: string;
  features: ReadonlySet<string>;
  start(settings: LiveStart): void;
  /** Stops one stream, or all of them. */
  stop(stream?: LiveStreamName): void;
  /** Asks an H.264 stream for a key frame now. */
  keyFrame(stream: LiveVideoStream): void;
  input(message: { seq: number; input: LiveInput; record?: boolean }, timeoutMs: number): Promise<Ack>;
  /** The screen's UI tree and frame (agents that listed `inspect`); the answer is checked by the caller. */
  capture(timeoutMs: number): Promise<Ack>;
  /** One group control action (agents that listed `group`); the answer is checked by the caller. */
  group(message: GroupActMessage, timeoutMs: number): Promise<Ack>;
}

export interface LiveHub {
  phoneReady(phone: LivePhone): void;
  phoneGone(deviceId: string, socketId: string): void;
  /** A frame from a phone connected here: passed on if anyone watches and it fits the stream's budget. */
  frame(deviceId: string, frame: LiveFrame): Ack;
  /** An H.264 packet from a phone connected here: relayed to its watchers, never decoded. */
  video(deviceId: string, packet: LiveVideo): Ack;
  close(): Promise<void>;
}
