import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentDevice } from './agents.queries.ts';
import { ProgressGate, type ProgressReport } from './progress.ts';

const phone = { id: 'phone-1', workspaceId: 'ws-1', name: 'Pixel 1' } as AgentDevice;
const other = { id: 'phone-2', workspaceId: 'ws-1', name: 'Pixel 2' } as AgentDevice;

describe('the progress gate', () => {
  let written: { device: string; report: ProgressReport }[];
  let gate: ProgressGate;

  beforeEach(() => {
    vi.useFakeTimers();
    written = [];
    gate = new ProgressGate(
      async (device, report) => {
        written.push({ device: device.id, report });
      },
      (error) => {
        throw error;
      },
      () => 1000,
    );
  });
  afterEach(() => vi.useRealTimers());

  const report = (percent: number, attempt = 1, taskId = 'task-1'): ProgressReport => ({ taskId, attempt, percent, note: `step ${percent}` });
  const percents = () => written.map((w) => w.report.percent);

  it('writes the first report of an attempt at once, then only the newest of each interval', async () => {
    await gate.report(phone, report(10));
    await gate.report(phone, report(20));
    await gate.report(phone, report(30));
    expect(percents()).toEqual([10]);
    expect(gate.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(percents()).toEqual([10, 30]);
    // The next interval runs from that write: a report within it waits again.
    await gate.report(phone, report(40));
    expect(percents()).toEqual([10, 30]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(percents()).toEqual([10, 30, 40]);
    // An interval with nothing new closes; the next report is written at once.
    await vi.advanceTimersByTimeAsync(1000);
    await gate.report(phone, report(50));
    expect(percents()).toEqual([10, 30, 40, 50]);
  });

  it("counts the phone's ack as the attempt's first write: a report right after it waits, a short task writes none", async () => {
    gate.acked(phone, 'task-1', 1);
    await gate.report(phone, report(10));
    await gate.report(phone, report(40));
    expect(percents()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(percents()).toEqual([40]);

    // A task done within a second of its ack: its reports are never written, the result says more.
    gate.acked(phone, 'task-2', 1);
    await gate.report(phone, report(50, 1, 'task-2'));
    gate.settle('task-2', phone.id);
    await vi.advanceTimersByTimeAsync(5000);
    expect(percents()).toEqual([40]);

    // An ack of an older attempt (late, refused by the lifecycle anyway) leaves the newer attempt's interval alone,
    // and an ack after a quiet interval opens a new one.
    await gate.report(phone, report(10, 3, 'task-3'));
    gate.acked(phone, 'task-3', 2);
    await gate.report(phone, report(20, 3, 'task-3'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(written.filter((w) => w.report.taskId === 'task-3').map((w) => w.report.percent)).toEqual([10, 20]);
  });

  it('drops what waits when the result comes, and writes a new attempt at once', async () => {
    await gate.report(phone, report(10));
    await gate.report(phone, report(90));
    gate.settle('task-1', phone.id);
    await vi.advanceTimersByTimeAsync(5000);
    expect(percents()).toEqual([10]);

    await gate.report(phone, report(10, 2));
    await gate.report(phone, report(50, 2));
    // Attempt 3 begins before attempt 2's interval ends: attempt 2's waiting report is stale and never written.
    await gate.report(phone, report(5, 3));
    await vi.advanceTimersByTimeAsync(5000);
    expect(written.map((w) => [w.report.attempt, w.report.percent])).toEqual([
      [1, 10],
      [2, 10],
      [3, 5],
    ]);
  });

  it("passes on another phone's report or an older attempt's without disturbing the attempt out", async () => {
    await gate.report(phone, report(10, 2));
    await gate.report(phone, report(30, 2));
    await gate.report(other, report(99, 2));
    await gate.report(phone, report(99, 1));
    await vi.advanceTimersByTimeAsync(1000);
    expect(written.map((w) => [w.device, w.report.attempt, w.report.percent])).toEqual([
      ['phone-1', 2, 10],
      ['phone-2', 2, 99],
      ['phone-1', 1, 99],
      ['phone-1', 2, 30],
    ]);
  });

  it("keeps each task's interval apart, and another phone's result does not drop this phone's report", async () => {
    await gate.report(phone, report(10, 1, 'task-1'));
    await gate.report(other, report(10, 1, 'task-2'));
    await gate.report(phone, report(60, 1, 'task-1'));
    gate.settle('task-1', other.id);
    await vi.advanceTimersByTimeAsync(1000);
    expect(written.map((w) => [w.device, w.report.taskId, w.report.percent])).toEqual([
      ['phone-1', 'task-1', 10],
      ['phone-2', 'task-2', 10],
      ['phone-1', 'task-1', 60],
    ]);
  });

  it('tells a failed write of what waited when it closes', async () => {
    const errors: unknown[] = [];
    const failing = new ProgressGate(
      async (_device, report) => {
        if (report.percent === 70) throw new Error('database gone');
      },
      (error) => errors.push(error),
      () => 1000,
    );
    await failing.report(phone, report(10));
    await failing.report(phone, report(70));
    await expect(failing.close()).rejects.toThrow('database gone');
    expect(errors).toEqual([new Error('database gone')]);
  });

  it('writes what waits when it closes', async () => {
    await gate.report(phone, report(10));
    await gate.report(phone, report(70));
    await gate.close();
    expect(percents()).toEqual([10, 70]);
    expect(gate.waiting).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(percents()).toEqual([10, 70]);
  });
});
