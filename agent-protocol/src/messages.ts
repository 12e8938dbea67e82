/**
 * Every message between a phone agent and the server, on the Socket.IO namespace `/agent`.
 * The agent authenticates at handshake with its device credential (`auth: { token }`) and speaks
 * only for its own device. Both sides parse what they receive with these schemas.
 *
 * Two protocols are spoken. Protocol 1 agents get the v1 `task.dispatch` (work described in `description`) and
 * nothing else new; their messages are accepted unchanged. Protocol 2 agents get typed work, `task.cancel`, the
 * heartbeat interval in the hello answer, and must keep a journal (see README.md: exactly once).
 */
import { z } from 'zod';
import { dryRunAgentMessages, dryRunServerMessages, failureTrace, traceFrame } from './dryrun.ts';
import { failureCode } from './failures.ts';
import { fleetHostMessages, hostFeatures, type HostFeature } from './fleet/fleet.messages.ts';
import { groupActMessage } from './group/group.messages.ts';
import { isAgentFeature, liveFrame, liveInput, liveStart, liveStop, liveVideo, liveVideoStreams } from './live.ts';
import { handOverKinds, phoneCommands, taskTypes, uiReaderKinds } from './values.ts';
import { engagementReport, taskWork } from './work.ts';

export const AGENT_NAMESPACE = '/agent';
/** The newest protocol; the server also speaks every one listed in SUPPORTED_PROTOCOLS. */
export const PROTOCOL_VERSION = 2;
export const SUPPORTED_PROTOCOLS = [1, 2] as const;
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOLS)[number];

const id = z.string().min(1).max(64);
const attempt = z.number().int().min(1).max(1_000_000);
const battery = z.number().int().min(0).max(100);

/** Screenshots travel as base64 JPEG or PNG of at most this many bytes once decoded. */
export const MAX_SCREENSHOT_BYTES = 512 * 1024;

/** The recipe a run followed: its id and version. */
export const recipeRef = z.object({ id: z.string().max(100), version: z.number().int().min(0).max(1_000_000) });
/**
 * The app a run drove, as the phone's pre-flight read it; `locale`, the UI language it showed (its own on Android
 * 13+, else the phone's), where the pre-flight read one.
 */
export const appRef = z.object({ package: z.string().max(200), version: z.string().max(40), locale: z.string().max(35).optional() });

/** Why an attempt failed (protocol 2): a code from the closed list, the phone's words, and whether to try again. */
export const failure = z.object({
  code: failureCode,
  message: z.string().max(2000).optional(),
  retryable: z.boolean().optional(),
  /** The recipe that ran and the app it drove, where the run got that far (the server's breaker counts them). */
  recipe: recipeRef.optional(),
  app: appRef.optional(),
  /** The failed step as the phone saw it: the selector that missed and the tree (agents that listed `dryrun`). */
  trace: failureTrace.optional(),
});
export type Failure = z.infer<typeof failure>;

/**
 * The recipe run behind a result, completed or failed: which recipe, the app it drove (once the pre-flight read it)
 * and how long the run took. The server counts it on the recipe health board; older agents say nothing.
 */
export const recipeRun = z.object({
  recipe: recipeRef,
  app: appRef.optional(),
  durationMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400_000),
});
export type RecipeRun = z.infer<typeof recipeRun>;

/** Which reader reads a phone's UI: the UiAutomator2 server, `uiautomator dump`, or the simulator. */
export const uiReaderInfo = z.object({
  kind: z.enum(uiReaderKinds),
  version: z.string().max(40).nullable(),
  seesToasts: z.boolean(),
});

/** An app recipes drive, as the phone has it: its version (`dumpsys package PKG`'s versionName), or null when not installed. */
export const installedApp = z.object({
  package: z
    .string()
    .regex(/^[\w.]+$/)
    .max(200),
  version: z.string().max(60).nullable(),
});
export type InstalledApp = z.infer<typeof installedApp>;

/** Why a phone's host waits for it: adb lists it `offline` (same transport), or it left adb's list (`gone`). */
export const phoneAwayReasons = ['offline', 'gone'] as const;

/** A handle as Instagram and TikTok allow them: letters, digits, "." and "_", at most 30, without @. */
export const socialHandle = z.string().regex(/^[A-Za-z0-9._]{1,30}$/, 'A handle: letters, digits, . and _ (at most 30), without @.');

/** See `task.handover`. */
export const taskHandOver = z.object({
  taskId: id,
  attempt,
  index: z.number().int().min(0).max(10_000),
  kind: z.enum(handOverKinds),
  author: socialHandle,
  link: z
    .url({ protocol: /^https$/ })
    .max(500)
    .optional(),
  frame: traceFrame.optional(),
});
export type TaskHandOver = z.infer<typeof taskHandOver>;

export const agentMessages = {
  /** First message after connecting: who the phone is, how it is, and which protocol it speaks. */
  'agent.hello': z.object({
    protocol: z.number().int(),
    agentVersion: z.string().max(40),
    model: z.string().max(100).optional(),
    androidVersion: z.string().max(20).optional(),
    serial: z.string().max(100).optional(),
    battery,
    charging: z.boolean().optional(),
    screenOn: z.boolean().optional(),
    /**
     * What it can do beyond tasks: stream its screen live, take a person's input, read the UI through the UI server.
     * Older agents say nothing. Names this server does not know are dropped, not refused, so an agent newer than
     * its server still connects.
     */
    features: z
      .array(z.string().max(40))
      .max(20)
      .transform((names) => [...new Set(names.filter(isAgentFeature))])
      .optional(),
    /** Which reader reads this phone's UI and its version (the console shows it; toast guards need `seesToasts`). */
    uiReader: uiReaderInfo.optional(),
    /** The versions of the apps recipes drive (Instagram, TikTok) installed on the phone; older agents say nothing. */
    apps: z.array(installedApp).max(20).optional(),
    /** Its farm host holds its work now (around an adb server restart, see `agent.hold`); older agents say nothing. */
    holding: z.boolean().optional(),
  }),
  /**
   * Its farm host holds (or lets go of) this phone's work: while held the server gives it no new task. Sent at once,
   * on the phone's own connection, so it reaches the server before any result that follows it; servers that predate
   * it ignore it.
   */
  'agent.hold': z.object({ holding: z.boolean() }),
  /**
   * Its farm host lost the phone's transport (adb lists it `offline`, or not at all) and waits for it to come back: the
   * console shows it "Reconnecting" until `phone.back`, or offline once the host gives up and closes this connection.
   * Servers that predate it ignore it.
   */
  'phone.away': z.object({ reason: z.enum(phoneAwayReasons) }),
  /**
   * The phone came back: how long it was away, on the same transport or a new one (it left adb's list), whether it
   * booted meanwhile, and what it runs now (its UI reader and app versions, as a hello says them: they may have
   * changed). Sent on the connection that waited, or after the hello of a new one when the host had given up.
   */
  'phone.back': z.object({
    awayMs: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400_000),
    transport: z.enum(['same', 'new']),
    rebooted: z.boolean(),
    uiReader: uiReaderInfo.optional(),
    apps: z.array(installedApp).max(20).optional(),
  }),
  /** Every few seconds: liveness, battery and what the phone is doing. */
  'agent.heartbeat': z.object({
    battery,
    status: z.enum(['online', 'busy', 'idle']),
    charging: z.boolean().optional(),
    screenOn: z.boolean().optional(),
    foregroundApp: z.string().max(200).optional(),
  }),
  'agent.screenshot': z.object({
    mime: z.enum(['image/jpeg', 'image/png']),
    data: z.string().max(Math.ceil((MAX_SCREENSHOT_BYTES * 4) / 3) + 4),
    capturedAt: z.string().max(40).optional(),
  }),
  /** The phone took the task of this attempt. */
  'task.ack': z.object({ taskId: id, attempt }),
  /** Work goes on: renews the attempt's lease. */
  'task.progress': z.object({
    taskId: id,
    attempt,
    percent: z.number().min(0).max(100),
    note: z.string().max(500).optional(),
    step: z.string().max(200).optional(),
  }),
  /** The end of an attempt; repeating it changes nothing. Protocol 1 sends `error`; protocol 2 sends `failure`. */
  'task.result': z.object({
    taskId: id,
    attempt,
    status: z.enum(['completed', 'failed']),
    error: z.string().max(2000).optional(),
    failure: failure.optional(),
    engagement: engagementReport.optional(),
    finishedAt: z.string().max(40).optional(),
    /** The recipe run this attempt was, when a recipe ran (either status). */
    run: recipeRun.optional(),
  }),
  /**
   * A post the run handed to a person (a comment a VA writes), sent as the run reaches it: the author's handle, the
   * post's address when the phone knows it, and the frame. One per `index` of the attempt: sent twice, it makes one VA
   * task. Additive: older agents never send it, and a server that predates it ignores it.
   */
  'task.handover': taskHandOver,
  /** A frame of the live screen, while the server asks for them; answered with whether watchers are slow. */
  'live.frame': liveFrame,
  /** An H.264 packet of the screen (agents that listed `h264`), answered at once; relayed, never decoded. */
  'live.video': liveVideo,
  /** A dry run's step traces and its end (agents that listed `dryrun`, see dryrun.ts). */
  ...dryRunAgentMessages,
} as const;

/** The v1 dispatch: what protocol 1 agents understand. */
export const taskDispatchV1 = z.object({
  taskId: id,
  attempt,
  type: z.enum(taskTypes),
  title: z.string(),
  description: z.string().nullable(),
  deadline: z.string().nullable(),
});

/** The v2 dispatch: typed work, and how long the phone has to ack it. */
export const taskDispatchV2 = taskDispatchV1.omit({ description: true }).extend({
  protocol: z.literal(2),
  work: taskWork,
  ackWithinMs: z.number().int().min(1),
});

export const serverMessages = {
  /** Work for the phone: run it, ack it, report its result for this attempt. */
  'task.dispatch': z.union([taskDispatchV2, taskDispatchV1]),
  /** Protocol 2: drop this attempt (what it was for changed, or its lease ended); report nothing more for it. */
  'task.cancel': z.object({ taskId: id, attempt, code: failureCode, reason: z.string().max(500) }),
  /** An operator's command to the phone. */
  command: z.object({ name: z.enum(phoneCommands) }),
  /** Someone watches: stream the screen at these settings (sent again when they change). */
  'live.start': liveStart,
  /** Nobody watches any more: stop streaming (one stream when named, else all of them). */
  'live.stop': liveStop,
  /** A watcher joined an H.264 stream: send a key frame now (scrcpy's reset video), not at the next interval. */
  'live.keyframe': z.object({ stream: z.enum(liveVideoStreams) }),
  /**
   * A person's input, in order by seq; the agent answers once it has applied it. With `record` (agents that listed
   * `record`), a tap or long press is answered with `recorded`: the element under the finger, read before it went in.
   */
  'live.input': z.object({ seq: z.number().int().min(1), input: liveInput, record: z.boolean().optional() }),
  /** Agents that listed `inspect`: answer with the screen's UI tree and the frame it belongs to (`uiCaptureSchema`). */
  'inspect.capture': z.object({}),
  /** Agents that listed `dryrun`: run a recipe as a dry run, go on step by step, stop (see dryrun.ts). */
  ...dryRunServerMessages,
  /**
   * Agents that listed `group`: one action of group control (group/group.messages.ts), answered with this phone's
   * result (`{ ok: true, result: GroupActResult }`). Others are never sent it: the server shows them "Not supported".
   */
  'group.act': groupActMessage,
} as const;

/**
 * A farm host opens one control connection (`auth: { hostToken }`) and one connection per phone it sees
 * (`auth: { hostToken, serial, model?, androidVersion? }`); each phone's connection then speaks the messages above
 * for that phone, and closes when the phone is unplugged.
 */
export const hostMessages = {
  'host.hello': z.object({
    agentVersion: z.string().max(40),
    hostname: z.string().max(200).optional(),
    backend: z.enum(['adb', 'sim']),
    /** Phones it sees now. */
    phones: z.number().int().min(0).max(10_000).optional(),
    /** What it can do beyond phones and fleet health (`apps`: install apps; `phone-settings`: set phone settings); unknown names are dropped, older hosts say nothing. */
    features: z
      .array(z.string().max(40))
      .max(20)
      .transform((names) => names.filter((name): name is HostFeature => (hostFeatures as readonly string[]).includes(name)))
      .optional(),
  }),
  /** Phone health, vitals, recovery and the USB bus (`fleet/fleet.messages.ts`); servers that predate them ignore them. */
  ...fleetHostMessages,
} as const;
export type HostMessageName = keyof typeof hostMessages;
export type HostMessage<N extends HostMessageName> = z.infer<(typeof hostMessages)[N]>;
export type HostToServer = { [N in HostMessageName]: (message: HostMessage<N>, ack?: (answer: Ack) => void) => void };

/** What the server answers a hello with: protocol 2 agents learn the heartbeat interval here. */
export const helloAnswer = z.union([
  z.object({ ok: z.literal(true), protocol: z.number().int(), heartbeatMs: z.number().int().min(100), deviceId: id, deviceName: z.string() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type HelloAnswer = z.infer<typeof helloAnswer>;

export type AgentMessageName = keyof typeof agentMessages;
export type AgentMessage<N extends AgentMessageName> = z.infer<(typeof agentMessages)[N]>;
export type ServerMessageName = keyof typeof serverMessages;
export type ServerMessage<N extends ServerMessageName> = z.infer<(typeof serverMessages)[N]>;
export type TaskDispatchV1 = z.infer<typeof taskDispatchV1>;
export type TaskDispatchV2 = z.infer<typeof taskDispatchV2>;

/** Acknowledgement every agent message gets back: ok (a hello's carries more), or why it was refused. */
/** `retryAfterMs`: the phone sends too much of something (screenshots) and is told to wait this long before the next. */
export type Ack = { ok: true; [extra: string]: unknown } | { ok: false; error: string; retryAfterMs?: number };

export type AgentToServer = { [N in AgentMessageName]: (message: AgentMessage<N>, ack?: (answer: Ack) => void) => void };
type AnsweredServerMessage = 'live.input' | 'inspect.capture' | 'dryrun.start' | 'group.act';
export type ServerToAgent = { [N in Exclude<ServerMessageName, AnsweredServerMessage>]: (message: ServerMessage<N>) => void } & {
  [N in AnsweredServerMessage]: (message: ServerMessage<N>, ack: (answer: Ack) => void) => void;
};
