/** The app library and staged rollouts (issue #42): read by everyone in the workspace, changed by operators. */
import type { AppCoverageWarning, AppLibrary, AppPin, AppPinBody, AppRollout, AppVersion, CreateAppRolloutBody } from '@farm/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../../shared/api';
import { useInvalidate } from '../../shared/invalidate';

export const APPS_PATH = '/api/apps';
export const ROLLOUTS_PATH = '/api/apps/rollouts';
export const COVERAGE_PATH = '/api/apps/coverage';

export const useAppLibrary = () => useQuery<AppLibrary>({ queryKey: [APPS_PATH] });
export const useRollouts = () => useQuery<AppRollout[]>({ queryKey: [ROLLOUTS_PATH] });
export const useCoverageWarnings = () => useQuery<AppCoverageWarning[]>({ queryKey: [COVERAGE_PATH] });

/** Sends the file's bytes as they are: the server reads package, version and ABIs from them. */
export async function uploadAppFile(file: File): Promise<AppVersion> {
  const response = await fetch(`${APPS_PATH}?fileName=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    credentials: 'include',
    headers: { 'Content-Type': 'application/octet-stream' },
    body: file,
  });
  if (!response.ok) throw new ApiError(response.status, (await response.text()) || response.statusText);
  return (await response.json()) as AppVersion;
}

export function useUploadApp() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: uploadAppFile, onSuccess: () => invalidate(APPS_PATH, '/api/storage') });
}

export function useDeleteApp() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(`${APPS_PATH}/${id}`, { method: 'DELETE' }),
    onSuccess: () => invalidate(APPS_PATH, '/api/storage'),
  });
}

export function usePinVersion() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: AppPinBody) => apiRequest<{ pins: AppPin[] }>(`${APPS_PATH}/pins`, { method: 'PUT', body }),
    onSuccess: () => invalidate(APPS_PATH),
  });
}

export function useUnpin() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ groupId, packageName }: { groupId: string; packageName: string }) =>
      apiRequest<{ pins: AppPin[] }>(`${APPS_PATH}/pins/${groupId}/${encodeURIComponent(packageName)}`, { method: 'DELETE' }),
    onSuccess: () => invalidate(APPS_PATH),
  });
}

export function useStartRollout() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateAppRolloutBody) => apiRequest<AppRollout>(ROLLOUTS_PATH, { method: 'POST', body }),
    onSuccess: () => invalidate(ROLLOUTS_PATH),
  });
}
