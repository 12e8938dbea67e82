/**
 * What a VA may do with posts. An operator works every post of the workspace. A VA works the posts of the accounts
 * on the phones assigned to them, and drafts of their own (for any account of the workspace): they may save a draft
 * anywhere, but schedule, publish, reschedule or delete only where the account is on one of their phones. Bulk
 * actions and CSV import stay operators'. A VA sees (lists, reads, exports) only the posts they may work.
 */
import type { PostStatus } from '@farm/sql';
import { AppError } from '../../errors.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { accountOnPhoneOf } from './posts.queries.ts';

export const POST_RULES = {
  notYours: 'You can work only the posts of the accounts on your phones, and drafts of your own',
  account: 'You can schedule or publish only for the accounts on the phones assigned to you',
  bulk: 'Bulk actions on posts are for operators',
  import: 'Importing posts is for operators',
} as const;

/** The VA a list or lookup of posts is narrowed to (none for an operator). */
export const postViewer = (actor: Actor): string | undefined => (actor.role === 'va' ? actor.userId : undefined);

interface PostFacts {
  accountId: string;
  createdById: string | null;
  status: PostStatus;
}

/**
 * Refuses (403) a VA's change of a post they may not work, or one that would leave it scheduled or published for an
 * account not on their phones. `after` is the post as the change leaves it (none for a deletion).
 */
export async function assertMayWorkPost(tx: Tx, actor: Actor, before: PostFacts | null, after: Omit<PostFacts, 'createdById'> | null): Promise<void> {
  if (actor.role !== 'va') return;
  if (before) {
    const ownDraft = before.status === 'draft' && before.createdById === actor.userId;
    if (!ownDraft && !(await accountOnPhoneOf(tx, actor, before.accountId))) throw new AppError(403, POST_RULES.notYours);
  }
  if (after && after.status !== 'draft' && !(await accountOnPhoneOf(tx, actor, after.accountId))) throw new AppError(403, POST_RULES.account);
}

/** Refuses a VA a bulk action or an import of posts. */
export function assertOperatorFor(actor: Actor, what: keyof Pick<typeof POST_RULES, 'bulk' | 'import'>): void {
  if (actor.role !== 'operator') throw new AppError(403, POST_RULES[what]);
}
