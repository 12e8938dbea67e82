import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import {
  IconArrowLeft,
  IconListSearch,
  IconClipboardText,
  IconHandFinger,
  IconHandStop,
  IconHome,
  IconPower,
  IconRotateClockwise2,
  IconSquare,
  IconUserShare,
  IconVolume,
  IconVolume2,
} from '@tabler/icons-react';
import type { Device } from '@farm/contracts';
import type { LiveInput, LiveKey } from '@farm/agent-protocol/live';
import { useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type MouseEvent as ReactMouseEvent } from 'react';
import type { LiveCaptureOut } from '@farm/contracts';
import { useCurrentUser } from '../../auth/auth.api';
import { errorToast } from '../../../shared/toast';
import { InspectPanel } from '../inspect/InspectPanel';
import { RecordPanel } from '../inspect/RecordPanel';
import {
  fractionAt,
  gestureOf,
  pathLabel,
  TYPING_BATCH_MS,
  useLiveScreen,
  WHEEL_THROTTLE_MS,
  wheelStep,
  type LiveScreenState,
  type PointerPress,
} from '../devices.live';

/** The longest text one input may carry. */
const MAX_TEXT = 1000;

const keyButtons: { key: LiveKey; label: string; icon: typeof IconHome }[] = [
  { key: 'back', label: 'Back', icon: IconArrowLeft },
  { key: 'home', label: 'Home', icon: IconHome },
  { key: 'recents', label: 'Recents', icon: IconSquare },
  { key: 'power', label: 'Power', icon: IconPower },
  { key: 'volume_up', label: 'Volume up', icon: IconVolume },
  { key: 'volume_down', label: 'Volume down', icon: IconVolume2 },
];

export interface LiveScreenProps {
  device: Pick<Device, 'id' | 'name' | 'controlledById' | 'controlledByName'>;
  /** Opened to re-record a failed run: says how to start Record (it needs control of the phone). */
  offerRecord?: boolean;
}

/** What stands in for the screen when there is no live picture: why, in a sentence. */
function screenNotice(state: LiveScreenState): string | null {
  if (state.connection === 'reconnecting' || state.connection === 'offline') return 'Connection lost. Reconnecting...';
  if (state.watch === 'waiting') return 'Connecting to the phone...';
  if (state.watch === 'refused') return state.reason ?? 'This phone cannot be watched';
  if (!state.streaming) return state.reason ?? 'The phone is not streaming';
  if (!state.frame && !state.video) return 'Waiting for the screen...';
  return null;
}

function IdlePrompt({ deviceName, releaseAt, onKeep }: { deviceName: string; releaseAt: number; onKeep: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.ceil((releaseAt - now) / 1000));
  return (
    <Alert color="yellow" variant="light" title={`Still using ${deviceName}?`}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{`The phone is handed back in ${seconds} s so its tasks can run again.`}</Text>
        <Button size="xs" onClick={onKeep}>
          Keep control
        </Button>
      </Group>
    </Alert>
  );
}

/**
 * What the input figure measures: the input's way to the phone and the next picture's way back, not the phone's own
 * time to react and encode the change (each picture says the last input applied when the farm host had it).
 */
const INPUT_RELAY_TITLE =
  "From your input leaving this browser to the first picture drawn here that left the phone after it applied the input: the network, the console's relay and this browser's decoding. The phone's own time to react and encode the change is not counted.";

/**
 * A phone's screen, live, and its remote control: who is in control, frames per second, the last input's relay time
 * (from the input to the first picture the phone sent after applying it) and the path (H.264 decoded here, or JPEG and its source) above
 * the picture. While the person is in control, a click taps, a drag swipes,
 * the wheel scrolls and typing goes to the phone; the server decides who may take control.
 */
export function LiveScreen({ device, offerRecord = false }: LiveScreenProps) {
  const me = useCurrentUser();
  const live = useLiveScreen({ deviceId: device.id, controlledById: device.controlledById, controlledByName: device.controlledByName });
  const { state, controller } = live;
  const surfaceRef = useRef<HTMLDivElement>(null);
  const pressRef = useRef<PointerPress | null>(null);
  const lastWheelRef = useRef(0);
  const typedRef = useRef('');
  const typingTimerRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [pasted, setPasted] = useState('');
  const [capture, setCapture] = useState<LiveCaptureOut | null>(null);
  const [inspecting, setInspecting] = useState(false);
  /** A small picture of the screen as shown now (the canvas or the JPEG), for a recorded step. */
  const snapshot = useCallback((): string | null => {
    const shown = surfaceRef.current?.querySelector<HTMLCanvasElement | HTMLImageElement>(onVideoRef.current ? 'canvas' : 'img');
    if (!shown) return null;
    const sourceWidth = shown instanceof HTMLCanvasElement ? shown.width : shown.naturalWidth;
    const sourceHeight = shown instanceof HTMLCanvasElement ? shown.height : shown.naturalHeight;
    if (!sourceWidth || !sourceHeight) return null;
    const small = document.createElement('canvas');
    small.width = 72;
    small.height = Math.round((72 * sourceHeight) / sourceWidth);
    try {
      small.getContext('2d')?.drawImage(shown, 0, 0, small.width, small.height);
      return small.toDataURL('image/jpeg', 0.6);
    } catch {
      return null;
    }
  }, []);
  const inspect = () => {
    setInspecting(true);
    live
      .inspect()
      .then(setCapture, (error: unknown) => errorToast('Error', error instanceof Error ? error.message : 'The phone could not read its screen'))
      .finally(() => setInspecting(false));
  };

  const mine = me !== undefined && controller.id === me.id;
  const someoneElse = controller.id !== null && !mine;
  const inControl = mine && state.canControl && state.connection === 'live';
  const notice = screenNotice(state);
  const frame = state.frame;
  const onVideo = state.path?.kind === 'h264' && state.video !== null;
  const hasFrame = frame !== null || state.video !== null;
  const width = (onVideo ? state.video?.width : frame?.width) ?? 9;
  const height = (onVideo ? state.video?.height : frame?.height) ?? 16;
  const path = pathLabel(state.path);
  const onVideoRef = useRef(onVideo);
  onVideoRef.current = onVideo;
  const sendInput = live.sendInput;

  const controlText = mine ? 'You are in control' : someoneElse ? `In use by ${controller.name ?? 'someone else'}` : 'Nobody is in control';

  const flushTyped = useCallback(() => {
    clearTimeout(typingTimerRef.current);
    typingTimerRef.current = undefined;
    const text = typedRef.current;
    typedRef.current = '';
    if (text) sendInput({ kind: 'text', text });
  }, [sendInput]);
  const releaseRef = useRef<((up: MouseEvent) => void) | null>(null);
  useEffect(
    () => () => {
      clearTimeout(typingTimerRef.current);
      if (releaseRef.current) window.removeEventListener('mouseup', releaseRef.current);
    },
    [],
  );

  // The wheel scrolls the phone, not the page behind it, so the listener must be able to cancel the event.
  useEffect(() => {
    const image = surfaceRef.current;
    if (!image || !inControl || !hasFrame) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      if (event.deltaY === 0) return;
      const now = Date.now();
      if (now - lastWheelRef.current < WHEEL_THROTTLE_MS) return;
      lastWheelRef.current = now;
      const at = fractionAt(image.getBoundingClientRect(), event.clientX, event.clientY);
      sendInput({ kind: 'scroll', ...at, dy: wheelStep(event.deltaY) });
    };
    image.addEventListener('wheel', onWheel, { passive: false });
    return () => image.removeEventListener('wheel', onWheel);
  }, [inControl, sendInput, hasFrame]);

  const onMouseDown = (event: ReactMouseEvent<HTMLDivElement>) => {
    if (!inControl || !hasFrame || event.button !== 0) return;
    event.preventDefault();
    const image = event.currentTarget;
    // The gesture is read in the picture as it was when pressed: focusing must not scroll it away meanwhile.
    const rect = image.getBoundingClientRect();
    image.focus({ preventScroll: true });
    const press: PointerPress = { clientX: event.clientX, clientY: event.clientY, at: Date.now() };
    pressRef.current = press;
    // The release may come outside the picture (a swipe off its edge), so it is heard on the window.
    const onUp = (up: MouseEvent) => {
      window.removeEventListener('mouseup', onUp);
      releaseRef.current = null;
      if (pressRef.current !== press) return;
      pressRef.current = null;
      // A move of the picture under a still pointer (the dialog scrolling) is not a swipe.
      const moved = image.getBoundingClientRect();
      const release = { clientX: up.clientX - (moved.left - rect.left), clientY: up.clientY - (moved.top - rect.top), at: Date.now() };
      sendInput(gestureOf(rect, press, release));
    };
    if (releaseRef.current) window.removeEventListener('mouseup', releaseRef.current);
    releaseRef.current = onUp;
    window.addEventListener('mouseup', onUp);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!inControl || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Enter' || event.key === 'Backspace') {
      event.preventDefault();
      flushTyped();
      sendInput({ kind: 'key', key: event.key === 'Enter' ? 'enter' : 'delete' });
      return;
    }
    if ([...event.key].length !== 1) return;
    event.preventDefault();
    typedRef.current += event.key;
    if (typedRef.current.length >= MAX_TEXT) flushTyped();
    else typingTimerRef.current ??= setTimeout(flushTyped, TYPING_BATCH_MS);
  };

  const sendPasted = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!pasted) return;
    for (let at = 0; at < pasted.length; at += MAX_TEXT) sendInput({ kind: 'text', text: pasted.slice(at, at + MAX_TEXT) });
    setPasted('');
  };

  const press = (input: LiveInput) => () => sendInput(input);
  const connected = state.connection === 'live';
  const showIdle = state.idle !== null && !someoneElse;

  return (
    <Stack gap="sm">
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Group gap={6} wrap="nowrap">
          <IconHandFinger size={16} aria-hidden />
          <Text size="sm" fw={600}>
            {controlText}
          </Text>
        </Group>
        <Group gap="md" wrap="wrap">
          <Text size="xs" c="dimmed">{`${state.fps} fps`}</Text>
          {state.latencyMs !== null ? <Text size="xs" c="dimmed" title={INPUT_RELAY_TITLE}>{`Input relay ${state.latencyMs} ms`}</Text> : null}
          {path ? (
            <Text size="xs" c="dimmed" title="How the picture reaches this browser">
              {path}
            </Text>
          ) : null}
        </Group>
      </Group>

      {offerRecord ? (
        <Alert color="red" variant="light" title="Re-record from here">
          <Text size="sm">
            {mine
              ? 'Press Record, then do the routine on the phone the way it should go; Stop saves it as a draft.'
              : 'Take control of this phone, then press Record and do the routine the way it should go.'}
          </Text>
        </Alert>
      ) : null}
      {showIdle && state.idle ? <IdlePrompt deviceName={state.idle.deviceName} releaseAt={state.idle.releaseAt} onKeep={live.keep} /> : null}
      {mine && state.asked ? (
        <Alert
          color="blue"
          variant="light"
          title={`${state.asked.name} asks to take over`}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={live.dismissAsk}
        >
          <Button size="xs" leftSection={<IconUserShare size={14} />} onClick={live.handOver}>
            Hand over
          </Button>
        </Alert>
      ) : null}

      <Group align="flex-start" gap="md" wrap="wrap">
        <Stack gap={6} align="center" style={{ flex: '1 1 240px', minWidth: 0 }}>
          <div
            style={{
              position: 'relative',
              width: `min(100%, calc(70vh * ${width} / ${height}))`,
              aspectRatio: `${width} / ${height}`,
              borderRadius: 'var(--mantine-radius-md)',
              overflow: 'hidden',
              background: 'var(--mantine-color-dark-8)',
            }}
          >
            {/* The screen: the H.264 picture on a canvas, or the last JPEG frame; clicks, drags, the wheel and typing go to the phone. */}
            <div
              ref={surfaceRef}
              role="img"
              aria-label={`Live screen of ${device.name}`}
              tabIndex={inControl && hasFrame ? 0 : -1}
              onMouseDown={onMouseDown}
              onKeyDown={onKeyDown}
              onBlur={flushTyped}
              style={{
                position: 'absolute',
                inset: 0,
                userSelect: 'none',
                cursor: inControl && hasFrame ? 'pointer' : 'default',
                opacity: notice ? 0.35 : 1,
                outlineOffset: -3,
              }}
            >
              <canvas ref={live.canvasRef} style={{ display: onVideo ? 'block' : 'none', width: '100%', height: '100%' }} />
              {frame && !onVideo ? (
                <img
                  src={frame.url}
                  alt=""
                  draggable={false}
                  onLoad={() => live.drawn(frame.url)}
                  onError={() => live.failed(frame.url)}
                  style={{ display: 'block', width: '100%', height: '100%', pointerEvents: 'none' }}
                />
              ) : null}
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
          {inControl ? (
            <Text size="xs" c="dimmed" ta="center">
              Click to tap, drag to swipe, use the wheel to scroll, and type while the screen has focus.
            </Text>
          ) : null}
        </Stack>

        {state.canControl ? (
          <Stack gap="xs" style={{ flex: '0 1 220px' }}>
            <Button
              variant="default"
              leftSection={<IconListSearch size={16} />}
              onClick={inspect}
              loading={inspecting}
              disabled={!connected || !state.streaming}
            >
              Inspect
            </Button>
            {controller.id === null ? (
              <Button leftSection={<IconHandFinger size={16} />} onClick={() => me && live.takeControl(me.id, false)} disabled={!connected}>
                Take control
              </Button>
            ) : null}
            {someoneElse && me?.role === 'operator' ? (
              <Button variant="light" color="orange" onClick={() => live.takeControl(me.id, true)} disabled={!connected}>
                Take over
              </Button>
            ) : null}
            {someoneElse ? (
              <Button variant="default" onClick={() => live.ask(controller.name)} disabled={!connected}>
                Ask to take over
              </Button>
            ) : null}
            {mine ? (
              <>
                <Button variant="light" color="gray" leftSection={<IconHandStop size={16} />} onClick={live.release} disabled={!connected}>
                  Hand back
                </Button>
                <Group gap={6} wrap="wrap" aria-label="Phone buttons" role="group">
                  {keyButtons.map(({ key, label, icon: Icon }) => (
                    <Button
                      key={key}
                      size="compact-sm"
                      variant="default"
                      leftSection={<Icon size={14} />}
                      onClick={press({ kind: 'key', key })}
                      disabled={!inControl}
                    >
                      {label}
                    </Button>
                  ))}
                  <Button
                    size="compact-sm"
                    variant="default"
                    leftSection={<IconRotateClockwise2 size={14} />}
                    onClick={press({ kind: 'rotate' })}
                    disabled={!inControl}
                  >
                    Rotate
                  </Button>
                </Group>
                <RecordPanel setRecorder={live.setRecorder} snapshot={snapshot} />
                <form onSubmit={sendPasted}>
                  <Group gap={6} wrap="nowrap" align="flex-end">
                    <TextInput
                      size="xs"
                      aria-label="Paste text"
                      placeholder="Paste text"
                      value={pasted}
                      onChange={(event) => setPasted(event.currentTarget.value)}
                      style={{ flex: 1, minWidth: 0 }}
                    />
                    <Button type="submit" size="xs" variant="light" leftSection={<IconClipboardText size={14} />} disabled={!inControl || !pasted}>
                      Send text
                    </Button>
                  </Group>
                </form>
              </>
            ) : null}
          </Stack>
        ) : null}
      </Group>
      {capture ? (
        <InspectPanel
          deviceId={device.id}
          deviceName={device.name}
          capture={capture}
          onClose={() => setCapture(null)}
          onRetake={inspect}
          retaking={inspecting}
        />
      ) : null}
    </Stack>
  );
}
