/**
 * The leader's screen, large: a click or a touch is the finger (or a tap by point when the person switched to it), a
 * drag swipes, the wheel scrolls and typing goes to every phone's focused field. What the phones do is the server's
 * and their agents' business: this only says what the person did, in shares of the screen.
 */
import { Text } from '@mantine/core';
import type { GroupAction } from '@farm/agent-protocol/group';
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { fractionAt, gestureOf, wheelStep, type PointerPress } from '../devices.live';
import type { GroupSession } from './group.session';
import { GroupPicture } from './GroupPicture';

/** The longest text one action carries. */
const MAX_TEXT = 1000;
/**
 * The server takes at most 2 actions a second from a group: a wheel turn is sent at most this often, and keystrokes
 * closer together than this go as one piece of text (live control's own pace is quicker: one phone, no such limit).
 */
export const GROUP_INPUT_PACE_MS = 600;

export interface LeaderScreenProps {
  session: GroupSession | null;
  deviceId: string;
  name: string;
  h264: boolean;
  /** Input is taken (the session runs and the connection is up). */
  enabled: boolean;
  /** Why there is no picture, in a sentence, or null. */
  notice: string | null;
  /** The next tap goes by point. */
  byPoint: boolean;
  act: (action: GroupAction) => void;
}

/** What a press and release on the leader's screen send: the finger (or a point), a long press, or a swipe. */
export function actionOfGesture(
  rect: Pick<DOMRect, 'left' | 'top' | 'width' | 'height'>,
  press: PointerPress,
  release: PointerPress,
  byPoint: boolean,
): GroupAction {
  const gesture = gestureOf(rect, press, release);
  if (gesture.kind === 'swipe') return { kind: 'swipe', from: gesture.from, to: gesture.to, durationMs: gesture.durationMs };
  const kind = byPoint ? 'point' : 'finger';
  if (gesture.kind === 'long_press') return { kind, x: gesture.x, y: gesture.y, press: 'long_press' };
  if (gesture.kind === 'tap') return { kind, x: gesture.x, y: gesture.y, press: 'tap' };
  return { kind, x: 0.5, y: 0.5, press: 'tap' };
}

export function LeaderScreen({ session, deviceId, name, h264, enabled, notice, byPoint, act }: LeaderScreenProps) {
  const surfaceRef = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 9, height: 19.5 });
  const pressRef = useRef<{ press: PointerPress; rect: DOMRect } | null>(null);
  const lastWheelRef = useRef(0);
  const typedRef = useRef('');
  const typingTimerRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const actRef = useRef(act);
  actRef.current = act;
  const byPointRef = useRef(byPoint);
  byPointRef.current = byPoint;

  const flushTyped = useCallback(() => {
    clearTimeout(typingTimerRef.current);
    typingTimerRef.current = undefined;
    const text = typedRef.current;
    typedRef.current = '';
    if (text) actRef.current({ kind: 'text', text });
  }, []);
  useEffect(() => () => clearTimeout(typingTimerRef.current), []);

  // The wheel scrolls the phones, not the page, so the listener must be able to cancel the event.
  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface || !enabled) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      if (event.deltaY === 0) return;
      const now = Date.now();
      if (now - lastWheelRef.current < GROUP_INPUT_PACE_MS) return;
      lastWheelRef.current = now;
      const at = fractionAt(surface.getBoundingClientRect(), event.clientX, event.clientY);
      actRef.current({ kind: 'scroll', ...at, dy: wheelStep(event.deltaY) });
    };
    surface.addEventListener('wheel', onWheel, { passive: false });
    return () => surface.removeEventListener('wheel', onWheel);
  }, [enabled]);

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (!enabled || event.button !== 0) return;
    event.preventDefault();
    const surface = event.currentTarget;
    surface.focus({ preventScroll: true });
    surface.setPointerCapture?.(event.pointerId);
    pressRef.current = { press: { clientX: event.clientX, clientY: event.clientY, at: Date.now() }, rect: surface.getBoundingClientRect() };
  };
  const onPointerUp = (event: ReactPointerEvent<HTMLDivElement>) => {
    const pressed = pressRef.current;
    pressRef.current = null;
    if (!pressed || !enabled) return;
    const release = { clientX: event.clientX, clientY: event.clientY, at: Date.now() };
    actRef.current(actionOfGesture(pressed.rect, pressed.press, release, byPointRef.current));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!enabled || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Enter') {
      event.preventDefault();
      flushTyped();
      actRef.current({ kind: 'key', key: 'enter' });
      return;
    }
    if ([...event.key].length !== 1) return;
    event.preventDefault();
    typedRef.current += event.key;
    if (typedRef.current.length >= MAX_TEXT) flushTyped();
    else typingTimerRef.current ??= setTimeout(flushTyped, GROUP_INPUT_PACE_MS);
  };

  return (
    <div
      style={{
        position: 'relative',
        width: `min(100%, calc(70vh * ${size.width} / ${size.height}))`,
        aspectRatio: `${size.width} / ${size.height}`,
        borderRadius: 'var(--mantine-radius-md)',
        overflow: 'hidden',
        background: 'var(--mantine-color-dark-8)',
        margin: '0 auto',
      }}
    >
      <div
        ref={surfaceRef}
        role="img"
        aria-label={`Live screen of ${name}, the leader`}
        tabIndex={enabled ? 0 : -1}
        onPointerDown={onPointerDown}
        onPointerUp={onPointerUp}
        onPointerCancel={() => {
          pressRef.current = null;
        }}
        onKeyDown={onKeyDown}
        onBlur={flushTyped}
        style={{
          position: 'absolute',
          inset: 0,
          userSelect: 'none',
          touchAction: 'none',
          cursor: enabled ? 'pointer' : 'default',
          opacity: notice ? 0.35 : 1,
          outlineOffset: -3,
        }}
      >
        <GroupPicture session={session} deviceId={deviceId} h264={h264} onSize={setSize} />
      </div>
      {notice ? (
        <div
          style={{
            position: 'absolute',
            inset: 0,
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
            padding: 16,
            textAlign: 'center',
            pointerEvents: 'none',
          }}
        >
          <Text size="sm" c="gray.3" role="status">
            {notice}
          </Text>
        </div>
      ) : null}
    </div>
  );
}
