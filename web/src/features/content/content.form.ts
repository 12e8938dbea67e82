/** Posts: how they read on a card, and how the Create Post form becomes a request body. */
import {
  createPostBody,
  parseHashtags,
  type Account,
  type Campaign,
  type CreatePostBody,
  type Post,
  type PostStatus,
  type UpdatePostBody,
} from '@farm/contracts';
import { fromDateTimeLocal } from '../../shared/format';

/** SPEC §9: a card previews the first 50 characters of the caption. */
export const CAPTION_PREVIEW_LENGTH = 50;

export const postStatusLabels: Record<PostStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  published: 'Published',
  failed: 'Failed',
};

export const postStatusColors: Record<PostStatus, string> = {
  draft: 'gray',
  scheduled: 'blue',
  published: 'green',
  failed: 'red',
};

/** The status choices of the form, in the spec's words. */
export const postStatusOptions: { value: 'draft' | 'scheduled' | 'published'; label: string }[] = [
  { value: 'draft', label: 'Draft' },
  { value: 'scheduled', label: 'Schedule' },
  { value: 'published', label: 'Publish Now' },
];

export function captionPreview(caption: string): string {
  return caption.length > CAPTION_PREVIEW_LENGTH ? `${caption.slice(0, CAPTION_PREVIEW_LENGTH)}...` : caption;
}

/** 'username (platform)', or 'Unknown Account' when the account is not (or no longer) known. */
export function postAccountLabel(accountId: string, accounts: readonly Account[]): string {
  const account = accounts.find((candidate) => candidate.id === accountId);
  return account ? `${account.username} (${account.platform})` : 'Unknown Account';
}

/** Only active accounts may post. */
export function postableAccounts(accounts: readonly Account[]): Account[] {
  return accounts.filter((account) => account.status === 'active');
}

/** Only active campaigns take new posts. */
export function postableCampaigns(campaigns: readonly Campaign[]): Campaign[] {
  return campaigns.filter((campaign) => campaign.status === 'active');
}

/** The 'None' campaign choice (a select option cannot carry an empty value). */
export const NO_CAMPAIGN = 'none';

export type PostFormStatus = (typeof postStatusOptions)[number]['value'];

export interface PostFormValues {
  accountId: string | null;
  /** NO_CAMPAIGN stands for the 'None' choice. */
  campaignId: string;
  caption: string;
  hashtags: string;
  status: PostFormStatus;
  /** The datetime-local input's value, in the browser's time zone. */
  scheduledAt: string;
  mediaUrls: string[];
}

export function emptyPostForm(): PostFormValues {
  return { accountId: null, campaignId: NO_CAMPAIGN, caption: '', hashtags: '', status: 'draft', scheduledAt: '', mediaUrls: [] };
}

/** The POST /api/posts body; the schedule time travels only with a scheduled post. */
export function buildPostPayload(values: PostFormValues, createdById: string | undefined): CreatePostBody {
  const body: CreatePostBody = {
    accountId: values.accountId ?? '',
    campaignId: values.campaignId === NO_CAMPAIGN || values.campaignId === '' ? null : values.campaignId,
    caption: values.caption,
    status: values.status,
    hashtags: parseHashtags(values.hashtags),
    mediaUrls: [...values.mediaUrls],
  };
  if (values.status === 'scheduled') body.scheduledAt = fromDateTimeLocal(values.scheduledAt);
  if (createdById) body.createdById = createdById;
  return body;
}

export type PostFieldErrors = Partial<Record<'accountId' | 'caption' | 'scheduledAt' | 'hashtags' | 'mediaUrls', string>>;

/** The shared schema's messages, placed under the inputs they concern. */
export function postFieldErrors(body: CreatePostBody): PostFieldErrors {
  const parsed = createPostBody.safeParse(body);
  if (parsed.success) return {};
  const errors: PostFieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (field === 'accountId' || field === 'caption' || field === 'scheduledAt' || field === 'hashtags' || field === 'mediaUrls') {
      errors[field] ??= issue.message;
    }
  }
  return errors;
}

/** The time a card shows: when it is due for a scheduled post, when it went out for a published one. */
export function postTimeLine(post: Pick<Post, 'status' | 'scheduledAt' | 'publishedAt'>, format: (time: string) => string): string | null {
  if (post.status === 'scheduled' && post.scheduledAt) return `Scheduled: ${format(post.scheduledAt)}`;
  if (post.publishedAt) return `Published: ${format(post.publishedAt)}`;
  return null;
}

/** SPEC §4: Publish sends the current time with the status. */
export function publishBody(now: Date = new Date()): UpdatePostBody {
  return { status: 'published', publishedAt: now.toISOString() };
}

/** SPEC §4: Unschedule returns a scheduled post to draft. */
export function unscheduleBody(): UpdatePostBody {
  return { status: 'draft' };
}
