/** Social accounts: the Add Account form's body, the edit screen's changes, and the labels they show. */
import {
  createAccountBody,
  type genderValues,
  type orientationValues,
  type relationshipGoalValues,
  splitList,
  type Account,
  type AccountStatus,
  type CreateAccountBody,
  type Platform,
  type UpdateAccountBody,
  platformLabels,
} from '@farm/contracts';

export { platformLabels };

export const platformColors: Record<Platform, string> = {
  instagram: 'pink',
  tiktok: 'dark',
  tinder: 'red',
  facebook: 'blue',
  twitter: 'cyan',
  youtube: 'red',
};

export const accountStatusColors: Record<AccountStatus, string> = {
  creation_pending: 'gray',
  warmup: 'yellow',
  active: 'green',
  paused: 'orange',
  suspended: 'red',
};

export type Gender = (typeof genderValues)[number];
export type Orientation = (typeof orientationValues)[number];
export type RelationshipGoal = (typeof relationshipGoalValues)[number];

export const genderLabels: Record<Gender, string> = {
  man: 'Man',
  woman: 'Woman',
  'non-binary': 'Non-binary',
  other: 'Other',
};

export const orientationLabels: Record<Orientation, string> = {
  straight: 'Straight',
  gay: 'Gay',
  lesbian: 'Lesbian',
  bisexual: 'Bisexual',
  asexual: 'Asexual',
  pansexual: 'Pansexual',
  queer: 'Queer',
  questioning: 'Questioning',
};

export const relationshipGoalLabels: Record<RelationshipGoal, string> = {
  'long-term': 'Long-term partner',
  'short-term': 'Short-term fun',
  'new-friends': 'New friends',
  'still-figuring': 'Still figuring it out',
};

export const tinderAge = { min: 18, max: 100 } as const;

export interface AccountFormValues {
  username: string;
  platform: Platform;
  deviceId: string | null;
  bio: string;
  gender: Gender | null;
  age: number | string;
  /** YYYY-MM-DD from a date input, or ''. */
  birthday: string;
  sexualOrientation: Orientation | null;
  relationshipGoal: RelationshipGoal | null;
  interests: string;
  profileImages: string[];
}

export function emptyAccountForm(): AccountFormValues {
  return {
    username: '',
    platform: 'instagram',
    deviceId: null,
    bio: '',
    gender: null,
    age: '',
    birthday: '',
    sexualOrientation: null,
    relationshipGoal: null,
    interests: '',
    profileImages: [],
  };
}

const blankToNull = (text: string): string | null => (text.trim() === '' ? null : text.trim());

/** A new account starts pending creation with no followers; tinder accounts carry their profile. */
export function buildAccountPayload(values: AccountFormValues): CreateAccountBody {
  const body: CreateAccountBody = {
    username: values.username.trim().replace(/^@/, ''),
    platform: values.platform,
    status: 'creation_pending',
    deviceId: values.deviceId,
    bio: blankToNull(values.bio),
    followers: 0,
    following: 0,
  };
  if (values.platform !== 'tinder') return body;
  const age = typeof values.age === 'number' ? values.age : values.age.trim() === '' ? null : Number(values.age);
  return {
    ...body,
    gender: values.gender,
    age,
    birthday: values.birthday === '' ? null : values.birthday,
    sexualOrientation: values.sexualOrientation,
    relationshipGoal: values.relationshipGoal,
    interests: splitList(values.interests),
    profileImages: [...values.profileImages],
  };
}

export type AccountFieldErrors = Partial<Record<keyof AccountFormValues, string>>;
const formFields: ReadonlySet<string> = new Set(Object.keys(emptyAccountForm()));

/** The shared schema's messages ('Username is required', the tinder image count…) under their inputs. */
export function accountFieldErrors(body: CreateAccountBody): AccountFieldErrors {
  const parsed = createAccountBody.safeParse(body);
  if (parsed.success) return {};
  const errors: AccountFieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && formFields.has(field)) {
      const key = field as keyof AccountFormValues;
      errors[key] ??= issue.message;
    }
  }
  return errors;
}

/** What the edit screen lets people change. */
export interface AccountDraft {
  username: string;
  status: AccountStatus;
  followers: number | string;
  following: number | string;
  bio: string;
}

export function accountDraft(account: Account): AccountDraft {
  return {
    username: account.username,
    status: account.status,
    followers: account.followers,
    following: account.following,
    bio: account.bio ?? '',
  };
}

function countOf(value: number | string, fallback: number): number {
  if (typeof value === 'number') return value;
  const parsed = Number(value);
  return value.trim() === '' || Number.isNaN(parsed) ? fallback : parsed;
}

/** Only the fields that differ from the stored account; an empty object means Save has nothing to do. */
export function accountChanges(account: Account, draft: AccountDraft): UpdateAccountBody {
  const changes: UpdateAccountBody = {};
  const username = draft.username.trim();
  if (username !== account.username) changes.username = username;
  if (draft.status !== account.status) changes.status = draft.status;
  const followers = countOf(draft.followers, account.followers);
  if (followers !== account.followers) changes.followers = followers;
  const following = countOf(draft.following, account.following);
  if (following !== account.following) changes.following = following;
  const bio = blankToNull(draft.bio);
  if (bio !== (account.bio === null ? null : blankToNull(account.bio))) changes.bio = bio;
  return changes;
}

export function hasChanges(changes: UpdateAccountBody): boolean {
  return Object.keys(changes).length > 0;
}
