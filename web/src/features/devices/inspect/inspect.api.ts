/** The recipe studio's saved Inspect captures: kept per app package, version and language, read by the workspace. */
import type { CreateUiCaptureBody, SelectorCheck, UiCaptureDetail } from '@farm/contracts';
import type { Selector } from '@farm/agent-protocol/inspect';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';

export function useSaveCapture() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateUiCaptureBody) => apiRequest<UiCaptureDetail>('/api/ui-captures', { method: 'POST', body }),
    onSuccess: () => invalidate('/api/ui-captures', '/api/storage'),
  });
}

export function useCheckSelector() {
  return useMutation({
    mutationFn: (body: { package: string; screenName: string; selector: Selector }) =>
      apiRequest<SelectorCheck>('/api/ui-captures/check', { method: 'POST', body }),
  });
}

/** A frame's bytes as the data URL a capture is saved with. */
export function frameDataUrl(mime: string, data: ArrayBuffer | Uint8Array): string {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return `data:${mime};base64,${btoa(binary)}`;
}

/** A recorded routine saved as the workspace's draft recipe: turned off until an operator turns it on. */
export function useSaveDraft() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ recipe, stepShots }: { recipe: Record<string, unknown>; stepShots: { step: number; image: string }[] }) =>
      apiRequest<{ id: string; recipeId: string }>('/api/recipes', { method: 'POST', body: { recipe, enabled: false, stepShots } }),
    onSuccess: () => invalidate('/api/recipes'),
  });
}
