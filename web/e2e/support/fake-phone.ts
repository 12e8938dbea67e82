/**
 * A protocol 2 phone the test drives on the API's agent socket (it says which Instagram it has and reports what the
 * test says), and a POST that must succeed: shared by the recipe breaker and recipe health browser tests.
 */
import { expect, type APIRequestContext } from '@playwright/test';
import { io, type Socket } from 'socket.io-client';

export const json = { 'Content-Type': 'application/json' };
export const IG = 'com.instagram.android';

export interface Dispatch {
  taskId: string;
  attempt: number;
}

/** A protocol 2 phone that says which Instagram it has and reports what the test says. */
export class Phone {
  readonly dispatches: Dispatch[] = [];
  /** Dry runs it was handed (phones that listed `dryrun`), and the runs it was told to go on with or stop. */
  readonly dryRuns: { runId: string; mode: string; effects: boolean }[] = [];
  readonly nexts: string[] = [];
  readonly stops: string[] = [];
  private constructor(private readonly socket: Socket) {
    socket.on('task.dispatch', (message: Dispatch) => this.dispatches.push(message));
    socket.on('dryrun.start', (message: { runId: string; mode: string; effects: boolean }, ack: (answer: unknown) => void) => {
      this.dryRuns.push(message);
      ack({ ok: true });
    });
    socket.on('dryrun.next', (message: { runId: string }) => this.nexts.push(message.runId));
    socket.on('dryrun.stop', (message: { runId: string }) => this.stops.push(message.runId));
  }

  static async connect(baseURL: string, token: string, version: string, features: string[] = []): Promise<Phone> {
    const socket = io(`${baseURL}/agent`, { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const phone = new Phone(socket);
    expect(
      await phone.send('agent.hello', {
        protocol: 2,
        agentVersion: 'e2e-v2',
        battery: 88,
        apps: [{ package: IG, version }],
        ...(features.length > 0 ? { features } : {}),
      }),
    ).toMatchObject({ ok: true });
    return phone;
  }

  send(event: string, message: unknown): Promise<{ ok: boolean }> {
    return new Promise((resolve) => this.socket.emit(event, message, resolve));
  }

  /** The `count`th dry run it was handed. */
  async dryRun(count: number): Promise<{ runId: string; mode: string; effects: boolean }> {
    await expect.poll(() => this.dryRuns.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
    return this.dryRuns[count - 1]!;
  }

  async dispatched(count: number): Promise<Dispatch> {
    await expect.poll(() => this.dispatches.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
    return this.dispatches[count - 1]!;
  }

  close(): void {
    this.socket.disconnect();
  }
}

export async function post<T>(request: APIRequestContext, url: string, data: unknown): Promise<T> {
  const answer = await request.post(url, { data, headers: json });
  expect(answer.status(), `${url}: ${await answer.text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
}
