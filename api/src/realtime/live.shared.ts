/**
 * What every room of the live screens speaks in: the browser's socket and message types, the bus's signals, the one
 * shape of a refusal and the reasons a screen does not stream. Kept apart so the rooms share words, not state.
 */
import type { Namespace, Socket } from 'socket.io';
import type { LiveVideoStream } from '@farm/agent-protocol';
import type { LiveClientMessageName, LiveClientToServer, LiveServerToClient } from '@farm/contracts';
import type { LiveSignal } from './live.bus.ts';
import type { SocketPerson } from './handshake.ts';

/** How long a phone has to answer an input, on the controller's instance and on the phone's. */
export const INPUT_TIMEOUT_MS = 5000;

type LiveSocketData = SocketPerson;
export type LiveSocket = Socket<LiveClientToServer, LiveServerToClient, Record<string, never>, LiveSocketData>;
export type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient, Record<string, never>, LiveSocketData>;

/** One kind of signal on the live bus. */
export type Signal<T extends LiveSignal['t']> = Extract<LiveSignal, { t: T }>;

/** A browser's live message, as its handler takes it. */
export type Message<N extends LiveClientMessageName> = Parameters<LiveClientToServer[N]>[0];

export const refuse = (error: string) => ({ ok: false as const, error });

export const NOT_STREAMING = {
  offline: 'This phone is offline. Its screen shows here as soon as its agent connects.',
  gone: 'The phone disconnected. Its screen shows here again when it is back.',
  unable: "This phone's agent cannot stream its screen. Update farm-agent on it to watch it live; its periodic screenshots still come.",
} as const;

/** One browser watching one phone here, with its usage session and where its frames are. */
export interface Watch {
  socket: LiveSocket;
  deviceId: string;
  usageId: Promise<string | null>;
  inFlight: boolean;
  sentAt: number;
  /** The browser decodes H.264: it is sent packets while the phone streams them. */
  h264: boolean;
  video: WatchVideo;
}

/** Where an H.264 watcher is: the stream it follows, whether it waits for a key frame, what it has not acknowledged. */
export interface WatchVideo {
  follow: LiveVideoStream | null;
  waitingKey: boolean;
  unacked: number;
  /** When each unacknowledged packet was sent, oldest first (acks come in order). */
  sentAt: number[];
  /** Bumped when the backlog is given up, so late acks of before do not count. */
  generation: number;
}
