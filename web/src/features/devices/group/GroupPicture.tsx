/**
 * One phone's picture in group control: the H.264 `watch` stream decoded on a canvas (or JPEG frames where this
 * browser cannot decode it), at most `MAX_TILE_FPS` a second, and not decoded at all while the picture is off screen:
 * thirty phones on one page stay within what a browser can decode.
 */
import type { LiveFrameOut, LiveVideoOut } from '@farm/contracts';
import { useEffect, useId, useRef, useState } from 'react';
import { FrameRate } from '../devices.live';
import { H264Player } from '../devices.video';
import type { GroupSession } from './group.session';

/** The most pictures a second a tile asks for: the server's `watch` stream sends no more than this. */
export const MAX_TILE_FPS = 15;

/** Pictures drawn by every tile of the page, and the tiles on screen: the page's decoding load, measured. */
const drawnRate = new FrameRate();
const onScreen = new Set<string>();

/** What the page draws now: pictures a second over all tiles, and how many tiles are on screen. */
export function drawingLoad(now = Date.now()): { perSecond: number; tiles: number } {
  return { perSecond: drawnRate.perSecond(now), tiles: onScreen.size };
}

function toBlobPart(data: ArrayBuffer | Uint8Array): ArrayBuffer | Uint8Array<ArrayBuffer> {
  return data instanceof Uint8Array ? new Uint8Array(data) : data;
}

/** Whether the element is on screen (true until the browser says otherwise, and where it cannot say). */
export function useOnScreen(element: HTMLElement | null): boolean {
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    if (!element || typeof IntersectionObserver !== 'function') return;
    const observer = new IntersectionObserver((entries) => {
      const entry = entries.at(-1);
      if (entry) setVisible(entry.isIntersecting);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return visible;
}

export interface GroupPictureProps {
  session: GroupSession | null;
  deviceId: string;
  /** H.264 is decoded here (else JPEG frames come). */
  h264: boolean;
  /** The picture's size once known (the leader's screen keeps its shape). */
  onSize?: (size: { width: number; height: number }) => void;
}

/** The picture alone, filling its box; whoever places it decides its size and what a pointer on it does. */
export function GroupPicture({ session, deviceId, h264, onSize }: GroupPictureProps) {
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const [box, setBox] = useState<HTMLDivElement | null>(null);
  const visible = useOnScreen(box);
  const visibleRef = useRef(visible);
  visibleRef.current = visible;
  const id = useId();
  useEffect(() => {
    if (!visible) return;
    onScreen.add(id);
    return () => {
      onScreen.delete(id);
    };
  }, [visible, id]);
  const [jpeg, setJpeg] = useState<string | null>(null);
  const [shown, setShown] = useState<'none' | 'video' | 'jpeg'>('none');
  const sizeRef = useRef(onSize);
  /** Called once the JPEG on screen is drawn (or could not be): the next frame may come. */
  const drawnRef = useRef<() => void>(() => undefined);
  sizeRef.current = onSize;

  useEffect(() => {
    if (!session) return;
    let active = true;
    let lastSize = '';
    const sized = (width: number, height: number) => {
      const key = `${width}x${height}`;
      if (key === lastSize) return;
      lastSize = key;
      sizeRef.current?.({ width, height });
    };
    const player = h264
      ? new H264Player({
          canvas: () => canvasRef.current,
          drawn: (picture) => {
            if (!active) return;
            drawnRate.add(Date.now());
            setShown('video');
            sized(picture.width, picture.height);
          },
          unsupported: () => undefined,
        })
      : null;
    let pending: { url: string; ack: () => void; raw: () => void } | null = null;
    let lastAck = 0;
    /** Frames drawn whose acknowledgement waits for the tile's pace: let go at once when the tile goes. */
    const waiting = new Map<ReturnType<typeof setTimeout>, () => void>();
    const onVideo = (packet: LiveVideoOut) => {
      // Off screen, only the stream's configuration is kept: the player waits for a key frame once the tile is back.
      if (!visibleRef.current && !packet.config) return;
      player?.push(packet);
    };
    const onFrame = (frame: LiveFrameOut, ack: () => void) => {
      if (!visibleRef.current) {
        ack();
        return;
      }
      if (pending) {
        URL.revokeObjectURL(pending.url);
        pending.ack();
      }
      const url = URL.createObjectURL(new Blob([toBlobPart(frame.data)], { type: 'image/jpeg' }));
      // The next frame is asked for once this one is drawn, and no sooner than the tile's pace allows.
      const paced = () => {
        const wait = Math.max(0, lastAck + 1000 / MAX_TILE_FPS - Date.now());
        const timer = setTimeout(() => {
          waiting.delete(timer);
          lastAck = Date.now();
          ack();
        }, wait);
        waiting.set(timer, ack);
      };
      pending = { url, ack: paced, raw: ack };
      sized(frame.width, frame.height);
      setJpeg((previous) => {
        if (previous) URL.revokeObjectURL(previous);
        return url;
      });
      setShown('jpeg');
    };
    session.attach(deviceId, { video: onVideo, frame: onFrame });
    const settle = () => {
      const done = pending;
      pending = null;
      if (done) drawnRate.add(Date.now());
      done?.ack();
    };
    drawnRef.current = settle;
    return () => {
      active = false;
      // The stream waits for these acknowledgements: a tile that goes (a new leader, a dropped phone) gives them back.
      for (const [timer, ack] of waiting) {
        clearTimeout(timer);
        ack();
      }
      if (pending) {
        URL.revokeObjectURL(pending.url);
        pending.raw();
        pending = null;
      }
      session.attach(deviceId, null);
      player?.close();
      drawnRef.current = () => undefined;
      setJpeg((previous) => {
        if (previous) URL.revokeObjectURL(previous);
        return null;
      });
    };
  }, [session, deviceId, h264]);

  return (
    <div ref={setBox} data-on-screen={visible ? 'yes' : 'no'} style={{ position: 'absolute', inset: 0, pointerEvents: 'none' }}>
      <canvas ref={canvasRef} style={{ display: shown === 'video' ? 'block' : 'none', width: '100%', height: '100%' }} />
      {jpeg && shown === 'jpeg' ? (
        <img
          src={jpeg}
          alt=""
          draggable={false}
          onLoad={() => drawnRef.current()}
          onError={() => drawnRef.current()}
          style={{ display: 'block', width: '100%', height: '100%' }}
        />
      ) : null}
    </div>
  );
}
