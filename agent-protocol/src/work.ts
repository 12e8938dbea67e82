/**
 * What a task asks a phone to do (protocol 2): one typed payload per kind of work, so settings travel as data,
 * not as prose inside a description.
 */
import { z } from 'zod';

const count = z.number().int().min(0).max(1_000_000);

/** Engagement actions: what a routine may still do today (allowance) or what it did (reported with a result). */
export const engagementCounts = z.object({ likes: count, follows: count, comments: count, posts: count });
export type EngagementCounts = z.infer<typeof engagementCounts>;
export const engagementReport = engagementCounts.partial();
export type EngagementReport = z.infer<typeof engagementReport>;
export const engagementKinds = ['likes', 'follows', 'comments', 'posts'] as const;

/** An app version a workspace verified a recipe on (a passing dry run, a person's word): it adds to the recipe's tested range. */
export const appVerification = z.object({
  recipeId: z.string().max(100),
  package: z.string().max(200),
  version: z.string().max(40),
  /** The UI language it was verified in; absent for any. */
  locale: z.string().max(20).optional(),
});
export type AppVerification = z.infer<typeof appVerification>;

export const accountRef = z.object({ id: z.string().max(64), username: z.string().max(200), platform: z.string().max(40) });

export const publishPostWork = z.object({
  kind: z.literal('post.publish'),
  postId: z.string().max(64),
  account: accountRef,
  caption: z.string().max(10_000),
  hashtags: z.array(z.string().max(200)).max(100),
  mediaUrls: z.array(z.string().max(2000)).max(20),
  /** The workspace's own recipes for publishing on this platform; the phone picks one by its app version. */
  recipes: z.array(z.unknown()).max(20).optional(),
  /** Templates may run on app versions outside their tested range (off: such a run fails `app_version_untested`). */
  allowUntestedApp: z.boolean().optional(),
  /** App versions the workspace verified its recipes on, beside each recipe's own tested range. */
  verifiedApps: z.array(appVerification).max(200).optional(),
});

export const routineRunWork = z.object({
  kind: z.literal('routine.run'),
  routineType: z.string().max(40),
  routineName: z.string().max(200),
  platform: z.string().max(40),
  account: accountRef.nullable(),
  durationMinutes: z.number().int().min(0).max(1440),
  intensity: z.number().int().min(1).max(10),
  actions: z.array(z.string().max(100)).max(50),
  keywords: z.array(z.string().max(500)).max(200),
  referenceAccounts: z.array(z.string().max(500)).max(200),
  settings: z.record(z.string(), z.unknown()),
  /** What the account may still do today under its caps: the phone stops an action at zero. */
  allowance: engagementCounts,
  campaign: z
    .object({ id: z.string().max(64), name: z.string().max(200), niche: z.string().max(200), guidelines: z.string().max(10_000).nullable() })
    .nullable(),
  /** The step recipe resolved for this work, when the workspace has one for it. */
  recipe: z.unknown().nullable(),
  /** The workspace's own recipes for this routine and platform; the phone picks one by its app version. */
  recipes: z.array(z.unknown()).max(20).optional(),
  /** Templates may run on app versions outside their tested range (off: such a run fails `app_version_untested`). */
  allowUntestedApp: z.boolean().optional(),
  /** App versions the workspace verified its recipes on, beside each recipe's own tested range. */
  verifiedApps: z.array(appVerification).max(200).optional(),
});

export const manualWork = z.object({ kind: z.literal('manual'), description: z.string().max(10_000).nullable() });

export const taskWork = z.discriminatedUnion('kind', [publishPostWork, routineRunWork, manualWork]);
export type TaskWork = z.infer<typeof taskWork>;
export type PublishPostWork = z.infer<typeof publishPostWork>;
export type RoutineRunWork = z.infer<typeof routineRunWork>;

/** The work told in words, for agents of protocol 1, which receive only a title and a description. */
export function describeWork(work: TaskWork): string | null {
  switch (work.kind) {
    case 'post.publish':
      return [
        `Publish on ${work.account.platform} as @${work.account.username}.`,
        work.caption,
        work.hashtags.join(' '),
        ...work.mediaUrls.map((url) => `Media: ${url}`),
      ]
        .filter(Boolean)
        .join('\n\n');
    case 'routine.run': {
      const lines = [
        `Routine ${work.routineType} (${work.routineName}) on ${work.platform}${work.account ? ` as @${work.account.username}` : ''}, about ${work.durationMinutes} min, intensity ${work.intensity}.`,
      ];
      if (work.actions.length > 0) lines.push(`Actions: ${work.actions.join(', ')}.`);
      if (work.keywords.length > 0) lines.push(`Keywords: ${work.keywords.join(', ')}.`);
      if (work.referenceAccounts.length > 0) lines.push(`Reference accounts: ${work.referenceAccounts.join(', ')}.`);
      lines.push(`Allowed today: ${work.allowance.likes} likes, ${work.allowance.follows} follows, ${work.allowance.comments} comments.`);
      return lines.join('\n');
    }
    case 'manual':
      return work.description;
  }
}
