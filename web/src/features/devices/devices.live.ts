/**
 * A phone's live screen and remote control over the `/live` socket: watching starts with the view and stops
 * with it, each frame is acknowledged only once it is on screen (so a slow viewer is sent fewer frames, never
 * late ones), and control moves between people as the server decides.
 */
import type { LiveAnswer, LiveCaptureOut, LiveFrameOut, LiveInputAnswer, LiveVideoOut } from '@farm/contracts';
import type { LiveInput } from '@farm/agent-protocol/live';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { openLiveSocket, type LiveSocket } from '../../app/realtime/socket';
import { watchConnection, type ConnectionStatus } from '../../shared/realtime/connection';
import { errorToast, toast } from '../../shared/toast';
import { canDecodeH264, H264Player, type DrawnPicture } from './devices.video';
import { toastAskSent } from './devices.ask';

/** Frames per second are counted over this window. */
export const FPS_WINDOW_MS = 2000;
/** A pointer that moves further than this between press and release is a swipe, not a tap. */
export const DRAG_THRESHOLD_PX = 8;
/** A press held this long without moving is a long press. */
export const LONG_PRESS_MS = 600;
/** At most one wheel step is sent this often. */
export const WHEEL_THROTTLE_MS = 150;
/** How far one wheel step scrolls, as a fraction of the screen's height. */
export const WHEEL_STEP = 0.3;
/** Keystrokes closer together than this are sent as one piece of text. */
export const TYPING_BATCH_MS = 100;

/** Counts frames drawn over the last two seconds. */
export class FrameRate {
  private readonly drawn: number[] = [];

  constructor(private readonly windowMs = FPS_WINDOW_MS) {}

  add(at: number): void {
    this.drawn.push(at);
    this.trim(at);
  }

  perSecond(now: number): number {
    this.trim(now);
    return Math.round((this.drawn.length * 1000) / this.windowMs);
  }

  private trim(now: number): void {
    while (this.drawn.length > 0 && (this.drawn[0] ?? now) <= now - this.windowMs) this.drawn.shift();
  }
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** Where a pointer is on the shown screen, as fractions of its width and height (0..1). */
export function fractionAt(rect: Pick<DOMRect, 'left' | 'top' | 'width' | 'height'>, clientX: number, clientY: number): { x: number; y: number } {
  const round = (value: number) => Math.round(value * 10_000) / 10_000;
  return {
    x: rect.width > 0 ? round(clamp((clientX - rect.left) / rect.width, 0, 1)) : 0,
    y: rect.height > 0 ? round(clamp((clientY - rect.top) / rect.height, 0, 1)) : 0,
  };
}

export interface PointerPress {
  clientX: number;
  clientY: number;
  at: number;
}

/** What a press and its release on the screen mean on the phone: a tap, a long press or a swipe. */
export function gestureOf(rect: Pick<DOMRect, 'left' | 'top' | 'width' | 'height'>, press: PointerPress, release: PointerPress): LiveInput {
  const from = fractionAt(rect, press.clientX, press.clientY);
  const heldMs = release.at - press.at;
  if (Math.hypot(release.clientX - press.clientX, release.clientY - press.clientY) > DRAG_THRESHOLD_PX) {
    return { kind: 'swipe', from, to: fractionAt(rect, release.clientX, release.clientY), durationMs: Math.round(clamp(heldMs, 20, 5000)) };
  }
  if (heldMs >= LONG_PRESS_MS) return { kind: 'long_press', ...from, durationMs: Math.round(clamp(heldMs, 300, 5000)) };
  return { kind: 'tap', ...from };
}

/** One wheel step: the content moves up when the wheel turns down, as a page does. */
export function wheelStep(deltaY: number): number {
  return Math.sign(deltaY) * WHEEL_STEP;
}

export interface LiveFrameShown {
  url: string;
  width: number;
  height: number;
  source: LiveFrameOut['source'];
  seq: number;
  inputSeq: number | undefined;
}

/** How the picture reaches this browser: H.264 decoded here, or JPEG frames (and how the phone captured them). */
export type LivePath = { kind: 'h264' } | { kind: 'jpeg'; source: LiveFrameOut['source'] };

/** The Live tab's words for the path. */
export function pathLabel(path: LivePath | null): string | null {
  if (!path) return null;
  if (path.kind === 'h264') return 'H.264';
  return path.source === 'sim' ? 'JPEG (simulated)' : `JPEG (${path.source})`;
}

/**
 * Inputs sent and not yet seen on screen: the first picture showing one (its `inputSeq` at or past it) gives its
 * latency, from the browser's input to that picture drawn here.
 */
export class InputLatency {
  private readonly sent = new Map<number, number>();

  sentAt(seq: number, at: number): void {
    this.sent.set(seq, at);
    if (this.sent.size > 50) this.sent.delete(this.sent.keys().next().value as number);
  }

  /** The latency of the newest input this picture is the first to show, if any. */
  shown(inputSeq: number | undefined, at: number): number | null {
    if (inputSeq === undefined) return null;
    let latency: number | null = null;
    for (const [seq, sentAt] of this.sent) {
      if (seq > inputSeq) continue;
      latency = at - sentAt;
      this.sent.delete(seq);
    }
    return latency;
  }
}

export interface LiveController {
  id: string | null;
  name: string | null;
}

export interface LiveScreenState {
  connection: ConnectionStatus;
  /** The watch answer: waiting for it, watching, or refused (the reason says why). */
  watch: 'waiting' | 'watching' | 'refused';
  streaming: boolean;
  reason: string | null;
  canControl: boolean;
  frame: LiveFrameShown | null;
  /** The H.264 picture's size while it is shown (drawn on the canvas), else null. */
  video: { width: number; height: number } | null;
  path: LivePath | null;
  fps: number;
  latencyMs: number | null;
  idle: { deviceName: string; releaseAt: number } | null;
  asked: { userId: string; name: string } | null;
}

const initialState: LiveScreenState = {
  connection: 'connecting',
  watch: 'waiting',
  streaming: false,
  reason: null,
  canControl: false,
  frame: null,
  video: null,
  path: null,
  fps: 0,
  latencyMs: null,
  idle: null,
  asked: null,
};

export interface UseLiveScreenOptions {
  deviceId: string;
  /** Who controls the phone as the device row says (pushed on the console's socket). */
  controlledById: string | null;
  controlledByName: string | null;
}

/** Control as this view last changed it, until the device row says otherwise. */
interface Claim extends LiveController {
  /** The row's controller when the claim was made: once the row moves on, the row is right again. */
  basis: string | null;
}

function toBlobPart(data: ArrayBuffer | Uint8Array): ArrayBuffer | Uint8Array<ArrayBuffer> {
  return data instanceof Uint8Array ? new Uint8Array(data) : data;
}

/** Watches a phone's screen while mounted, and offers its control to the person when the server allows it. */
export function useLiveScreen({ deviceId, controlledById, controlledByName }: UseLiveScreenOptions) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveScreenState>(initialState);
  const [claim, setClaim] = useState<Claim | null>(null);
  const socketRef = useRef<LiveSocket | null>(null);
  const seqRef = useRef(0);
  const pendingRef = useRef<{ frame: LiveFrameShown; ack: () => void } | null>(null);
  const shownRef = useRef<LiveFrameShown | null>(null);
  const rateRef = useRef(new FrameRate());
  const latencyRef = useRef(new InputLatency());
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  /** This browser could not decode the phone's H.264 after all: it watches as JPEG from then on. */
  const jpegOnlyRef = useRef(false);
  const controllerRef = useRef(controlledById);
  useEffect(() => {
    controllerRef.current = controlledById;
  }, [controlledById]);

  const patch = useCallback((next: Partial<LiveScreenState>) => setState((current) => ({ ...current, ...next })), []);

  useEffect(() => {
    const { socket, close } = openLiveSocket();
    socketRef.current = socket;
    let active = true;
    seqRef.current = 0;
    rateRef.current = new FrameRate();
    latencyRef.current = new InputLatency();
    setState(initialState);
    setClaim(null);

    const pictureShown = (inputSeq: number | undefined) => {
      const now = Date.now();
      rateRef.current.add(now);
      const latency = latencyRef.current.shown(inputSeq, now);
      if (latency !== null) patch({ latencyMs: latency });
    };
    let player: H264Player | null = null;
    const startPlayer = () => {
      player?.close();
      player = null;
      if (jpegOnlyRef.current || !canDecodeH264()) return;
      player = new H264Player({
        canvas: () => canvasRef.current,
        drawn: (picture: DrawnPicture) => {
          if (!active) return;
          setState((current) =>
            current.path?.kind === 'h264' && current.video?.width === picture.width && current.video.height === picture.height && current.streaming
              ? current
              : { ...current, path: { kind: 'h264' }, video: { width: picture.width, height: picture.height }, streaming: true, reason: null },
          );
          pictureShown(picture.inputSeq);
        },
        unsupported: () => {
          // Watch again as a browser without the decoder: the phone adds JPEG frames for this viewer.
          jpegOnlyRef.current = true;
          player?.close();
          player = null;
          if (!active || !socket.connected) return;
          socket.emit('live.unwatch', { deviceId }, () => watch());
        },
      });
    };
    startPlayer();

    const watch = () => {
      socket.emit('live.watch', { deviceId, ...(player ? { h264: true } : {}) }, (answer) => {
        if (!active) return;
        if (answer.ok) patch({ watch: 'watching', streaming: answer.streaming, reason: answer.reason ?? null, canControl: answer.canControl });
        else patch({ watch: 'refused', streaming: false, reason: answer.error, canControl: false });
      });
    };

    const stopWatching = watchConnection(socket, ({ status }) => {
      if (active) patch({ connection: status });
    });
    // Every (re)connect is a new session on the server: watch again.
    const onConnect = () => {
      startPlayer();
      watch();
    };

    const onFrame = (frame: LiveFrameOut, ack: () => void) => {
      if (frame.deviceId !== deviceId) return;
      const stale = pendingRef.current;
      if (stale) {
        // Not drawn yet and already replaced: let the stream go on with the newer one.
        URL.revokeObjectURL(stale.frame.url);
        stale.ack();
      }
      const url = URL.createObjectURL(new Blob([toBlobPart(frame.data)], { type: 'image/jpeg' }));
      const shown: LiveFrameShown = { url, width: frame.width, height: frame.height, source: frame.source, seq: frame.seq, inputSeq: frame.inputSeq };
      pendingRef.current = { frame: shown, ack };
      patch({ frame: shown, streaming: true, reason: null });
    };
    const onVideo = (packet: LiveVideoOut, ack: () => void) => {
      if (packet.deviceId !== deviceId) return;
      // Acknowledged on arrival: the server counts what has not reached this browser; the player keeps its own pace.
      ack();
      player?.push(packet);
    };
    const onStatus = (status: { deviceId: string; streaming: boolean; reason?: string }) => {
      if (status.deviceId !== deviceId) return;
      patch({ streaming: status.streaming, reason: status.streaming ? null : (status.reason ?? null) });
    };
    const onIdle = (prompt: { deviceId: string; deviceName: string; releaseInMs: number }) => {
      if (prompt.deviceId !== deviceId) return;
      patch({ idle: { deviceName: prompt.deviceName, releaseAt: Date.now() + prompt.releaseInMs } });
    };
    const onAsked = (ask: { deviceId: string; userId: string; name: string }) => {
      if (ask.deviceId !== deviceId) return;
      patch({ asked: { userId: ask.userId, name: ask.name } });
    };
    const onReleased = (released: { deviceId: string; reason: string }) => {
      if (released.deviceId !== deviceId) return;
      setClaim({ id: null, name: null, basis: controllerRef.current });
      patch({ idle: null, asked: null });
      toast('Control ended', released.reason);
    };

    socket.on('connect', onConnect);
    socket.on('live.frame', onFrame);
    socket.on('live.video', onVideo);
    socket.on('live.status', onStatus);
    socket.on('live.idle', onIdle);
    socket.on('live.asked', onAsked);
    socket.on('live.released', onReleased);
    if (socket.connected) watch();

    const ticker = setInterval(() => {
      const fps = rateRef.current.perSecond(Date.now());
      setState((current) => (current.fps === fps ? current : { ...current, fps }));
    }, 500);

    return () => {
      active = false;
      clearInterval(ticker);
      socket.off('connect', onConnect);
      socket.off('live.frame', onFrame);
      socket.off('live.video', onVideo);
      socket.off('live.status', onStatus);
      player?.close();
      socket.off('live.idle', onIdle);
      socket.off('live.asked', onAsked);
      socket.off('live.released', onReleased);
      stopWatching();
      if (socket.connected) socket.emit('live.unwatch', { deviceId });
      close();
      socketRef.current = null;
      if (pendingRef.current) URL.revokeObjectURL(pendingRef.current.frame.url);
      if (shownRef.current) URL.revokeObjectURL(shownRef.current.url);
      pendingRef.current = null;
      shownRef.current = null;
      // What was watched or controlled now counts in the phone's and the person's hands-on use.
      void queryClient.invalidateQueries({ queryKey: ['/api/device-usage'] });
    };
  }, [deviceId, patch, queryClient]);

  /** The frame with this address is on screen: acknowledge it so the next one comes. */
  const drawn = useCallback(
    (url: string) => {
      const pending = pendingRef.current;
      if (!pending || pending.frame.url !== url) return;
      pendingRef.current = null;
      const previous = shownRef.current;
      if (previous && previous.url !== url) URL.revokeObjectURL(previous.url);
      shownRef.current = pending.frame;
      const now = Date.now();
      rateRef.current.add(now);
      const latency = latencyRef.current.shown(pending.frame.inputSeq, now);
      patch({
        fps: rateRef.current.perSecond(now),
        path: { kind: 'jpeg', source: pending.frame.source },
        video: null,
        ...(latency !== null ? { latencyMs: latency } : {}),
      });
      pending.ack();
    },
    [patch],
  );

  /** The frame could not be decoded: keep the one before and go on with the stream. */
  const failed = useCallback(
    (url: string) => {
      const pending = pendingRef.current;
      if (!pending || pending.frame.url !== url) return;
      pendingRef.current = null;
      URL.revokeObjectURL(url);
      patch({ frame: shownRef.current });
      pending.ack();
    },
    [patch],
  );

  /** Sends the call when the live socket is up; a refusal is shown to the person as the server words it. */
  const call = useCallback(
    <T extends object>(send: (socket: LiveSocket, done: (answer: LiveAnswer<T>) => void) => void, onOk?: (answer: { ok: true } & T) => void) => {
      const socket = socketRef.current;
      if (!socket?.connected) return;
      send(socket, (answer) => {
        if (!answer.ok) {
          errorToast('Error', answer.error);
          return;
        }
        onOk?.(answer);
      });
    },
    [],
  );

  /** While recording: told each input and the phone's answer (with the element under the finger, where it can). */
  const recorderRef = useRef<((input: LiveInput, answer: LiveAnswer<LiveInputAnswer>, sentAt: number) => void) | null>(null);
  const setRecorder = useCallback((recorder: ((input: LiveInput, answer: LiveAnswer<LiveInputAnswer>, sentAt: number) => void) | null) => {
    recorderRef.current = recorder;
  }, []);

  const sendInput = useCallback(
    (input: LiveInput) => {
      const socket = socketRef.current;
      // A gesture is for the screen as it is now: one made while disconnected is dropped, not replayed later.
      if (!socket?.connected) return;
      seqRef.current += 1;
      const seq = seqRef.current;
      const sentAt = Date.now();
      latencyRef.current.sentAt(seq, sentAt);
      const recorder = recorderRef.current;
      socket.emit('live.input', { deviceId, seq, input, ...(recorder ? { record: true } : {}) }, (answer) => {
        // The phone applied it; the figure shown is input → first picture showing it, once that picture is drawn.
        if (!answer.ok) errorToast('Error', answer.error);
        recorder?.(input, answer, sentAt);
      });
    },
    [deviceId],
  );

  const takeControl = useCallback(
    (userId: string, takeOver: boolean) => {
      call(
        (socket, done) => socket.emit('live.control', takeOver ? { deviceId, takeOver: true } : { deviceId }, done),
        () => setClaim({ id: userId, name: null, basis: controllerRef.current }),
      );
    },
    [call, deviceId],
  );
  const release = useCallback(() => {
    call(
      (socket, done) => socket.emit('live.release', { deviceId }, done),
      () => {
        setClaim({ id: null, name: null, basis: controllerRef.current });
        patch({ idle: null, asked: null });
      },
    );
  }, [call, deviceId, patch]);
  const keep = useCallback(() => {
    call(
      (socket, done) => socket.emit('live.keep', { deviceId }, done),
      () => patch({ idle: null }),
    );
  }, [call, deviceId, patch]);
  const ask = useCallback(
    (controllerName: string | null) => {
      call(
        (socket, done) => socket.emit('live.ask', { deviceId }, done),
        () => toastAskSent(controllerName),
      );
    },
    [call, deviceId],
  );
  const handOver = useCallback(() => {
    const asked = state.asked;
    if (!asked) return;
    call(
      (socket, done) => socket.emit('live.handover', { deviceId, userId: asked.userId }, done),
      () => {
        setClaim({ id: asked.userId, name: asked.name, basis: controllerRef.current });
        patch({ asked: null, idle: null });
      },
    );
  }, [call, deviceId, patch, state.asked]);
  const dismissAsk = useCallback(() => patch({ asked: null }), [patch]);

  /** The screen's UI tree and frame (Inspect); rejects with the server's sentence. */
  const inspect = useCallback(
    () =>
      new Promise<LiveCaptureOut>((resolve, reject) => {
        const socket = socketRef.current;
        if (!socket?.connected) return reject(new Error('Connection lost. Reconnecting...'));
        socket.emit('live.inspect', { deviceId }, (answer) => (answer.ok ? resolve(answer.capture) : reject(new Error(answer.error))));
      }),
    [deviceId],
  );

  const controller: LiveController =
    claim && claim.basis === controlledById
      ? { id: claim.id, name: claim.name ?? (claim.id === controlledById ? controlledByName : null) }
      : { id: controlledById, name: controlledByName };

  return { state, controller, canvasRef, drawn, failed, sendInput, setRecorder, takeControl, release, keep, ask, handOver, dismissAsk, inspect };
}
