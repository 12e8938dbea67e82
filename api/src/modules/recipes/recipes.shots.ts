/**
 * Recorded steps' screenshots (the recipe studio): Record keeps the small picture of the screen each step was made on,
 * and the editor shows it beside the step. A picture belongs to what a step does and to what (its kind and target,
 * text, key or direction), not to its place, so a step moved, or given a count or a label, keeps its picture through
 * the versions saved from the draft; one changed to act on something else loses it.
 */
import { picturesOfSteps, stepFingerprint, type RecipeStepShot } from '@farm/contracts';

export interface StoredShot {
  fingerprint: string;
  image: string;
}

/** The pictures sent with a new draft, keyed by the steps they were made for; their bytes for the quota. */
export function shotsOfSteps(document: Record<string, unknown>, sent: readonly RecipeStepShot[]): { shots: StoredShot[]; bytes: number } {
  const steps = Array.isArray(document.steps) ? (document.steps as unknown[]) : [];
  const shots: StoredShot[] = [];
  for (const { step, image } of sent) {
    if (step >= steps.length) continue;
    shots.push({ fingerprint: stepFingerprint(steps[step]), image });
  }
  return { shots, bytes: shots.reduce((sum, shot) => sum + shot.image.length, 0) };
}

/** Each top-level step's picture in this document (null where it has none). */
export function shotsForSteps(document: Record<string, unknown>, stored: unknown): (string | null)[] {
  const steps = Array.isArray(document.steps) ? (document.steps as unknown[]) : [];
  const known = (Array.isArray(stored) ? (stored as Partial<StoredShot>[]) : []).filter(
    (shot): shot is StoredShot => typeof shot.fingerprint === 'string' && typeof shot.image === 'string',
  );
  return picturesOfSteps(steps, known);
}
