/**
 * The agent's journal: every task it started and every result it made, kept on disk (owner-only) before anything is
 * sent, so the phone runs each task at most once whatever the network or the agent process does. A task dispatched
 * again is answered from here; results made while disconnected are sent on reconnect before anything else.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentMessage } from '../messages.ts';

export type TaskResult = AgentMessage<'task.result'>;

export interface JournalEntry {
  taskId: string;
  /** The attempt this phone ran. */
  attempt: number;
  state: 'running' | 'done' | 'dropped';
  startedAt: string;
  result?: TaskResult;
  /** The server acknowledged the result. */
  sent?: boolean;
}

type Line =
  | { t: 'start'; taskId: string; attempt: number; at: string; n?: number }
  | { t: 'done'; taskId: string; result: TaskResult }
  | { t: 'sent'; taskId: string }
  | { t: 'drop'; taskId: string };

/** Entries kept after compaction: the newest ones (a phone runs a few hundred tasks a day). */
const KEEP = 5_000;

export class Journal {
  private readonly entries = new Map<string, JournalEntry>();
  private readonly starts = new Map<string, number>();
  private readonly completions = new Map<string, number>();

  /** In memory only when no file is given (tests, throwaway simulators). */
  constructor(private readonly file?: string) {
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    if (existsSync(file)) {
      for (const text of readFileSync(file, 'utf8').split('\n')) {
        if (!text.trim()) continue;
        try {
          this.apply(JSON.parse(text) as Line);
        } catch {
          // A line torn by a crash mid-write: everything before it stands.
        }
      }
    }
    this.compact();
  }

  get(taskId: string): JournalEntry | undefined {
    return this.entries.get(taskId);
  }

  started(taskId: string, attempt: number): void {
    this.write({ t: 'start', taskId, attempt, at: new Date().toISOString(), n: (this.starts.get(taskId) ?? 0) + 1 });
  }

  finished(taskId: string, result: TaskResult): void {
    this.write({ t: 'done', taskId, result });
  }

  sent(taskId: string): void {
    if (this.entries.get(taskId)?.sent) return;
    this.write({ t: 'sent', taskId });
  }

  /** The server called the attempt off: nothing more is sent for it. */
  dropped(taskId: string): void {
    this.write({ t: 'drop', taskId });
  }

  /** Results the server has not acknowledged yet, oldest first. */
  unsent(): TaskResult[] {
    return [...this.entries.values()].filter((entry) => entry.state === 'done' && !entry.sent && entry.result).map((entry) => entry.result!);
  }

  /** Tasks started and never finished: the agent stopped in the middle of them. */
  interrupted(): JournalEntry[] {
    return [...this.entries.values()].filter((entry) => entry.state === 'running');
  }

  /** How many times this phone started each task (a start called off midway counts too). */
  runCounts(): Map<string, number> {
    return new Map(this.starts);
  }

  /** How many times this phone carried each task out to the end, since the journal was opened: what "run twice" means. */
  completedRuns(): Map<string, number> {
    return new Map(this.completions);
  }

  private apply(line: Line): void {
    switch (line.t) {
      case 'start':
        this.starts.set(line.taskId, Math.max(line.n ?? 1, (this.starts.get(line.taskId) ?? 0) + (line.n === undefined ? 1 : 0)));
        this.entries.set(line.taskId, { taskId: line.taskId, attempt: line.attempt, state: 'running', startedAt: line.at });
        return;
      case 'done': {
        if (line.result.status === 'completed') this.completions.set(line.taskId, (this.completions.get(line.taskId) ?? 0) + 1);
        const entry = this.entries.get(line.taskId);
        if (entry) Object.assign(entry, { state: 'done', result: line.result });
        return;
      }
      case 'sent': {
        const entry = this.entries.get(line.taskId);
        if (entry) entry.sent = true;
        return;
      }
      case 'drop': {
        const entry = this.entries.get(line.taskId);
        if (entry) entry.state = 'dropped';
        return;
      }
    }
  }

  private write(line: Line): void {
    this.apply(line);
    if (this.file) appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
  }

  /** Rewrites the file with what matters (the newest entries), so it does not grow for ever. */
  private compact(): void {
    if (!this.file) return;
    const kept = [...this.entries.values()].slice(-KEEP);
    this.entries.clear();
    const lines: Line[] = [];
    for (const entry of kept) {
      lines.push({ t: 'start', taskId: entry.taskId, attempt: entry.attempt, at: entry.startedAt, n: this.starts.get(entry.taskId) ?? 1 });
      if (entry.result) lines.push({ t: 'done', taskId: entry.taskId, result: entry.result });
      if (entry.sent) lines.push({ t: 'sent', taskId: entry.taskId });
      if (entry.state === 'dropped') lines.push({ t: 'drop', taskId: entry.taskId });
    }
    this.starts.clear();
    for (const line of lines) this.apply(line);
    this.completions.clear();
    const partial = `${this.file}.${process.pid}.tmp`;
    writeFileSync(partial, lines.map((line) => JSON.stringify(line)).join('\n') + (lines.length ? '\n' : ''), { mode: 0o600 });
    renameSync(partial, this.file);
    chmodSync(this.file, 0o600);
  }
}
