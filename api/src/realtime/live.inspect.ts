/**
 * Inspect: a phone's UI tree and screen, read through its agent for someone who may control it. The phone may be held
 * by another instance, so the read is asked on the live bus and answered there; the capture is checked against its
 * schema where the phone is held, before it travels, and its picture crosses the bus as base64.
 */
import { randomUUID } from 'node:crypto';
import { uiCaptureSchema, type UiCapture } from '@farm/agent-protocol';
import type { LiveAnswer, LiveCaptureOut } from '@farm/contracts';
import { findLiveDevice, mayControl } from '../modules/usage/usage.queries.ts';
import type { Db } from '../shared/types.ts';
import type { LiveBus } from './live.bus.ts';
import type { LiveHeld } from './live.held.ts';
import type { LiveWatchers } from './live.watchers.ts';
import { refuse, type LiveSocket, type Message, type Signal } from './live.shared.ts';

/** A UI tree read can take seconds (`uiautomator dump` about 2.5 s); the capture waits this long. */
const CAPTURE_TIMEOUT_MS = 20_000;

/** The captures asked from here, waiting for the phone's instance to answer. */
export class LiveInspect {
  private readonly pendingCaptures = new Map<string, { answer: (answer: LiveAnswer<{ capture: LiveCaptureOut }>) => void; timer: NodeJS.Timeout }>();
  private readonly me: string;

  constructor(
    private readonly bus: LiveBus,
    private readonly db: Db,
    private readonly watchers: LiveWatchers,
    private readonly held: LiveHeld,
  ) {
    this.me = bus.instanceId;
  }

  /** The screen's UI tree and frame, for whoever may control the phone (a VA: the phones assigned to them). */
  async onInspect(socket: LiveSocket, { deviceId }: Message<'live.inspect'>): Promise<LiveAnswer<{ capture: LiveCaptureOut }>> {
    if (!this.watchers.watchOf(socket, deviceId)) return refuse("Open the phone's live screen before inspecting it");
    const device = await findLiveDevice(this.db, socket.data.workspaceId, deviceId);
    if (!device) return refuse('This phone is not in your workspace');
    if (!mayControl(socket.data, device)) return refuse('Only operators and the VA this phone is assigned to may inspect it');
    const reqId = randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pendingCaptures.delete(reqId);
        resolve(refuse('The phone did not send its screen in time. Is it still connected?'));
      }, CAPTURE_TIMEOUT_MS + 1000);
      this.pendingCaptures.set(reqId, { answer: resolve, timer });
      this.bus.signal({ t: 'inspect', from: this.me, reqId, deviceId });
    });
  }

  /** A capture asked of a phone held here: read through its agent, checked, and answered to the asking instance. */
  heardInspect(message: Signal<'inspect'>): void {
    const phone = this.held.phoneOf(message.deviceId);
    if (!phone) return;
    const answer = (result: { ok: true; capture: unknown } | { ok: false; error: string }) =>
      this.bus.signal({ t: 'inspect.result', from: this.me, to: message.from, reqId: message.reqId, ...result });
    if (!phone.phone.features.has('inspect')) {
      answer({ ok: false, error: "This phone's agent cannot be inspected. Update farm-agent on it to use Inspect." });
      return;
    }
    phone.phone.capture(CAPTURE_TIMEOUT_MS).then(
      (ack) => {
        if (!ack.ok) return answer({ ok: false, error: ack.error });
        const parsed = uiCaptureSchema.safeParse((ack as { capture?: unknown }).capture);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          return answer({
            ok: false,
            error: `The phone sent a screen that cannot be read: ${issue?.path.join('.') || 'capture'}: ${issue?.message ?? 'not valid'}`,
          });
        }
        const { frame, ...rest } = parsed.data;
        answer({ ok: true, capture: { ...rest, frame: { ...frame, data: Buffer.from(frame.data).toString('base64') } } });
      },
      () => answer({ ok: false, error: 'The phone did not send its screen in time. Is it still connected?' }),
    );
  }

  heardInspectResult(message: Signal<'inspect.result'>): void {
    if (message.to !== this.me) return;
    const pending = this.pendingCaptures.get(message.reqId);
    if (!pending) return;
    this.pendingCaptures.delete(message.reqId);
    clearTimeout(pending.timer);
    if (!message.ok) {
      pending.answer(refuse(message.error ?? 'The phone could not read its screen'));
      return;
    }
    const capture = message.capture as Omit<UiCapture, 'frame'> & { frame: Omit<UiCapture['frame'], 'data'> & { data: string } };
    pending.answer({ ok: true, capture: { ...capture, frame: { ...capture.frame, data: Buffer.from(capture.frame.data, 'base64') } } });
  }

  /** The server stops: captures still waiting are not answered. */
  clearPending(): void {
    for (const pending of this.pendingCaptures.values()) clearTimeout(pending.timer);
  }
}
