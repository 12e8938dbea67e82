/**
 * Refusals as sentences a person reads: "Name must be at most 200 characters", never a validator's own
 * wording. One error map, installed for every zod parse in whatever process imports the contracts (the API's
 * request validation and the web forms alike); a schema's own message, where it has one, still wins.
 */
import { z } from 'zod';

/** What people call a field, where its name in the API is not already a word of the screens. */
export const fieldLabels: Readonly<Record<string, string>> = {
  scheduledAt: 'Schedule Date & Time',
  publishedAt: 'Published date',
  from: 'From date',
  to: 'To date',
  deviceId: 'Device',
  accountId: 'Account',
  campaignId: 'Campaign',
  routineId: 'Routine',
  taskId: 'Task',
  sessionId: 'Session',
  assignedToId: 'Assignee',
  vaId: 'VA',
  id: 'Id',
  mediaUrls: 'Media',
  imageURL: 'Image URL',
  inviteToken: 'Invitation',
  filename: 'File name',
  currentPassword: 'Current password',
  newPassword: 'New password',
  engagementTarget: 'Engagement target',
  referenceAccounts: 'Reference accounts',
  warmupStartDate: 'Warm-up start date',
  warmupEndDate: 'Warm-up end date',
  profileImages: 'Profile images',
  profilePicture: 'Profile picture',
  sessionTime: 'Session time',
  currentTask: 'Current task',
  customLore: 'Custom lore',
  isActive: 'Active',
  range: 'Time range',
  sexualOrientation: 'Sexual orientation',
  relationshipGoal: 'Relationship goal',
  autoswipeAgeMin: 'Minimum age',
  autoswipeAgeMax: 'Maximum age',
  autoswipeDistanceMax: 'Distance',
  autoswipeGenderPreference: 'Gender preference',
  autoswipeBioKeywords: 'Bio keywords',
  wall: 'Wall link',
  expires: 'Expiry',
  code: 'Code',
  challenge: 'Sign-in step',
  required: 'Required',
  offsetMinutes: 'Offset',
  url: 'URL',
  actorId: 'Person',
  tz: 'Time zone',
  dryRun: 'Dry run',
};

/** "autoLikeGuidelines" → "Auto like guidelines". */
function words(name: string): string {
  const spaced = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** The field a path names, as a person reads it; list items say which item ("Hashtags (item 3)"). */
export function fieldLabel(path: readonly PropertyKey[] | string): string {
  const parts = typeof path === 'string' ? path.split('.').filter(Boolean) : path;
  let name: string | undefined;
  let index: number | undefined;
  for (const part of parts) {
    if (typeof part === 'number' || (typeof part === 'string' && /^\d+$/.test(part))) index = Number(part);
    else if (typeof part === 'string') {
      name = part;
      index = undefined;
    }
  }
  if (name === undefined) return 'Request body';
  const label = fieldLabels[name] ?? words(name);
  return index === undefined ? label : `${label} (item ${index + 1})`;
}

const typeWords: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
};

const formatWords: Readonly<Record<string, string>> = {
  email: 'a valid email address',
  uuid: 'an id',
  guid: 'an id',
  url: 'a URL',
  date: 'a date (YYYY-MM-DD)',
  datetime: 'a date and time',
  time: 'a time',
  base64: 'base64 text',
  base64url: 'base64 text',
};

const quote = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function oneOf(values: readonly unknown[]): string {
  const shown = values.map(quote);
  if (shown.length === 1) return shown[0]!;
  return `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]!}`;
}

type RawIssue = Parameters<NonNullable<z.core.$ZodConfig['customError']>>[0];

/** The sentence for a validation issue that its schema did not word itself. */
export function issueSentence(issue: RawIssue): string | undefined {
  const label = fieldLabel(issue.path ?? []);
  const it = issue as unknown as Record<string, unknown>;
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return `${label} is required`;
      if (issue.input === null) return `${label} must not be empty`;
      if (typeof issue.input === 'number' && Number.isNaN(issue.input)) return `${label} must be a number`;
      return `${label} must be ${typeWords[String(it.expected)] ?? String(it.expected)}`;
    }
    case 'too_small': {
      const minimum = Number(it.minimum);
      const origin = String(it.origin);
      if (origin === 'string') return minimum <= 1 ? `${label} is required` : `${label} must be at least ${minimum} characters`;
      if (origin === 'array' || origin === 'set') return `${label} must have at least ${minimum} ${minimum === 1 ? 'item' : 'items'}`;
      if (origin === 'date') return `${label} must not be before ${new Date(minimum).toISOString()}`;
      return it.inclusive === false ? `${label} must be greater than ${minimum}` : `${label} must be at least ${minimum}`;
    }
    case 'too_big': {
      const maximum = Number(it.maximum);
      const origin = String(it.origin);
      if (origin === 'string') return `${label} must be at most ${maximum} characters`;
      if (origin === 'array' || origin === 'set') return `${label} must have at most ${maximum} ${maximum === 1 ? 'item' : 'items'}`;
      if (origin === 'date') return `${label} must not be after ${new Date(maximum).toISOString()}`;
      return it.inclusive === false ? `${label} must be less than ${maximum}` : `${label} must be at most ${maximum}`;
    }
    case 'invalid_format':
      return `${label} must be ${formatWords[String(it.format)] ?? 'in the expected format'}`;
    case 'not_multiple_of':
      return `${label} must be a multiple of ${String(it.divisor)}`;
    case 'invalid_value': {
      const values = Array.isArray(it.values) ? it.values : [];
      if (values.length === 0) return `${label} is not an allowed value`;
      return values.length === 1 ? `${label} must be ${quote(values[0])}` : `${label} must be one of ${oneOf(values)}`;
    }
    case 'unrecognized_keys': {
      const keys = Array.isArray(it.keys) ? it.keys.map(String) : [];
      return `${label} has ${keys.length === 1 ? 'a field' : 'fields'} it does not take: ${keys.join(', ')}`;
    }
    case 'invalid_key':
      return `${label} has a key that is not valid`;
    case 'invalid_element':
      return `${label} has an item that is not valid`;
    case 'invalid_union':
      return `${label} is not valid`;
    default:
      return `${label} is not valid`;
  }
}

/** A schema's own message that names its field: `must('be a date and time')` reads "Deadline must be a date and time". */
export function must(rest: string): (issue: RawIssue) => string {
  return (issue) => `${fieldLabel(issue.path ?? [])} must ${rest}`;
}

/** A schema-wide message for a missing value only; other problems keep their own sentence. */
export function whenMissing(message: string): (issue: RawIssue) => string | undefined {
  return (issue) => (issue.input === undefined ? message : undefined);
}

z.config({ customError: issueSentence });

/** A byte count as a person reads it: 512 KB, 3.2 MB, 5 GB (binary units, as the quota and limits are set). */
export function sizeText(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : Math.round(value * 10) / 10} ${units[unit]}`;
}
