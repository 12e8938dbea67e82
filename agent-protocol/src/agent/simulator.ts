/**
 * farm-agent's simulator backend: a phone that connects with its device credential, says hello, heartbeats
 * with a slowly draining battery, sends a screenshot now and then (and on command), and works every task it is
 * given: ack, progress, result. Results are repeated until acknowledged, as a phone on a flaky network would.
 */
import { io, type Socket } from 'socket.io-client';
import { deflateSync } from 'node:zlib';
import { AGENT_NAMESPACE, PROTOCOL_VERSION, serverMessages, type Ack, type AgentToServer, type ServerMessage, type ServerToAgent } from '../messages.ts';

export interface SimulatorOptions {
  url: string;
  token: string;
  heartbeatMs?: number;
  screenshotMs?: number;
  /** How long a task takes on this phone. */
  workMs?: number;
  /** Chance that a task fails, 0..1. */
  failureRate?: number;
  battery?: number;
  log?: (line: string) => void;
}

export class SimulatedPhone {
  readonly socket: Socket<ServerToAgent, AgentToServer>;
  battery: number;
  paused = false;
  readonly completed: string[] = [];
  private timers: NodeJS.Timeout[] = [];
  private shots = 0;

  constructor(private readonly options: SimulatorOptions) {
    this.battery = options.battery ?? 100;
    this.socket = io(new URL(AGENT_NAMESPACE, options.url).toString(), {
      transports: ['websocket'],
      auth: { token: options.token },
      reconnectionDelay: 500,
      reconnectionDelayMax: 5000,
    });
    this.socket.on('connect', () => {
      this.log('connected');
      this.socket.emit('agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'farm-agent-sim/1', model: 'Simulated Pixel', androidVersion: '14', battery: this.battery });
    });
    this.socket.on('connect_error', (error) => this.log(`cannot connect: ${error.message}`));
    this.socket.on('disconnect', (reason) => this.log(`disconnected: ${reason}`));
    this.socket.on('task.dispatch', (raw) => {
      const parsed = serverMessages['task.dispatch'].safeParse(raw);
      if (parsed.success) void this.work(parsed.data);
    });
    this.socket.on('command', (raw) => {
      const parsed = serverMessages.command.safeParse(raw);
      if (!parsed.success) return;
      this.log(`command: ${parsed.data.name}`);
      if (parsed.data.name === 'screenshot') this.screenshot();
      if (parsed.data.name === 'pause') this.paused = true;
      if (parsed.data.name === 'resume' || parsed.data.name === 'restart_session') this.paused = false;
    });
    this.timers.push(setInterval(() => this.heartbeat(), options.heartbeatMs ?? 5000));
    if (options.screenshotMs) this.timers.push(setInterval(() => this.screenshot(), options.screenshotMs));
  }

  heartbeat(): void {
    if (!this.socket.connected) return;
    this.battery = Math.max(1, this.battery - (Math.random() < 0.2 ? 1 : 0));
    this.socket.emit('agent.heartbeat', { battery: this.battery, status: this.paused ? 'idle' : 'online' });
  }

  screenshot(): void {
    if (!this.socket.connected) return;
    this.shots += 1;
    const data = solidPng(64, 128, [(this.shots * 47) % 255, (this.shots * 89) % 255, 180]).toString('base64');
    this.socket.emit('agent.screenshot', { mime: 'image/png', data, capturedAt: new Date().toISOString() });
  }

  private async work(task: ServerMessage<'task.dispatch'>): Promise<void> {
    this.log(`task ${task.taskId} (attempt ${task.attempt}): ${task.title}`);
    this.socket.emit('task.ack', { taskId: task.taskId, attempt: task.attempt });
    const steps = 4;
    for (let step = 1; step <= steps; step++) {
      await delay((this.options.workMs ?? 3000) / steps);
      if (!this.socket.connected) return; // the lease ends with the connection; the server hands the task out again
      this.socket.emit('task.progress', { taskId: task.taskId, attempt: task.attempt, percent: (step / steps) * 100 });
    }
    const failed = Math.random() < (this.options.failureRate ?? 0);
    const result = { taskId: task.taskId, attempt: task.attempt, status: failed ? ('failed' as const) : ('completed' as const), ...(failed ? { error: 'The app showed an unexpected dialog' } : {}) };
    for (let tries = 0; tries < 5; tries++) {
      const answer = await new Promise<Ack | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 3000);
        this.socket.emit('task.result', result, (ack: Ack) => {
          clearTimeout(timer);
          resolve(ack);
        });
      });
      if (answer?.ok) break;
      await delay(1000 * (tries + 1));
    }
    this.completed.push(task.taskId);
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.socket.disconnect();
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A PNG of one colour: what the simulated screen shows. */
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
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}
