/**
 * A phone may report a task's progress many times a second (the reference agent at every step of a recipe); the
 * console shows it about once a second. The first report of an attempt is written at once, unless the phone's ack
 * was written within the interval (it moved the task to in progress and renewed the lease already); later ones
 * within the interval after a write wait, and only the newest of them is written when the interval ends, unless
 * the attempt's result comes first (it says more). Each written report renews the lease, so the interval stays well
 * inside the lease's window. Measured (bench/scheduler): a phone's five progress reports were five of a post's
 * eight task updates and the largest part of its statements' time.
 */
import type { AgentDevice } from './agents.queries.ts';

export const PROGRESS_MS = 1000;

/** A phone's report on an attempt, as the lifecycle takes it. */
export interface ProgressReport {
  taskId: string;
  attempt: number;
  percent: number;
  note?: string | undefined;
}

type Write = (device: AgentDevice, report: ProgressReport) => Promise<void>;

interface Slot {
  device: AgentDevice;
  attempt: number;
  /** The newest report not yet written. */
  waiting: ProgressReport | undefined;
  timer: NodeJS.Timeout;
}

export class ProgressGate {
  /** Attempts written within the last interval, by task. */
  private readonly slots = new Map<string, Slot>();
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly write: Write,
    private readonly onError: (error: unknown) => void,
    /** Read at each write, so a shorter lease window in the settings shortens it. */
    private readonly intervalMs: () => number = () => PROGRESS_MS,
  ) {}

  /** Writes the report now if nothing of its attempt was written within the interval; otherwise keeps it for then. */
  report(device: AgentDevice, report: ProgressReport): Promise<void> {
    const slot = this.slots.get(report.taskId);
    if (slot && slot.attempt === report.attempt && slot.device.id === device.id) {
      slot.waiting = report;
      return Promise.resolve();
    }
    // A report on an older attempt, or on this attempt from another phone, is passed on as it is (the lifecycle
    // refuses it); it does not disturb the interval of the attempt out.
    if (slot && (report.attempt < slot.attempt || (report.attempt === slot.attempt && slot.device.id !== device.id))) {
      return this.track(this.write(device, report));
    }
    // A newer attempt starts afresh: what waited of the older one is stale.
    if (slot) clearTimeout(slot.timer);
    this.slots.set(report.taskId, { device, attempt: report.attempt, waiting: undefined, timer: this.arm(report.taskId) });
    return this.track(this.write(device, report));
  }

  /**
   * The phone's ack of the attempt was written: it opens the attempt's first interval, so a report right after it
   * waits (a task of a few seconds is then acked, reported once a second and settled, not written at every step).
   */
  acked(device: AgentDevice, taskId: string, attempt: number): void {
    const slot = this.slots.get(taskId);
    if (slot && slot.attempt >= attempt) return;
    if (slot) clearTimeout(slot.timer);
    this.slots.set(taskId, { device, attempt, waiting: undefined, timer: this.arm(taskId) });
  }

  /** The phone's result arrived: what waits of its attempt is not written. */
  settle(taskId: string, deviceId: string): void {
    const slot = this.slots.get(taskId);
    if (!slot || slot.device.id !== deviceId) return;
    clearTimeout(slot.timer);
    this.slots.delete(taskId);
  }

  /** How many reports wait to be written. */
  get waiting(): number {
    let n = 0;
    for (const slot of this.slots.values()) if (slot.waiting) n++;
    return n;
  }

  /** Writes everything waiting and forgets the intervals (the process is stopping). */
  async close(): Promise<void> {
    const slots = [...this.slots.values()];
    this.slots.clear();
    for (const slot of slots) {
      clearTimeout(slot.timer);
      // A failed last write is told like any other (the caller of close() drops its rejection unheard).
      if (slot.waiting) void this.track(this.write(slot.device, slot.waiting)).catch(this.onError);
    }
    while (this.writing.size > 0) await Promise.all(this.writing);
  }

  private arm(taskId: string): NodeJS.Timeout {
    const timer = setTimeout(() => this.elapse(taskId), this.intervalMs());
    timer.unref();
    return timer;
  }

  /** The interval after a write ended: the newest report that waited is written, and a new interval begins. */
  private elapse(taskId: string): void {
    const slot = this.slots.get(taskId);
    if (!slot) return;
    const report = slot.waiting;
    if (!report) {
      this.slots.delete(taskId);
      return;
    }
    slot.waiting = undefined;
    slot.timer = this.arm(taskId);
    void this.track(this.write(slot.device, report)).catch(this.onError);
  }

  private track(write: Promise<void>): Promise<void> {
    this.writing.add(write);
    const done = () => this.writing.delete(write);
    write.then(done, done);
    return write;
  }
}
