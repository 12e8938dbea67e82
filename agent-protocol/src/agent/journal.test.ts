import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from './journal.ts';

const file = () => join(mkdtempSync(join(tmpdir(), 'farm-journal-')), 'state', 'journal.jsonl');

describe('the agent journal', () => {
  it('remembers on disk what ran and what was sent, across a restart, owner-only', () => {
    const path = file();
    const journal = new Journal(path);
    journal.started('t1', 1);
    journal.finished('t1', { taskId: 't1', attempt: 1, status: 'completed' });
    journal.started('t2', 1);
    journal.finished('t2', { taskId: 't2', attempt: 1, status: 'failed', failure: { code: 'network' } });
    journal.sent('t2');
    journal.started('t3', 2);

    const again = new Journal(path);
    expect(again.get('t1')).toMatchObject({ state: 'done' });
    expect(again.get('t1')?.sent).toBeFalsy();
    expect(again.unsent()).toEqual([{ taskId: 't1', attempt: 1, status: 'completed' }]);
    expect(again.interrupted().map((entry) => entry.taskId)).toEqual(['t3']);
    expect(again.runCounts()).toEqual(
      new Map([
        ['t1', 1],
        ['t2', 1],
        ['t3', 1],
      ]),
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('counts a task started twice, and survives a line torn by a crash', () => {
    const path = file();
    const journal = new Journal(path);
    journal.started('t1', 1);
    journal.dropped('t1');
    journal.started('t1', 2);
    appendFileSync(path, '{"t":"done","taskId":"t1","res');
    const again = new Journal(path);
    expect(again.runCounts().get('t1')).toBe(2);
    expect(again.get('t1')).toMatchObject({ state: 'running', attempt: 2 });
    expect(readFileSync(path, 'utf8')).not.toContain('"res\n');
  });

  it('counts the runs carried out to the end since it was opened', () => {
    const journal = new Journal();
    journal.started('t1', 1);
    journal.finished('t1', { taskId: 't1', attempt: 1, status: 'completed' });
    expect(journal.completedRuns()).toEqual(new Map([['t1', 1]]));
  });
});
