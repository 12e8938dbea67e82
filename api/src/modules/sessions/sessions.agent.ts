/**
 * A phone's screenshots (`agent.screenshot`), the sessions' side of /agent: each is stored, counted on the phone's
 * open session and shown at once (`screenshot.added`, `session.updated`), within the workspace's storage quota. A
 * phone sends them at most `screenshotsPerMinute`, and this process stores at most MAX_SCREENSHOTS_IN_FLIGHT at once,
 * shared fairly between workspaces: what is over is refused (a protocol 2 phone is told when to send again) or
 * dropped, never queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import { randomUUID } from 'node:crypto';
import { MAX_SCREENSHOT_BYTES, type Ack, type AgentMessage } from '@farm/agent-protocol';
import { automation } from '@farm/workers';
import type { AgentPeer, FeatureMessages } from '../../agents/agents.features.ts';
import { write, type WriteContext } from '../../events/write.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { storageFullMessage } from '../uploads/uploads.service.ts';
import { recordScreenshot } from './sessions.queries.ts';
import { toSession } from './sessions.service.ts';

/**
 * Screenshots being stored at once by this process. Beyond this, a new one is skipped (the phone sends another at
 * its next interval) rather than queued: under overload a queue of 60 KB images grows the process by gigabytes and
 * delays heartbeats and work with it (bench/agents: 4,000 phones on one process).
 */
export const MAX_SCREENSHOTS_IN_FLIGHT = 64;
/** How long a protocol 2 phone holds its screenshots after one was refused for a full workspace storage. */
export const STORAGE_FULL_WAIT_MS = 5 * 60_000;
export const SCREENSHOT_SKIPPED = 'The server is busy: this screenshot was skipped';

const ok: Ack = { ok: true };

/**
 * Screenshots per phone in the last minute (a phone's socket lives on one process, so a process counts its own): one
 * phone sending without pause would otherwise fill the workspace's storage and take the in-flight slots of every
 * other workspace's phones. Live streams are frames, not screenshots, and are not counted.
 */
export class ScreenshotRate {
  private readonly sent = new Map<string, number[]>();

  /** Answers 0 when this phone may send one now (and counts it), else how long until it may. */
  take(deviceId: string, perMinute: number, now = Date.now()): number {
    const recent = (this.sent.get(deviceId) ?? []).filter((at) => at > now - 60_000);
    if (recent.length >= perMinute) {
      this.sent.set(deviceId, recent);
      return recent[0]! + 60_000 - now;
    }
    recent.push(now);
    this.sent.set(deviceId, recent);
    return 0;
  }

  forget(deviceId: string): void {
    this.sent.delete(deviceId);
  }
}

/**
 * The in-flight slots, shared fairly: while several workspaces store screenshots, none holds more than its share
 * (the slots divided by the workspaces using them now), so one workspace's phones cannot take every slot while
 * another's wait. A workspace alone may use them all.
 */
export class FairSlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(private readonly size: number) {}

  /** Takes a slot for the workspace, or answers false. */
  take(workspaceId: string): boolean {
    if (this.total >= this.size) return false;
    const mine = this.held.get(workspaceId) ?? 0;
    const sharing = this.held.size + (mine === 0 ? 1 : 0);
    if (mine >= Math.max(1, Math.floor(this.size / sharing))) return false;
    this.held.set(workspaceId, mine + 1);
    this.total += 1;
    return true;
  }

  give(workspaceId: string): void {
    const mine = this.held.get(workspaceId) ?? 0;
    if (mine <= 1) this.held.delete(workspaceId);
    else this.held.set(workspaceId, mine - 1);
    this.total -= 1;
  }
}

interface ScreenshotContext extends WriteContext {
  storage: Storage;
  log: FastifyBaseLogger;
}

/** The sessions' answers to phone messages: a screenshot. */
export function sessionsAgent(ctx: ScreenshotContext): { messages: Pick<FeatureMessages, 'agent.screenshot'> } {
  const slots = new FairSlots(MAX_SCREENSHOTS_IN_FLIGHT);
  const rate = new ScreenshotRate();
  return {
    messages: {
      async 'agent.screenshot'(peer, message) {
        const waitMs = rate.take(peer.device.id, automation().screenshotsPerMinute);
        if (waitMs > 0) {
          // A protocol 1 phone knows no waiting: its extra screenshot is acknowledged and dropped.
          if (peer.protocol === 1) return ok;
          const seconds = Math.ceil(waitMs / 1000);
          return { ok: false, error: `Too many screenshots from this phone: send the next in ${seconds} s`, retryAfterMs: waitMs };
        }
        const workspaceId = peer.device.workspaceId;
        if (!slots.take(workspaceId)) return { ok: false, error: SCREENSHOT_SKIPPED };
        try {
          return await storeScreenshot(ctx, peer, message);
        } finally {
          slots.give(workspaceId);
        }
      },
    },
  };
}

async function storeScreenshot(ctx: ScreenshotContext, peer: AgentPeer, message: AgentMessage<'agent.screenshot'>): Promise<Ack> {
  const bytes = Buffer.from(message.data, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_SCREENSHOT_BYTES) return { ok: false, error: `A screenshot must be 1 to ${MAX_SCREENSHOT_BYTES} bytes` };
  const key = randomUUID();
  await ctx.storage.write(key, bytes);
  const capturedAt = message.capturedAt && !Number.isNaN(Date.parse(message.capturedAt)) ? new Date(message.capturedAt) : new Date();
  const quota = automation().storageQuotaBytes;
  const { device } = peer;
  const shot = await write(ctx, device.workspaceId, async (tx, outbox) => {
    const recorded = await recordScreenshot(tx, device, { key, mime: message.mime, size: bytes.length, capturedAt }, quota);
    if ('full' in recorded) return recorded;
    if (recorded.session) outbox.add('session.updated', toSession(recorded.session));
    outbox.add('screenshot.added', { deviceId: device.id, sessionId: recorded.sessionId, url: objectPath(key), capturedAt: recorded.capturedAt.toISOString() });
    return recorded;
  });
  if ('full' in shot) {
    // Over the workspace's storage quota: acknowledged and dropped, the reason logged; a protocol 2 phone is told why
    // and holds its screenshots a while (a protocol 1 phone knows no waiting).
    await ctx.storage.remove([key]);
    const reason = storageFullMessage(shot.used, bytes.length, quota);
    ctx.log.warn({ deviceId: device.id, workspaceId: device.workspaceId, used: shot.used, quota }, `screenshot dropped: ${reason}`);
    return peer.protocol === 1 ? ok : { ok: false, error: `Screenshot not stored: ${reason}`, retryAfterMs: STORAGE_FULL_WAIT_MS };
  }
  return ok;
}
