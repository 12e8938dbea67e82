/**
 * Dry runs' pushed changes: a run's status patches its open trace view and refreshes the recipe's list of runs; a
 * step is added to the open trace as soon as the phone sent it.
 */
import type { DryRunDetail } from '@farm/contracts';
import type { LiveCache, LiveHandlers } from '../../../shared/realtime/live-cache';
import { DRY_RUNS } from './dryrun.api';

export function bindDryRunEvents(live: LiveCache): Pick<LiveHandlers, 'dryrun.updated' | 'dryrun.step'> {
  return {
    'dryrun.updated': (run) => {
      live.queryClient.setQueryData<DryRunDetail>([DRY_RUNS, run.id], (old) => (old ? { ...old, ...run, trace: old.trace } : old));
      live.refresh(DRY_RUNS);
    },
    'dryrun.step': ({ runId, step }) => {
      live.queryClient.setQueryData<DryRunDetail>([DRY_RUNS, runId], (old) => {
        if (!old || old.trace.some((known) => known.seq === step.seq)) return old;
        const trace = [...old.trace, step].sort((a, b) => a.seq - b.seq);
        return { ...old, trace, steps: Math.max(old.steps, step.seq) };
      });
    },
  };
}
