/**
 * The browser's live screen and remote control, on the Socket.IO namespace `/live` (same session cookie as `/`).
 * Frames travel only here, one watcher at a time and never through the persisted stream of console events.
 * Who controls a phone is the device's `controlledById` / `controlledByName`, pushed on `/` like any device change.
 */
import { z } from 'zod';
import type { RecordedTarget, UiCapture } from '@farm/agent-protocol/inspect';
import { liveInput, type liveFrame, type LiveVideoStream } from '@farm/agent-protocol/live';
import { groupAction, type GroupActResult } from '@farm/agent-protocol/group';
import { id, idFilter, isoTime, nullableTime } from './common.ts';
import { analyticsWindowQuery } from './manager.contract.ts';

export const LIVE_NAMESPACE = '/live';

const onDevice = z.object({ deviceId: id });

/** The most phones a group control session holds. */
export const GROUP_MAX_PHONES = 30;

export const liveClientMessages = {
  /** Start watching a phone's screen; `h264`: this browser decodes H.264 (WebCodecs), so it is sent packets, not JPEGs. */
  'live.watch': onDevice.extend({ h264: z.boolean().optional() }),
  'live.unwatch': onDevice,
  /** Take control; an operator may take it from someone else with `takeOver`. */
  'live.control': onDevice.extend({ takeOver: z.boolean().optional() }),
  /** Hand the phone back: its tasks run again. */
  'live.release': onDevice,
  /** A tap, swipe, scroll, text or key, in order by seq; `record`: answer a tap with the element under it (Record). */
  'live.input': onDevice.extend({ seq: z.number().int().min(1), input: liveInput, record: z.boolean().optional() }),
  /** "Still using it": answers the idle prompt. */
  'live.keep': onDevice,
  /** A watcher asks whoever controls the phone to hand it over. */
  'live.ask': onDevice,
  /** The controller hands the phone to the person who asked. */
  'live.handover': onDevice.extend({ userId: id }),
  /** The screen's UI tree and the frame it belongs to (the recipe studio's Inspect): whoever may control the phone. */
  'live.inspect': onDevice,
  /**
   * Group control (operators): hold these phones with live control's rules (watch each first), one of them the leader.
   * Answered with each phone's state: held, or why not (busy with a task, controlled by someone else, offline).
   */
  'live.group.start': z
    .object({ deviceIds: z.array(id).min(1).max(GROUP_MAX_PHONES), leaderId: id })
    .refine((body) => new Set(body.deviceIds).size === body.deviceIds.length, { message: 'Each phone is listed once', path: ['deviceIds'] })
    .refine((body) => body.deviceIds.includes(body.leaderId), { message: 'The leader is one of the group’s phones', path: ['leaderId'] }),
  /** Another phone of the group leads (its screen is the large one; its finger is resolved to each follower). */
  'live.group.leader': z.object({ leaderId: id }),
  /** A phone joins the group (held as at the start), or leaves it (released). */
  'live.group.add': onDevice,
  'live.group.drop': onDevice,
  /**
   * One action of the person on the leader, for every phone of the group (or `only` these: "Retry on the ones that
   * missed"). At most 2 a second; each phone's result comes as `live.group.result` as it is known, and the answer
   * carries them all with the action's summary line.
   */
  'live.group.act': z.object({ action: groupAction, only: z.array(id).min(1).max(GROUP_MAX_PHONES).optional() }),
  /** Stop all: every phone of the group is released. */
  'live.group.stop': z.object({}).strict(),
} as const;

/** Group control's apps: the built-in allowlist (each with why it is there) and the packages operators added. */
export const groupControlApps = z.object({
  builtIn: z.array(z.object({ package: z.string(), name: z.string() })),
  added: z.array(z.string()),
});
export type GroupControlApps = z.infer<typeof groupControlApps>;

/** The packages operators add to group control's allowlist (the whole list; each checked against the refused ones). */
export const groupControlAppsBody = z.object({
  added: z
    .array(
      z
        .string()
        .trim()
        .max(200)
        .regex(/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/, 'Write a package name, such as com.example.app'),
    )
    .max(200, 'At most 200 packages'),
});
export type GroupControlAppsBody = z.infer<typeof groupControlAppsBody>;

/** One phone of a group control session. */
export interface LiveGroupPhone {
  deviceId: string;
  name: string;
  /** Held for the session (this person controls it now). */
  held: boolean;
  leader: boolean;
  /** Why it is not held: "Busy", "Offline", someone else controls it… in a sentence. */
  reason?: string;
  /** Not held because this person controls it: the page offers to ask them for it (live control's handover). */
  controlledBy?: string;
}

/** The session as the page draws it. */
export interface LiveGroupAnswer {
  leaderId: string;
  phones: LiveGroupPhone[];
}

/** One phone's result of one action. */
export interface LiveGroupResult {
  actionId: string;
  deviceId: string;
  result: GroupActResult;
}

/** One action's results: every phone's, and the summary line ("Back: Done on 12, Not found on 2"). */
export interface LiveGroupActAnswer {
  actionId: string;
  summary: string;
  results: LiveGroupResult[];
  /** The leader found nothing under the finger that names itself: the person may tap by point instead. */
  offerPoint?: boolean;
}
export type LiveClientMessageName = keyof typeof liveClientMessages;
export type LiveClientMessage<N extends LiveClientMessageName> = z.infer<(typeof liveClientMessages)[N]>;

/** Every answer: ok with what the call gives, or why not in a sentence. */
export type LiveAnswer<T extends object = object> = ({ ok: true } & T) | { ok: false; error: string };

export interface LiveWatchAnswer {
  /** Frames are coming (or will as soon as the phone's agent sends them). */
  streaming: boolean;
  /** Why there is no stream, when there is none. */
  reason?: string;
  /** Whether this person may take control of this phone. */
  canControl: boolean;
}

/** A frame as the browser gets it. */
export interface LiveFrameOut {
  deviceId: string;
  seq: number;
  width: number;
  height: number;
  source: z.infer<typeof liveFrame>['source'];
  capturedAt: string;
  inputSeq?: number;
  data: ArrayBuffer | Uint8Array;
}

/**
 * An H.264 packet as the browser gets it (watchers that said `h264`): the configuration or one picture of the
 * stream the server chose for this watcher (`control` for whoever controls the phone, else `watch`; the one that runs
 * when the phone serves only one). Acknowledge each; a watcher that falls behind is skipped to the next key frame.
 */
export interface LiveVideoOut {
  deviceId: string;
  codec: 'h264';
  stream: LiveVideoStream;
  seq: number;
  config: boolean;
  keyFrame: boolean;
  ptsUs: number | null;
  width: number;
  height: number;
  inputSeq?: number;
  data: ArrayBuffer | Uint8Array;
}

/** An input applied: how long the phone took, and (recording, agents that can) the element under the finger. */
export interface LiveInputAnswer {
  latencyMs: number;
  recorded?: RecordedTarget;
}

/** A capture as the browser gets it: `UiCapture`, the frame's bytes binary. */
export type LiveCaptureOut = Omit<UiCapture, 'frame'> & { frame: Omit<UiCapture['frame'], 'data'> & { data: ArrayBuffer | Uint8Array } };

export type LiveClientToServer = {
  'live.watch': (message: LiveClientMessage<'live.watch'>, ack: (answer: LiveAnswer<LiveWatchAnswer>) => void) => void;
  'live.unwatch': (message: LiveClientMessage<'live.unwatch'>, ack?: (answer: LiveAnswer) => void) => void;
  'live.control': (message: LiveClientMessage<'live.control'>, ack: (answer: LiveAnswer) => void) => void;
  'live.release': (message: LiveClientMessage<'live.release'>, ack?: (answer: LiveAnswer) => void) => void;
  'live.input': (message: LiveClientMessage<'live.input'>, ack: (answer: LiveAnswer<LiveInputAnswer>) => void) => void;
  'live.keep': (message: LiveClientMessage<'live.keep'>, ack?: (answer: LiveAnswer) => void) => void;
  'live.ask': (message: LiveClientMessage<'live.ask'>, ack: (answer: LiveAnswer) => void) => void;
  'live.handover': (message: LiveClientMessage<'live.handover'>, ack: (answer: LiveAnswer) => void) => void;
  'live.inspect': (message: LiveClientMessage<'live.inspect'>, ack: (answer: LiveAnswer<{ capture: LiveCaptureOut }>) => void) => void;
  'live.group.start': (message: LiveClientMessage<'live.group.start'>, ack: (answer: LiveAnswer<LiveGroupAnswer>) => void) => void;
  'live.group.leader': (message: LiveClientMessage<'live.group.leader'>, ack: (answer: LiveAnswer<LiveGroupAnswer>) => void) => void;
  'live.group.add': (message: LiveClientMessage<'live.group.add'>, ack: (answer: LiveAnswer<LiveGroupAnswer>) => void) => void;
  'live.group.drop': (message: LiveClientMessage<'live.group.drop'>, ack: (answer: LiveAnswer<LiveGroupAnswer>) => void) => void;
  'live.group.act': (message: LiveClientMessage<'live.group.act'>, ack: (answer: LiveAnswer<LiveGroupActAnswer>) => void) => void;
  'live.group.stop': (message: LiveClientMessage<'live.group.stop'>, ack?: (answer: LiveAnswer) => void) => void;
};

export type LiveServerToClient = {
  /** Acknowledge each frame: the next one comes only then (a slow viewer gets fewer frames, never late ones). */
  'live.frame': (frame: LiveFrameOut, ack: () => void) => void;
  /** An H.264 packet, in order; acknowledge each (the server counts what this watcher has not taken yet). */
  'live.video': (packet: LiveVideoOut, ack: () => void) => void;
  /** The stream started or stopped on the phone's side (it went offline, its agent cannot stream). */
  'live.status': (status: { deviceId: string; streaming: boolean; reason?: string }) => void;
  /** Nothing was done on a controlled phone for a while: it is released in `releaseInMs` unless kept. */
  'live.idle': (prompt: { deviceId: string; deviceName: string; releaseInMs: number }) => void;
  /** Someone asks the controller to hand the phone over. */
  'live.asked': (ask: { deviceId: string; userId: string; name: string }) => void;
  /** This person's control ended (released for idleness, taken over, handed on). */
  'live.released': (released: { deviceId: string; reason: string }) => void;
  /** One phone's result of a group action, as soon as it is known. */
  'live.group.result': (result: LiveGroupResult) => void;
  /** The group control session changed without being asked (a phone released, went offline): its state now. */
  'live.group.state': (state: LiveGroupAnswer & { reason?: string }) => void;
};

// ---- Device usage: who watched or controlled which phone, for how long ------------------------------------------

export const usageModeValues = ['watch', 'control'] as const;
export const usageMode = z.enum(usageModeValues);
export type UsageMode = z.infer<typeof usageMode>;

/** One watch or control session. Open sessions count up to now. */
export const usageSession = z.object({
  id,
  deviceId: id,
  deviceName: z.string(),
  userId: id.nullable(),
  userName: z.string(),
  mode: usageMode,
  startedAt: isoTime,
  endedAt: nullableTime,
  seconds: z.number().int(),
  /** Why it ended: released, idle, taken over, handed over, disconnected, stopped. */
  endReason: z.string().nullable(),
});
export type UsageSession = z.infer<typeof usageSession>;

/** The report's window is analytics' (a range, or from–to days); narrowed to a phone or a person when given. */
export const deviceUsageQuery = z.intersection(analyticsWindowQuery, z.object({ deviceId: idFilter.optional(), userId: idFilter.optional() }));
export type DeviceUsageQuery = z.input<typeof deviceUsageQuery>;

const usageFigures = z.object({ watchedSeconds: z.number().int(), controlledSeconds: z.number().int(), sessions: z.number().int() });

export const deviceUsageReport = z.object({
  from: isoTime,
  to: isoTime,
  timeZone: z.string(),
  totals: usageFigures,
  /** One row per day, person and phone, newest day first. */
  days: z.array(usageFigures.extend({ day: z.string(), userId: id.nullable(), userName: z.string(), deviceId: id, deviceName: z.string() })),
  /** The latest sessions in the window (at most 100), newest first. */
  sessions: z.array(usageSession),
});
export type DeviceUsageReport = z.infer<typeof deviceUsageReport>;
