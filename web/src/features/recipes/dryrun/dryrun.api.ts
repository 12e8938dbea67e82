/** Dry runs' reads and writes: the pre-flight, starting a run, stepping and stopping it, a run with its trace, a step's tree. */
import type { CreateDryRunBody, DryRun, DryRunDetail, DryRunPreflight } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { withQuery } from '../../../shared/query';

export const DRY_RUNS = '/api/dry-runs';

export function useDryRunPreflight(recipeId: string, deviceId: string | null) {
  return useQuery<DryRunPreflight>({
    queryKey: [`${DRY_RUNS}/preflight`, { recipeId, deviceId: deviceId ?? '' }],
    queryFn: ({ signal }) => apiRequest<DryRunPreflight>(withQuery(`${DRY_RUNS}/preflight`, { recipeId, deviceId: deviceId ?? '' }), { signal }),
    enabled: Boolean(deviceId),
    // Each choice of phone asks again: the phone's state moves on its own.
    staleTime: 0,
  });
}

export function useStartDryRun() {
  return useMutation({ mutationFn: (body: CreateDryRunBody) => apiRequest<DryRun>(DRY_RUNS, { method: 'POST', body }) });
}

/** A run and its trace, kept current by the `dryrun.updated` and `dryrun.step` events (dryrun.events.ts). */
export function useDryRun(id: string) {
  return useQuery<DryRunDetail>({ queryKey: [DRY_RUNS, id] });
}

export function useSteerDryRun(id: string) {
  return useMutation({ mutationFn: (action: 'next' | 'stop') => apiRequest<DryRun>(`${DRY_RUNS}/${id}/${action}`, { method: 'POST' }) });
}

export interface TraceTree {
  nodes: {
    text: string;
    resourceId: string;
    className: string;
    desc: string;
    clickable: boolean;
    bounds: { left: number; top: number; right: number; bottom: number };
    depth: number;
  }[];
  width: number;
  height: number;
}

export function useStepTree(id: string, seq: number, enabled: boolean) {
  return useQuery<TraceTree>({ queryKey: [DRY_RUNS, id, 'steps', seq, 'tree'], enabled });
}
