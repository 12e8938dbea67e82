/** The campaign form: its values, how they become the request body, and the checks the form makes first. */
import {
  createCampaignBody,
  messages,
  platformLabels as allPlatformLabels,
  splitList,
  swipeGenderValues,
  type Campaign,
  type CreateCampaignBody,
  type engagementActionValues,
} from '@farm/contracts';

export type CampaignPlatform = Campaign['platform'];
export type EngagementAction = (typeof engagementActionValues)[number];
export type SwipeGender = (typeof swipeGenderValues)[number];
export type FollowType = 'followers' | 'following';

/** The campaign platforms' names (the shared list of every platform's). */
export const platformLabels: Record<CampaignPlatform, string> = {
  instagram: allPlatformLabels.instagram,
  tiktok: allPlatformLabels.tiktok,
  tinder: allPlatformLabels.tinder,
};

export const swipeLimits = {
  ageMin: 18,
  ageMax: 100,
  distanceMin: 1,
  distanceMax: 160,
  defaultAgeMin: 18,
  defaultAgeMax: 35,
  defaultDistance: 50,
} as const;

export const DEFAULT_ENGAGEMENT_TARGET = 100;

/** What the form holds: list fields stay text until submit so people can type commas freely. */
export interface CampaignFormValues {
  name: string;
  platform: CampaignPlatform;
  niche: string;
  keywords: string;
  referenceAccounts: string;
  engagementTarget: number | string;
  customLore: string;
  guidelines: string;
  searchAndLike: boolean;
  searchKeywords: string;
  searchAndLikeActions: EngagementAction[];
  followAccountList: boolean;
  accountsToFollow: string;
  followFromAccount: boolean;
  followTargetAccounts: string;
  followType: FollowType;
  engageCommenters: boolean;
  engageCommentersActions: EngagementAction[];
  autoLikeEnabled: boolean;
  autoLikeGuidelines: string;
  autoLikeReferenceImages: string[];
  autoSwipeEnabled: boolean;
  swipeGender: SwipeGender;
  swipeAgeMin: number | string;
  swipeAgeMax: number | string;
  swipeDistance: number | string;
  swipeBioKeywords: string;
  /** The group whose phones' accounts run the group routines, or none. */
  groupId: string | null;
}

export function emptyCampaignForm(): CampaignFormValues {
  return {
    name: '',
    platform: 'instagram',
    niche: '',
    keywords: '',
    referenceAccounts: '',
    engagementTarget: DEFAULT_ENGAGEMENT_TARGET,
    customLore: '',
    guidelines: '',
    searchAndLike: false,
    searchKeywords: '',
    searchAndLikeActions: ['like'],
    followAccountList: false,
    accountsToFollow: '',
    followFromAccount: false,
    followTargetAccounts: '',
    followType: 'followers',
    engageCommenters: false,
    engageCommentersActions: ['like'],
    autoLikeEnabled: false,
    autoLikeGuidelines: '',
    autoLikeReferenceImages: [],
    autoSwipeEnabled: false,
    swipeGender: 'everyone',
    swipeAgeMin: swipeLimits.defaultAgeMin,
    swipeAgeMax: swipeLimits.defaultAgeMax,
    swipeDistance: swipeLimits.defaultDistance,
    swipeBioKeywords: '',
    groupId: null,
  };
}

const engagementActions: readonly string[] = ['like', 'comment', 'follow'];
const onlyActions = (items: readonly string[]): EngagementAction[] => items.filter((item): item is EngagementAction => engagementActions.includes(item));
const isSwipeGender = (value: string | null): value is SwipeGender => value !== null && (swipeGenderValues as readonly string[]).includes(value);

/** A stored campaign as form values, for the edit dialog (stored swipe names back to the form's). */
export function campaignToFormValues(campaign: Campaign): CampaignFormValues {
  return {
    name: campaign.name,
    platform: campaign.platform,
    niche: campaign.niche,
    keywords: campaign.keywords.join(', '),
    referenceAccounts: campaign.referenceAccounts.join(', '),
    engagementTarget: campaign.engagementTarget,
    customLore: campaign.customLore ?? '',
    guidelines: campaign.guidelines ?? '',
    searchAndLike: campaign.searchAndLike,
    searchKeywords: campaign.searchKeywords.join(', '),
    searchAndLikeActions: onlyActions(campaign.searchAndLikeActions),
    followAccountList: campaign.followAccountList,
    accountsToFollow: campaign.accountsToFollow.join(', '),
    followFromAccount: campaign.followFromAccount,
    followTargetAccounts: campaign.followTargetAccounts.join(', '),
    followType: campaign.followType === 'following' ? 'following' : 'followers',
    engageCommenters: campaign.engageCommenters,
    engageCommentersActions: onlyActions(campaign.engageCommentersActions),
    autoLikeEnabled: campaign.autoLikeEnabled,
    autoLikeGuidelines: campaign.autoLikeGuidelines ?? '',
    autoLikeReferenceImages: [...campaign.autoLikeReferenceImages],
    autoSwipeEnabled: campaign.autoswipeEnabled,
    swipeGender: isSwipeGender(campaign.autoswipeGenderPreference) ? campaign.autoswipeGenderPreference : 'everyone',
    swipeAgeMin: campaign.autoswipeAgeMin,
    swipeAgeMax: campaign.autoswipeAgeMax,
    swipeDistance: campaign.autoswipeDistanceMax,
    swipeBioKeywords: campaign.autoswipeBioKeywords.join(', '),
    groupId: campaign.groupId,
  };
}

/** A number input's value: blank or unparsable text becomes NaN so validation names it. */
function toNumber(value: number | string): number {
  if (typeof value === 'number') return value;
  return value.trim() === '' ? Number.NaN : Number(value);
}

const blankToNull = (text: string): string | null => (text.trim() === '' ? null : text.trim());

/** Engagement options make sense on instagram and tiktok; auto-swipe only on tinder. */
export function showsEngagementOptions(platform: CampaignPlatform): boolean {
  return platform !== 'tinder';
}

/** The request body the form sends: lists split on commas, the swipe settings in the form's spelling. */
export function formToCampaignPayload(values: CampaignFormValues): CreateCampaignBody {
  const engagement = showsEngagementOptions(values.platform);
  const body: CreateCampaignBody = {
    name: values.name.trim(),
    platform: values.platform,
    niche: values.niche.trim(),
    keywords: splitList(values.keywords),
    referenceAccounts: splitList(values.referenceAccounts),
    engagementTarget: toNumber(values.engagementTarget),
    customLore: blankToNull(values.customLore),
    guidelines: blankToNull(values.guidelines),
    searchAndLike: engagement && values.searchAndLike,
    searchKeywords: splitList(values.searchKeywords),
    searchAndLikeActions: [...values.searchAndLikeActions],
    followAccountList: engagement && values.followAccountList,
    accountsToFollow: splitList(values.accountsToFollow),
    followFromAccount: engagement && values.followFromAccount,
    followTargetAccounts: splitList(values.followTargetAccounts),
    followType: values.followType,
    engageCommenters: engagement && values.engageCommenters,
    engageCommentersActions: [...values.engageCommentersActions],
    autoLikeEnabled: values.autoLikeEnabled,
    autoLikeGuidelines: blankToNull(values.autoLikeGuidelines),
    autoLikeReferenceImages: [...values.autoLikeReferenceImages],
    groupId: values.groupId,
  };
  if (values.platform === 'tinder') {
    body.autoSwipeEnabled = values.autoSwipeEnabled;
    body.swipeGender = values.swipeGender;
    body.swipeAgeMin = toNumber(values.swipeAgeMin);
    body.swipeAgeMax = toNumber(values.swipeAgeMax);
    body.swipeDistance = toNumber(values.swipeDistance);
    body.swipeBioKeywords = splitList(values.swipeBioKeywords);
  } else {
    body.autoSwipeEnabled = false;
  }
  return body;
}

export type CampaignFieldErrors = Partial<Record<'name' | 'niche' | 'engagementTarget', string>>;

/** Inline errors for the required inputs; the texts are the server's for the same fields. */
export function requiredFieldErrors(values: CampaignFormValues): CampaignFieldErrors {
  const errors: CampaignFieldErrors = {};
  if (values.name.trim() === '') errors.name = 'Name is required';
  if (values.niche.trim() === '') errors.niche = 'Niche is required';
  return errors;
}

/**
 * The first reason the form may not be sent, as the toast message under 'Validation Error',
 * in the spec's order; anything else the shared schema refuses comes after, with its own text.
 */
export function campaignValidationMessage(body: CreateCampaignBody): string | null {
  const keywords = body.keywords ?? [];
  const references = body.referenceAccounts ?? [];
  if (keywords.length + references.length === 0) return messages.keywordOrReference;
  const target = body.engagementTarget;
  if (target === undefined || !Number.isInteger(target) || target <= 0) return messages.engagementTarget;
  const parsed = createCampaignBody.safeParse(body);
  if (parsed.success) return null;
  return parsed.error.issues[0]?.message ?? null;
}
