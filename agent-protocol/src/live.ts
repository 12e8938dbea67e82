/**
 * The live screen and remote control, shared by the phone agent, the server and the browser: what a person's input
 * is, what a frame carries, and the stream's limits. Frames are at most once: a frame that cannot be delivered at
 * once is dropped, never queued; each one carries the last input the phone had applied before it was captured, so
 * the viewer can show input → screen latency.
 */
import { z } from 'zod';

/**
 * What the agent can do beyond protocol 2's tasks, said in its hello: a server streams and controls only agents that
 * can. `ui-server`: the phone's UI is read through the UiAutomator2 server (fast reads, toasts, any Unicode typed).
 * `h264`: the screen can stream as H.264 from scrcpy-server (`live.video`), and input goes over its control socket.
 * `inspect`: the agent answers `inspect.capture` with the screen's UI tree and its frame (the recipe studio).
 * `record`: an input sent with `record` is answered with the element under the finger, read just before it went in.
 * `dryrun`: the agent runs a recipe as a dry run with a trace of every step (`dryrun.ts`), and a failed task's result
 * carries its failed step's trace.
 * `group`: the agent takes `group.act` (group control: one person's input on many phones, group/group.messages.ts).
 * A server ignores names it does not know, so an agent may list newer ones.
 */
export const agentFeatures = ['live', 'control', 'ui-server', 'h264', 'inspect', 'record', 'dryrun', 'group'] as const;
export type AgentFeature = (typeof agentFeatures)[number];

export function isAgentFeature(name: string): name is AgentFeature {
  return (agentFeatures as readonly string[]).includes(name);
}

/** Frames stream at this rate and size unless the server says otherwise. */
export const LIVE_DEFAULTS = { fps: 8, maxSide: 720, quality: 60 } as const;
/** A frame is a JPEG of at most this many bytes; larger ones are dropped. */
export const MAX_FRAME_BYTES = 400 * 1024;
/** A phone's frames are never delivered faster than this, whatever the agent sends (the stream's own budget). */
export const MAX_LIVE_FPS = 15;
/** Nor more bytes a second than this per watched phone. */
export const MAX_LIVE_BYTES_PER_SECOND = 2_500_000;

/** A point on the screen as a fraction of its width and height (0..1), so the viewer needs no phone resolution. */
const fraction = z.number().min(0).max(1);
const point = z.object({ x: fraction, y: fraction });

/** Keys a person may press from the viewer. */
export const liveKeys = ['back', 'home', 'recents', 'power', 'volume_up', 'volume_down', 'enter', 'delete'] as const;
export type LiveKey = (typeof liveKeys)[number];

export const liveInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tap'), x: fraction, y: fraction }),
  z.object({ kind: z.literal('long_press'), x: fraction, y: fraction, durationMs: z.number().int().min(300).max(5000).default(800) }),
  z.object({ kind: z.literal('swipe'), from: point, to: point, durationMs: z.number().int().min(20).max(5000).default(250) }),
  /** A wheel turn over a point: dy > 0 scrolls the content up (the finger moves up), as a page does. */
  z.object({ kind: z.literal('scroll'), x: fraction, y: fraction, dy: z.number().min(-1).max(1) }),
  z.object({ kind: z.literal('text'), text: z.string().min(1).max(1000) }),
  z.object({ kind: z.literal('key'), key: z.enum(liveKeys) }),
  z.object({ kind: z.literal('rotate') }),
]);
export type LiveInput = z.infer<typeof liveInput>;

/**
 * The two H.264 streams a phone may serve at once: `control` (up to 1080 px, 60 fps) while someone controls it, and
 * `watch` (up to 480 px, 15 fps) for those who only look. `jpeg` names the JPEG frames (minicap or screencap).
 */
export const liveVideoStreams = ['control', 'watch'] as const;
export type LiveVideoStream = (typeof liveVideoStreams)[number];
export const liveStreamNames = [...liveVideoStreams, 'jpeg'] as const;
export type LiveStreamName = (typeof liveStreamNames)[number];

/**
 * The stream's settings the server gives the agent when someone starts watching. `codec: 'h264'` with a `stream`
 * asks an agent that listed `h264` for that scrcpy stream (it falls back to JPEG frames by itself when the phone
 * cannot); without them, JPEG frames as protocol 1 agents know them.
 */
export const liveStart = z.object({
  fps: z.number().int().min(1).max(MAX_LIVE_FPS),
  maxSide: z.number().int().min(160).max(1920),
  quality: z.number().int().min(10).max(95),
  codec: z.enum(['jpeg', 'h264']).optional(),
  stream: z.enum(liveVideoStreams).optional(),
});
export type LiveStart = z.infer<typeof liveStart>;

/** Stop one stream (`stream`), or every stream of the phone (none named: what older agents understand). */
export const liveStop = z.object({ stream: z.enum(liveStreamNames).optional() });
export type LiveStop = z.infer<typeof liveStop>;

/**
 * A packet of H.264 is at most this large (under Socket.IO's 1 MB message limit); the host drops a larger one and its
 * watchers skip to the next key frame (a 1080 px key frame at 6 Mbps is a few hundred KB).
 */
export const MAX_VIDEO_PACKET_BYTES = 900 * 1024;
/** Nor more bytes a second than this per H.264 stream (the control stream runs at about 6 Mbps). */
export const MAX_VIDEO_BYTES_PER_SECOND = 2_000_000;

const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, { message: 'must be binary' });

/** One frame, from the agent (binary over Socket.IO). */
export const liveFrame = z.object({
  seq: z.number().int().min(0),
  mime: z.literal('image/jpeg'),
  data: bytes.refine((value) => value.byteLength > 0 && value.byteLength <= MAX_FRAME_BYTES, { message: `must be 1 to ${MAX_FRAME_BYTES} bytes` }),
  width: z.number().int().min(1).max(4096),
  height: z.number().int().min(1).max(4096),
  /** How the phone captured it: minicap, screencap, or the simulator. */
  source: z.enum(['minicap', 'screencap', 'sim']),
  capturedAt: z.string().max(40),
  /** The last input the phone had applied before this frame was captured. */
  inputSeq: z.number().int().min(0).optional(),
});
export type LiveFrame = z.infer<typeof liveFrame>;

/**
 * One H.264 packet of a phone's screen, relayed as scrcpy-server made it and never decoded on the way: the codec
 * configuration (SPS and PPS, `config`), or one picture (`keyFrame` when it starts a group of pictures), Annex B.
 * `width` × `height` is the picture's size as last configured; `inputSeq` the last input applied before the host had it.
 */
export const liveVideo = z.object({
  stream: z.enum(liveVideoStreams),
  seq: z.number().int().min(0),
  config: z.boolean(),
  keyFrame: z.boolean(),
  ptsUs: z.number().int().min(0).nullable(),
  data: bytes.refine((value) => value.byteLength > 0 && value.byteLength <= MAX_VIDEO_PACKET_BYTES, {
    message: `must be 1 to ${MAX_VIDEO_PACKET_BYTES} bytes`,
  }),
  width: z.number().int().min(1).max(8192),
  height: z.number().int().min(1).max(8192),
  inputSeq: z.number().int().min(0).optional(),
});
export type LiveVideo = z.infer<typeof liveVideo>;

/** Where a normalized point falls on a screen of this size, in its pixels. */
export function toPixels(screen: { width: number; height: number }, at: { x: number; y: number }): { x: number; y: number } {
  return { x: Math.min(screen.width - 1, Math.round(at.x * screen.width)), y: Math.min(screen.height - 1, Math.round(at.y * screen.height)) };
}
