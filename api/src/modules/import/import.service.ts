/**
 * CSV import of posts and accounts: each row is read as the console's form would send it and checked with the
 * form's own schema and messages, plus what only the server knows (the account, campaign or phone a name
 * points to, a schedule in the future, room on a phone). A dry run answers the verdicts; a real run writes the
 * valid rows in one transaction and answers the same verdicts.
 */
import { parse } from 'csv-parse/sync';
import type { Insertable } from 'kysely';
import type { AccountsTable, PostsTable } from '@farm/sql';
import type { z } from 'zod';
import {
  ACCOUNTS_PER_DEVICE,
  catalogue,
  fieldLabel,
  createAccountBody,
  createPostBody,
  importColumns,
  IMPORT_ROW_LIMIT,
  limitedPlatforms,
  messages,
  parseHashtags,
  type ImportEntity,
  type ImportResult,
  type ImportVerdict,
  type Platform,
} from '@farm/contracts';
import { AppError } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { accountsNamed, accountsPerDevice, campaignsNamed, devicesNamed, insertAccounts, insertPosts } from './import.queries.ts';
import { objectPath } from '../../storage/storage.ts';
import { outsideMediaMessage, storedObjectId, uploadedObjectsOf } from '../uploads/uploads.service.ts';

/** A schedule may be at most a minute in the past, as in the form. */
const SCHEDULE_GRACE_MS = 60_000;

type Record_ = Record<string, string>;

/** The CSV's rows keyed by header; a cell our export protected from spreadsheets ('=…) is read back as written. */
export function readCsv(text: string, entity: ImportEntity): Record_[] {
  let records: Record_[];
  try {
    records = parse(text, {
      columns: (header: string[]) => header.map((name) => name.trim()),
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as Record_[];
  } catch (error) {
    const line = (error as { lines?: unknown }).lines;
    const message = `The file is not a CSV file this console can read${typeof line === 'number' ? ` (see line ${line})` : ''}`;
    throw new AppError(400, message, [{ field: 'body', message }]);
  }
  if (records.length === 0)
    throw new AppError(400, 'The CSV file has no rows under its header', [{ field: 'body', message: 'The CSV file has no rows under its header' }]);
  if (records.length > IMPORT_ROW_LIMIT) {
    throw new AppError(400, `A CSV import takes at most ${IMPORT_ROW_LIMIT} rows at once`, [
      { field: 'body', message: `A CSV import takes at most ${IMPORT_ROW_LIMIT} rows at once` },
    ]);
  }
  const required = entity === 'posts' ? ['Account', 'Caption'] : ['Username', 'Platform'];
  const missing = required.filter((column) => !(column in records[0]!));
  if (missing.length > 0) {
    const message = `The CSV needs the column${missing.length > 1 ? 's' : ''} ${missing.map((column) => `"${column}"`).join(' and ')} (columns: ${importColumns[entity].join(', ')})`;
    throw new AppError(400, message, [{ field: 'body', message }]);
  }
  return records.map((record) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, unprotect(value ?? '')])));
}

function unprotect(value: string): string {
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

type Issue = { field: string; message: string };

/** A form message as a CSV column reads it: the spec's sentences as they are, others naming the column. */
function issue(column: string, message: string): Issue {
  if (catalogue.has(message)) return { field: column, message };
  return { field: column, message: `${column}: ${message}` };
}

/** A form's sentence names the form's field ("Schedule Date & Time must…"); the file's reader knows the column. */
function zodIssues(error: z.ZodError, columns: Record<string, string>): Issue[] {
  return error.issues.map((entry) => {
    const key = String(entry.path[0] ?? '');
    const column = columns[key] ?? key;
    if (catalogue.has(entry.message)) return { field: column, message: entry.message };
    const label = fieldLabel(entry.path);
    const rest = entry.message.startsWith(label) ? entry.message.slice(label.length) : `: ${entry.message}`;
    return { field: column, message: `${column}${rest}` };
  });
}

const cell = (record: Record_, column: string) => (record[column] ?? '').trim();
const list = (text: string) => text.split(/\s+/).filter(Boolean);

export interface PostsPlan {
  verdicts: ImportVerdict[];
  rows: Insertable<PostsTable>[];
}

const POST_COLUMNS: Record<string, string> = {
  accountId: 'Account',
  campaignId: 'Campaign',
  caption: 'Caption',
  hashtags: 'Hashtags',
  mediaUrls: 'Media URLs',
  status: 'Status',
  scheduledAt: 'Scheduled At',
};

export async function planPosts(db: Db, actor: Actor, records: Record_[], now = Date.now()): Promise<PostsPlan> {
  const accounts = await accountsNamed(db, actor.workspaceId, [...new Set(records.map((record) => cell(record, 'Account').replace(/^@/, '')).filter(Boolean))]);
  const campaigns = await campaignsNamed(db, actor.workspaceId, [...new Set(records.map((record) => cell(record, 'Campaign')).filter(Boolean))]);
  const stored = await uploadedObjectsOf(
    db,
    actor.workspaceId,
    records.flatMap((record) => list(cell(record, 'Media URLs')).map(storedObjectId)).filter((id): id is string => id !== null),
  );
  const verdicts: ImportVerdict[] = [];
  const rows: Insertable<PostsTable>[] = [];
  records.forEach((record, index) => {
    const errors: Issue[] = [];
    const username = cell(record, 'Account').replace(/^@/, '');
    const platform = cell(record, 'Platform').toLowerCase();
    const matches = accounts.filter((account) => account.username.toLowerCase() === username.toLowerCase() && (!platform || account.platform === platform));
    let accountId = '';
    if (!username) errors.push(issue('Account', messages.accountRequired));
    else if (matches.length === 0) errors.push(issue('Account', `no account @${username}${platform ? ` on ${platform}` : ''} in this workspace`));
    else if (matches.length > 1) errors.push(issue('Account', `more than one account is named @${username}; give its Platform`));
    else if (matches[0]!.status !== 'active') errors.push(issue('Account', `@${username} is not active; only active accounts can post`));
    else accountId = matches[0]!.id;
    const campaignName = cell(record, 'Campaign');
    const campaign = campaignName ? campaigns.find((row) => row.name.toLowerCase() === campaignName.toLowerCase()) : undefined;
    if (campaignName && !campaign) errors.push(issue('Campaign', `no campaign "${campaignName}" in this workspace`));
    const scheduledText = cell(record, 'Scheduled At');
    const status = cell(record, 'Status').toLowerCase() || (scheduledText ? 'scheduled' : 'draft');
    const input = {
      accountId: accountId || 'unknown',
      campaignId: campaign?.id ?? null,
      caption: record.Caption ?? '',
      status,
      hashtags: parseHashtags(cell(record, 'Hashtags')),
      mediaUrls: list(cell(record, 'Media URLs')),
      scheduledAt: scheduledText || null,
    };
    const parsed = createPostBody.safeParse(input);
    if (!parsed.success) errors.push(...zodIssues(parsed.error, POST_COLUMNS));
    // Only the workspace's own stored files: an outside address would be fetched by the farm PC.
    const outside = input.mediaUrls.find((url) => !stored.has(storedObjectId(url) ?? ''));
    if (outside !== undefined) errors.push({ field: 'Media URLs', message: outsideMediaMessage('Media URLs', outside) });
    if (status === 'failed') errors.push(issue('Status', 'a post cannot be created as failed'));
    if (parsed.success && parsed.data.status === 'scheduled' && parsed.data.scheduledAt && Date.parse(parsed.data.scheduledAt) < now - SCHEDULE_GRACE_MS) {
      errors.push(issue('Scheduled At', 'must be in the future'));
    }
    const values: Record<string, string> = {
      Account: username ? `@${username}` : '',
      Platform: matches.length === 1 ? matches[0]!.platform : platform,
      Campaign: campaign?.name ?? campaignName,
      Caption: input.caption,
      Hashtags: input.hashtags.join(' '),
      'Media URLs': input.mediaUrls.join(' '),
      Status: status,
      'Scheduled At': parsed.success && parsed.data.scheduledAt ? parsed.data.scheduledAt : scheduledText,
    };
    const unique = dedupe(errors);
    verdicts.push({ line: index + 2, ok: unique.length === 0, errors: unique, values });
    if (unique.length === 0 && parsed.success) {
      const body = parsed.data;
      rows.push({
        workspaceId: actor.workspaceId,
        accountId,
        campaignId: body.campaignId ?? null,
        caption: body.caption,
        status: body.status,
        hashtags: body.hashtags ?? [],
        mediaUrls: (body.mediaUrls ?? []).map((url) => objectPath(storedObjectId(url)!)),
        scheduledAt: body.status === 'scheduled' ? (body.scheduledAt ?? null) : null,
        publishedAt: body.status === 'published' ? new Date(now) : null,
        createdById: actor.userId,
      });
    }
  });
  return { verdicts, rows };
}

export interface AccountsPlan {
  verdicts: ImportVerdict[];
  rows: Insertable<AccountsTable>[];
}

const ACCOUNT_COLUMNS: Record<string, string> = {
  username: 'Username',
  platform: 'Platform',
  status: 'Status',
  deviceId: 'Device',
  bio: 'Bio',
  followers: 'Followers',
  following: 'Following',
  profileImages: 'Profile Images',
};

function count(text: string, column: string, errors: Issue[]): number | undefined {
  if (!text) return undefined;
  if (!/^\d+$/.test(text.replace(/[,_ ]/g, ''))) {
    errors.push(issue(column, 'must be a whole number'));
    return undefined;
  }
  return Number(text.replace(/[,_ ]/g, ''));
}

export async function planAccounts(db: Db, actor: Actor, records: Record_[]): Promise<AccountsPlan> {
  const devices = await devicesNamed(db, actor.workspaceId, [...new Set(records.map((record) => cell(record, 'Device')).filter(Boolean))]);
  const held = await accountsPerDevice(
    db,
    actor.workspaceId,
    devices.map((device) => device.id),
  );
  const room = new Map(held.map((row) => [`${row.deviceId} ${row.platform}`, row.count]));
  const existing = await accountsNamed(db, actor.workspaceId, [
    ...new Set(records.map((record) => cell(record, 'Username').replace(/^@/, '')).filter(Boolean)),
  ]);
  const seen = new Set(existing.map((account) => `${account.username.toLowerCase()} ${account.platform}`));
  const verdicts: ImportVerdict[] = [];
  const rows: Insertable<AccountsTable>[] = [];
  records.forEach((record, index) => {
    const errors: Issue[] = [];
    const username = cell(record, 'Username').replace(/^@/, '');
    const platform = cell(record, 'Platform').toLowerCase();
    const deviceName = cell(record, 'Device');
    const named = deviceName ? devices.filter((device) => device.name.toLowerCase() === deviceName.toLowerCase()) : [];
    if (deviceName && named.length === 0) errors.push(issue('Device', `no phone named "${deviceName}" in this workspace`));
    if (named.length > 1) errors.push(issue('Device', `more than one phone is named "${deviceName}"`));
    const deviceId = named.length === 1 ? named[0]!.id : null;
    const input = {
      username,
      platform,
      status: cell(record, 'Status').toLowerCase() || undefined,
      deviceId,
      bio: record.Bio?.trim() ? record.Bio : null,
      followers: count(cell(record, 'Followers'), 'Followers', errors),
      following: count(cell(record, 'Following'), 'Following', errors),
    };
    const parsed = createAccountBody.safeParse(input);
    if (!parsed.success) errors.push(...zodIssues(parsed.error, ACCOUNT_COLUMNS));
    const key = `${username.toLowerCase()} ${platform}`;
    if (username && seen.has(key)) errors.push(issue('Username', `@${username} on ${platform} is already in this workspace or earlier in the file`));
    if (parsed.success && deviceId && limitedPlatforms.includes(parsed.data.platform as Platform)) {
      const slot = `${deviceId} ${parsed.data.platform}`;
      const taken = room.get(slot) ?? 0;
      if (taken >= ACCOUNTS_PER_DEVICE) errors.push(issue('Device', messages.accountLimit));
      else if (errors.length === 0) room.set(slot, taken + 1);
    }
    const values: Record<string, string> = {
      Username: username,
      Platform: platform,
      Status: input.status ?? 'creation_pending',
      Device: named[0]?.name ?? deviceName,
      Bio: input.bio ?? '',
      Followers: String(input.followers ?? 0),
      Following: String(input.following ?? 0),
    };
    const unique = dedupe(errors);
    verdicts.push({ line: index + 2, ok: unique.length === 0, errors: unique, values });
    if (unique.length === 0 && parsed.success) {
      seen.add(key);
      const body = parsed.data;
      rows.push({
        workspaceId: actor.workspaceId,
        username: body.username,
        platform: body.platform,
        ...(body.status ? { status: body.status } : {}),
        deviceId,
        bio: body.bio ?? null,
        followers: body.followers ?? 0,
        following: body.following ?? 0,
      });
    }
  });
  return { verdicts, rows };
}

function dedupe(errors: Issue[]): Issue[] {
  const seen = new Set<string>();
  return errors.filter((entry) => {
    const key = `${entry.field}|${entry.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Reads the CSV and checks every row; unless it is a dry run, writes the valid rows in one transaction, in one feed line. */
export async function importCsv(ctx: WriteContext, actor: Actor, entity: ImportEntity, text: string, dryRun: boolean): Promise<ImportResult> {
  const records = readCsv(text, entity);
  const plan = entity === 'posts' ? await planPosts(ctx.db, actor, records) : await planAccounts(ctx.db, actor, records);
  const valid = plan.verdicts.filter((verdict) => verdict.ok).length;
  let created = 0;
  if (!dryRun && plan.rows.length > 0) {
    created = await write(ctx, actor.workspaceId, async (tx, outbox) => {
      const count = entity === 'posts' ? await insertPosts(tx, plan.rows as never) : await insertAccounts(tx, plan.rows as never);
      const [one, many] = entity === 'posts' ? ['post', 'posts'] : ['account', 'accounts'];
      await outbox.record(
        { userId: actor.userId, action: `Imported ${count} ${count === 1 ? one : many} from CSV`, type: 'success' },
        { action: `${one}.imported`, entityType: one!, entityId: null, data: { count, invalid: plan.verdicts.length - valid } },
      );
      return count;
    });
  }
  return { dryRun, total: plan.verdicts.length, valid, invalid: plan.verdicts.length - valid, created, rows: plan.verdicts };
}
