/**
 * The one way an API refusal becomes the sentence a person reads: the server's own `error` text when it sent one
 * (with the first refused item of a bulk answer: which one and why), else the screen's fallback sentence. A crash
 * answers no such text (the server never shows it), so it gets the fallback.
 */
import { ApiError } from './api';

export function refusalMessage(error: unknown, fallback: string): string {
  if (!(error instanceof ApiError)) return fallback;
  try {
    const body = JSON.parse(error.body) as { error?: unknown; results?: { ok: boolean; error?: string }[] };
    const first = body.results?.find((result) => !result.ok)?.error;
    const parts = [typeof body.error === 'string' ? body.error : undefined, first].filter((part): part is string => Boolean(part));
    return parts.length > 0 ? parts.join(': ') : fallback;
  } catch {
    return fallback;
  }
}
