/**
 * farm-agent's simulator backend: a phone whose battery drains and charges, that works the tasks it is given step
 * by step (publishing a post, running a routine within its allowance) with occasional failures carrying reason
 * codes, and shows a screen. `SimulatedPhone` is the reference agent driving it.
 */
import { deflateSync } from 'node:zlib';
import type { FailureCode } from '../failures.ts';
import type { ServerMessage } from '../messages.ts';
import type { EngagementCounts, TaskWork } from '../work.ts';
import type { Journal } from './journal.ts';
import type { PhoneBackend, WorkContext, WorkOutcome } from './phone-agent.backend.ts';
import { PhoneAgent } from './phone-agent.ts';

export interface SimulatorOptions {
  url: string;
  token: string;
  /** Screenshot every this many ms (0 or unset: only on command). */
  screenshotMs?: number;
  /** How long a task takes on this phone. */
  workMs?: number;
  /** Chance that a task fails, 0..1. */
  failureRate?: number;
  battery?: number;
  journal?: Journal;
  model?: string;
  log?: (line: string) => void;
  random?: () => number;
  reconnectionDelayMs?: number;
}

/** Failures a simulated phone meets, most often first. */
const SIMULATED_FAILURES: { code: FailureCode; message: string; weight: number }[] = [
  { code: 'element_missing', message: 'The share button did not appear', weight: 5 },
  { code: 'app_crashed', message: 'The app closed unexpectedly', weight: 3 },
  { code: 'network', message: 'The phone lost its network', weight: 2 },
  { code: 'rate_limited', message: 'The app says to try again later', weight: 1 },
];

export class SimulatedBackend implements PhoneBackend {
  battery: number;
  charging = false;
  paused = false;
  private readonly random: () => number;

  constructor(private readonly options: Pick<SimulatorOptions, 'workMs' | 'failureRate' | 'battery' | 'model' | 'random'> = {}) {
    this.battery = options.battery ?? 100;
    this.random = options.random ?? Math.random;
  }

  describe() {
    return { model: this.options.model ?? 'Simulated Pixel', androidVersion: '14', agentVersion: 'farm-agent-sim/2' };
  }

  state() {
    // Drains while it works, charges on the cable below a fifth, as farm phones on hubs do.
    if (this.charging) this.battery = Math.min(100, this.battery + 1);
    else if (this.random() < 0.2) this.battery = Math.max(1, this.battery - 1);
    if (this.battery <= 20) this.charging = true;
    if (this.battery >= 95) this.charging = false;
    return { battery: this.battery, charging: this.charging, screenOn: !this.paused, status: this.paused ? ('idle' as const) : ('online' as const) };
  }

  async screenshot() {
    const shade = Math.floor(this.random() * 200);
    return { mime: 'image/png' as const, data: solidPng(64, 128, [shade, (shade * 3) % 255, 180]) };
  }

  command(name: ServerMessage<'command'>['name']): void {
    if (name === 'pause') this.paused = true;
    if (name === 'resume' || name === 'restart_session') this.paused = false;
  }

  async run(work: TaskWork, context: WorkContext): Promise<WorkOutcome> {
    const steps = stepsOf(work);
    const each = (this.options.workMs ?? 3000) / steps.length;
    for (const [index, step] of steps.entries()) {
      await delay(each, context.signal);
      if (context.signal.aborted) return { status: 'failed', code: 'cancelled' };
      context.progress(((index + 1) / steps.length) * 100, step);
    }
    if (this.random() < (this.options.failureRate ?? 0)) {
      const failure = pick(SIMULATED_FAILURES, this.random);
      return { status: 'failed', code: failure.code, message: failure.message };
    }
    if (work.kind === 'routine.run') return { status: 'completed', engagement: this.engagement(work.allowance, work.intensity) };
    return { status: 'completed' };
  }

  /** What a routine did: a few actions per kind, never past what the account may still do today. */
  private engagement(allowance: EngagementCounts, intensity: number) {
    const some = (left: number, most: number) => Math.min(left, Math.floor(this.random() * most * Math.max(1, intensity)));
    return { likes: some(allowance.likes, 4), follows: some(allowance.follows, 1), comments: some(allowance.comments, 1) };
  }
}

function stepsOf(work: TaskWork): string[] {
  switch (work.kind) {
    case 'post.publish':
      return [`Open ${work.account.platform}`, 'Push the media', 'Write the caption', 'Publish', 'Confirm it is live'];
    case 'routine.run':
      return [`Open ${work.platform}`, 'Browse the feed', ...(work.keywords.length > 0 ? [`Search "${work.keywords[0]}"`] : []), 'Engage', 'Close the app'];
    case 'manual':
      return ['Work the task'];
  }
}

function pick<T extends { weight: number }>(items: T[], random: () => number): T {
  let roll = random() * items.reduce((sum, item) => sum + item.weight, 0);
  for (const item of items) {
    roll -= item.weight;
    if (roll <= 0) return item;
  }
  return items[items.length - 1]!;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** The reference agent driving a simulated phone. */
export class SimulatedPhone extends PhoneAgent {
  readonly phone: SimulatedBackend;

  constructor(options: SimulatorOptions) {
    const backend = new SimulatedBackend(options);
    super({
      url: options.url,
      token: options.token,
      backend,
      ...(options.journal ? { journal: options.journal } : {}),
      ...(options.screenshotMs ? { screenshotMs: options.screenshotMs } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.reconnectionDelayMs !== undefined ? { reconnectionDelayMs: options.reconnectionDelayMs } : {}),
    });
    this.phone = backend;
  }
}

/** A PNG of one colour. */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (table[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0).map((_, i) => [r, g, b][i % 3] ?? 0)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
