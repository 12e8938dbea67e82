/**
 * Who may see what a phone's screen showed, kept after the fact: its dry runs' traces, its saved Inspect captures and
 * its failed tasks' evidence, with their frames and trees. The same people who may inspect it live (live Inspect needs
 * control): an operator, or the VA the phone is assigned to (`mayControl`). A phone's screens hold its accounts'
 * messages, contacts and codes; a VA of another phone has no business reading them. A post's evidence is also seen by
 * whoever may see the post (posts.rules.ts).
 */
import { AppError } from '../../errors.ts';
import type { Actor } from '../../shared/types.ts';
import { mayControl } from './usage.queries.ts';

/** Said to a VA who asks for the screens of a phone not assigned to them (403, as live Inspect refuses them). */
export const SCREENS_NOT_YOURS = 'Only operators and the VA this phone is assigned to may see its screens';

/** The VA whose phones a list of screens is narrowed to (none for an operator). */
export const screensViewer = (actor: Actor): string | undefined => (actor.role === 'operator' ? undefined : actor.userId);

/** Whether the person may see the screens of the phone (a phone removed since: operators only). */
export function maySeeScreens(actor: Actor, device: { assignedToId: string | null } | null): boolean {
  return mayControl(actor, device ?? { assignedToId: null });
}

/** Refuses (403) the screens of a phone the person may not control. */
export function assertMaySeeScreens(actor: Actor, device: { assignedToId: string | null } | null): void {
  if (!maySeeScreens(actor, device)) throw new AppError(403, SCREENS_NOT_YOURS);
}
