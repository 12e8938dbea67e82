/** A failed run's evidence: read for a task or a post, the screen's elements, and the phones to re-record on. */
import type { FailureEvidence, RerecordPhone } from '@farm/contracts';
import type { UiTree } from '@farm/agent-protocol/inspect';
import { useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../../../shared/api';

/** Where the evidence is read from: a task, or a post (its publishing task). */
export type EvidenceSource = { kind: 'task'; id: string } | { kind: 'post'; id: string };

/** The evidence, or null when there is none (the server's 404 with its sentence is no error here). */
export function useFailureEvidence(source: EvidenceSource, enabled = true) {
  const path = source.kind === 'task' ? `/api/tasks/${source.id}/evidence` : `/api/posts/${source.id}/evidence`;
  return useQuery<FailureEvidence | null>({
    queryKey: [path],
    enabled,
    retry: false,
    queryFn: ({ signal }) =>
      apiRequest<FailureEvidence>(path, { signal }).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
  });
}

export function useEvidenceTree(taskId: string, enabled: boolean) {
  return useQuery<UiTree>({
    queryKey: ['/api/tasks', taskId, 'evidence', 'tree'],
    enabled,
    retry: false,
    queryFn: ({ signal }) => apiRequest<UiTree>(`/api/tasks/${taskId}/evidence/tree`, { signal }),
  });
}

export function rerecordPhones(query: { package: string; version: string; deviceId?: string | undefined }): Promise<RerecordPhone[]> {
  const params = new URLSearchParams({ package: query.package, version: query.version });
  if (query.deviceId) params.set('deviceId', query.deviceId);
  return apiRequest<RerecordPhone[]>(`/api/devices/rerecord?${params.toString()}`);
}
