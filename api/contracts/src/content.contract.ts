import { z } from 'zod';
import { failureCode } from '@farm/agent-protocol/failures';
import { platformNames, platforms } from '@farm/agent-protocol/values';
import { id, idFilter, isoTime, nullableTime, pageQuery, timeInput } from './common.ts';
import { messages } from './messages.ts';
import { must, whenMissing } from './sentences.ts';

export const platformValues = platforms;
/** Each platform's name as people write it. */
export const platformLabels = platformNames;
export const platform = z.enum(platformValues);
export type Platform = z.infer<typeof platform>;
/** Platforms where a phone holds at most 3 accounts each. */
export const limitedPlatforms: readonly Platform[] = ['instagram', 'tiktok'];
export const ACCOUNTS_PER_DEVICE = 3;

export const accountStatusValues = ['creation_pending', 'warmup', 'active', 'paused', 'suspended'] as const;
export const accountStatus = z.enum(accountStatusValues);
export type AccountStatus = z.infer<typeof accountStatus>;
export const accountStatusLabels: Record<AccountStatus, string> = {
  creation_pending: 'Creation pending',
  warmup: 'Warming up',
  active: 'Active',
  paused: 'Paused',
  suspended: 'Suspended',
};
export const genderValues = ['man', 'woman', 'non-binary', 'other'] as const;
export const orientationValues = ['straight', 'gay', 'lesbian', 'bisexual', 'asexual', 'pansexual', 'queer', 'questioning'] as const;
export const relationshipGoalValues = ['long-term', 'short-term', 'new-friends', 'still-figuring'] as const;

const count = z.number().int().min(0).max(2_000_000_000);
const username = z
  .string({ error: whenMissing(messages.usernameRequired) })
  .trim()
  .min(1, { message: messages.usernameRequired })
  .max(100);

const accountFields = z.object({
  username,
  platform,
  status: accountStatus.optional(),
  deviceId: id.nullable().optional(),
  bio: z.string().max(2200).nullable().optional(),
  followers: count.optional(),
  following: count.optional(),
  gender: z.enum(genderValues).nullable().optional(),
  age: z.number().int().min(18, { message: 'Age must be between 18 and 100' }).max(100, { message: 'Age must be between 18 and 100' }).nullable().optional(),
  birthday: z.iso
    .date({ message: 'Birthday must be a date (YYYY-MM-DD)' })
    .refine((value) => value >= '1900-01-01' && value <= new Date().toISOString().slice(0, 10), { error: must('be between 1900 and today') })
    .nullable()
    .optional(),
  profileImages: z.array(z.string().max(2000)).max(6, { message: messages.tinderImages }).optional(),
  interests: z
    .array(z.string().trim().max(100))
    .max(50)
    .transform((items) => items.filter(Boolean))
    .optional(),
  sexualOrientation: z.enum(orientationValues).nullable().optional(),
  relationshipGoal: z.enum(relationshipGoalValues).nullable().optional(),
});

export const createAccountBody = accountFields.refine(
  (body) => body.platform !== 'tinder' || ((body.profileImages?.length ?? 0) >= 2 && (body.profileImages?.length ?? 0) <= 6),
  { message: messages.tinderImages, path: ['profileImages'] },
);
export type CreateAccountBody = z.input<typeof createAccountBody>;

/** Platform and device are fixed once the account exists; the rest may change. */
export const updateAccountBody = accountFields
  .omit({ platform: true })
  .partial()
  .extend({
    profilePicture: z
      .string()
      .max(15_000_000)
      .refine((value) => value.startsWith('data:image/') || value.startsWith('/api/objects/'), {
        message: 'Profile picture must be an image',
      })
      .nullable()
      .optional(),
    deviceId: id.nullable().optional(),
    warmupStartDate: timeInput.nullable().optional(),
    warmupEndDate: timeInput.nullable().optional(),
  });
export type UpdateAccountBody = z.input<typeof updateAccountBody>;

export const account = z.object({
  id,
  username: z.string(),
  platform,
  status: accountStatus,
  deviceId: id.nullable(),
  profilePicture: z.string().nullable(),
  bio: z.string().nullable(),
  followers: z.number().int(),
  following: z.number().int(),
  warmupStartDate: nullableTime,
  warmupEndDate: nullableTime,
  gender: z.string().nullable(),
  age: z.number().int().nullable(),
  birthday: z.string().nullable(),
  profileImages: z.array(z.string()),
  interests: z.array(z.string()),
  sexualOrientation: z.string().nullable(),
  relationshipGoal: z.string().nullable(),
  /** Why automation stopped for the account (a safety pause), until a person resumes it. */
  pausedCode: failureCode.nullable(),
  pausedMessage: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Account = z.infer<typeof account>;
export const accountListQuery = pageQuery.extend({
  platform: platform.optional(),
  status: accountStatus.optional(),
  deviceId: idFilter.optional(),
  search: z.string().max(200).optional(),
});

export const postStatusValues = ['draft', 'scheduled', 'published', 'failed'] as const;
export const postStatus = z.enum(postStatusValues);
export type PostStatus = z.infer<typeof postStatus>;

/** Moves a person may make on a post; publishing by the phone (scheduled → published | failed) is the server's. */
export const postTransitions: Record<PostStatus, readonly PostStatus[]> = {
  draft: ['published', 'scheduled'],
  scheduled: ['draft', 'published'],
  published: [],
  failed: ['draft', 'scheduled'],
};

export const createPostBody = z
  .object({
    accountId: z.string({ error: messages.accountRequired }).min(1, { message: messages.accountRequired }),
    campaignId: id.nullable().optional(),
    caption: z
      .string({ error: whenMissing(messages.captionRequired) })
      .trim()
      .min(1, { message: messages.captionRequired })
      .max(2200),
    status: postStatus.default('draft'),
    hashtags: z.array(z.string().max(100)).max(30).optional(),
    mediaUrls: z.array(z.string().max(2000)).max(10).optional(),
    scheduledAt: timeInput.nullable().optional(),
    createdById: z.string().optional(),
  })
  .refine((body) => body.status !== 'scheduled' || Boolean(body.scheduledAt), {
    message: messages.scheduleRequired,
    path: ['scheduledAt'],
  });
export type CreatePostBody = z.input<typeof createPostBody>;

export const updatePostBody = z.object({
  /** Another account of the workspace, while the post is a draft, scheduled or failed. */
  accountId: id.optional(),
  status: postStatus.optional(),
  publishedAt: timeInput.nullable().optional(),
  scheduledAt: timeInput.nullable().optional(),
  campaignId: id.nullable().optional(),
  caption: z.string().trim().min(1, { message: messages.captionRequired }).max(2200).optional(),
  hashtags: z.array(z.string().max(100)).max(30).optional(),
  mediaUrls: z.array(z.string().max(2000)).max(10).optional(),
});
export type UpdatePostBody = z.input<typeof updatePostBody>;

export const post = z.object({
  id,
  accountId: id,
  campaignId: id.nullable(),
  caption: z.string(),
  status: postStatus,
  mediaUrls: z.array(z.string()),
  hashtags: z.array(z.string()),
  scheduledAt: nullableTime,
  publishedAt: nullableTime,
  createdById: id.nullable(),
  /** Why the post failed. */
  failureCode: failureCode.nullable(),
  failureMessage: z.string().nullable(),
  /** While scheduled and due: why it has not reached a phone yet (for example, it waits for a person). */
  waitingCode: failureCode.nullable(),
  waitingMessage: z.string().nullable(),
  /** Why the post's media could not be taken in as the workspace's files: it needs new media. */
  mediaProblem: z.string().nullish(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Post = z.infer<typeof post>;
export const postListQuery = pageQuery.extend({
  campaignId: z.union([idFilter, z.literal('none')]).optional(),
  accountId: idFilter.optional(),
  status: postStatus.optional(),
});

/** Uploads: the spec's two flows, both ending in a PUT of the bytes to a signed URL on this server. */
export const uploadUrlResponse = z.object({ url: z.string() });
export const presignedUrlBody = z.object({
  directory: z.string().max(100).default('.private'),
  filename: z.string().trim().min(1, { message: 'File name is required' }).max(255),
});
export const presignedUrlResponse = z.object({ presignedUrl: z.string(), objectPath: z.string() });
export const campaignImageBody = z.object({ imageURL: z.string().trim().min(1, { message: 'Image URL is required' }).max(2000) });
export const storedObjectResponse = z.object({ objectPath: z.string() });
/** The workspace's stored files against its quota (uploads, screenshots, captures, fetched post media). */
export const storageUsage = z.object({ usedBytes: z.number().int().nonnegative(), quotaBytes: z.number().int().positive() });
export type StorageUsage = z.infer<typeof storageUsage>;
/** SPEC §5 upload limits. */
export const uploadLimits = { maxFileSize: 10_485_760, maxReferenceImages: 5, minTinderImages: 2, maxTinderImages: 6 } as const;
