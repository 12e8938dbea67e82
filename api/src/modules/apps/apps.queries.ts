/** The app library (0041): versions and their APKs, pins per group, rollouts and their phones. */
import { sql } from 'kysely';
import type { AppRolloutAction, AppRolloutPhoneStatus, AppRolloutStatus, AppVersionKind } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';

/** A long version code (bigint, below 2^53) read as a number by either driver. */
const longCode = (column: string) => sql<number>`${sql.ref(column)}::float8`.as('versionCode');
const rolloutCode = sql<number | null>`r.version_code::float8`.as('versionCode');

const versionColumns = [
  'v.id',
  'v.package',
  longCode('v.versionCode'),
  'v.versionName',
  'v.minSdk',
  'v.abis',
  'v.kind',
  'v.fileName',
  'v.size',
  'v.createdAt',
] as const;

/** The version's APKs (name and size), the base first. */
const versionFiles = sql<
  { name: string; size: number }[]
>`coalesce((select json_agg(json_build_object('name', f.name, 'size', f.size) order by f.position) from app_version_files f where f.version_id = v.id), '[]'::json)`;

/** Every version in the library: by package, newest version first. */
export function listVersions(db: Db, workspaceId: string) {
  return db
    .selectFrom('appVersions as v')
    .select([...versionColumns, versionFiles.as('files')])
    .where('v.workspaceId', '=', workspaceId)
    .orderBy('v.package')
    .orderBy('v.versionCode', 'desc')
    .execute();
}

export function findVersion(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('appVersions as v')
    .select([...versionColumns, versionFiles.as('files')])
    .where('v.workspaceId', '=', workspaceId)
    .where('v.id', '=', id)
    .executeTakeFirst();
}
export type VersionRow = NonNullable<Awaited<ReturnType<typeof findVersion>>>;

export function versionOfCode(tx: Tx, workspaceId: string, packageName: string, versionCode: number) {
  return tx
    .selectFrom('appVersions')
    .select('id')
    .where('workspaceId', '=', workspaceId)
    .where('package', '=', packageName)
    .where('versionCode', '=', versionCode)
    .executeTakeFirst();
}

export interface NewVersion {
  package: string;
  versionCode: number;
  versionName: string | null;
  minSdk: number | null;
  abis: string[];
  kind: AppVersionKind;
  fileName: string;
  size: number;
}

/** Records the version, its stored objects and its files, in the caller's transaction. */
export async function insertVersion(
  tx: Tx,
  actor: { workspaceId: string; userId: string },
  version: NewVersion,
  files: readonly { key: string; name: string; size: number }[],
): Promise<string> {
  const now = new Date();
  await tx
    .insertInto('storedObjects')
    .values(
      files.map((file) => ({
        key: file.key,
        workspaceId: actor.workspaceId,
        createdById: actor.userId,
        contentType: 'application/vnd.android.package-archive',
        size: file.size,
        uploadedAt: now,
      })),
    )
    .execute();
  const { id } = await tx
    .insertInto('appVersions')
    .values({ ...version, workspaceId: actor.workspaceId, uploadedById: actor.userId })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('appVersionFiles')
    .values(files.map((file, position) => ({ versionId: id, position, name: file.name, objectKey: file.key, size: file.size })))
    .execute();
  return id;
}

/** Removes the version with its files' records; answers the stored objects to delete from disk once committed. */
export async function deleteVersion(
  tx: Tx,
  workspaceId: string,
  id: string,
): Promise<{ package: string; versionName: string | null; keys: string[] } | undefined> {
  const version = await tx
    .selectFrom('appVersions')
    .select(['id', 'package', 'versionName'])
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!version) return undefined;
  const files = await tx.deleteFrom('appVersionFiles').where('versionId', '=', id).returning('objectKey').execute();
  const keys = files.map((file) => file.objectKey);
  await tx.deleteFrom('appVersions').where('id', '=', id).execute();
  if (keys.length > 0) await tx.deleteFrom('storedObjects').where('key', 'in', keys).where('workspaceId', '=', workspaceId).execute();
  return { package: version.package, versionName: version.versionName, keys };
}

/** The version's APKs as the farm host fetches them: name, size and stored object, the base first. */
export function versionFileRows(db: Db, versionId: string) {
  return db.selectFrom('appVersionFiles').select(['name', 'objectKey', 'size']).where('versionId', '=', versionId).orderBy('position').execute();
}

// ── pins ──────────────────────────────────────────────────────────────────────────────────────────────────────

export function listPins(db: Db, workspaceId: string) {
  return db
    .selectFrom('appPins')
    .select(['groupId', 'package', longCode('versionCode'), 'versionName', 'createdAt'])
    .where('workspaceId', '=', workspaceId)
    .orderBy('package')
    .orderBy('groupId')
    .execute();
}

export async function upsertPin(
  tx: Tx,
  workspaceId: string,
  pin: { groupId: string; package: string; versionCode: number; versionName: string | null; pinnedById: string },
): Promise<void> {
  await tx
    .insertInto('appPins')
    .values({ ...pin, workspaceId })
    .onConflict((oc) =>
      oc
        .columns(['groupId', 'package'])
        .doUpdateSet({ versionCode: pin.versionCode, versionName: pin.versionName, pinnedById: pin.pinnedById, createdAt: new Date() }),
    )
    .execute();
}

export function deletePin(tx: Tx, workspaceId: string, groupId: string, packageName: string) {
  return tx
    .deleteFrom('appPins')
    .where('workspaceId', '=', workspaceId)
    .where('groupId', '=', groupId)
    .where('package', '=', packageName)
    .returning(['groupId'])
    .executeTakeFirst();
}

/** The groups pinning this exact version, by name. */
export async function groupsPinning(tx: Tx, workspaceId: string, packageName: string, versionCode: number): Promise<string[]> {
  const rows = await tx
    .selectFrom('appPins as p')
    .innerJoin('deviceGroups as g', 'g.id', 'p.groupId')
    .select('g.name')
    .where('p.workspaceId', '=', workspaceId)
    .where('p.package', '=', packageName)
    .where('p.versionCode', '=', versionCode)
    .orderBy('g.name')
    .execute();
  return rows.map((row) => row.name);
}

/** For each of these phones, the lowest pin of the package among its groups (the one a rollout must not pass). */
export async function pinsOfPhones(tx: Tx, workspaceId: string, packageName: string, deviceIds: readonly string[]) {
  if (deviceIds.length === 0) return [];
  return tx
    .selectFrom('appPins as p')
    .innerJoin('deviceGroupMembers as m', 'm.groupId', 'p.groupId')
    .innerJoin('deviceGroups as g', 'g.id', 'p.groupId')
    .select(['m.deviceId', 'g.name as groupName', longCode('p.versionCode'), 'p.versionName'])
    .where('p.workspaceId', '=', workspaceId)
    .where('p.package', '=', packageName)
    .where('m.deviceId', 'in', deviceIds)
    .orderBy('p.versionCode')
    .execute();
}

// ── rollouts ──────────────────────────────────────────────────────────────────────────────────────────────────

const rolloutColumns = [
  'r.id',
  'r.workspaceId',
  'r.action',
  'r.package',
  'r.versionId',
  rolloutCode,
  'r.versionName',
  'r.firstStageSize',
  'r.allowDowngrade',
  'r.status',
  'r.createdAt',
  'r.finishedAt',
] as const;

const rolloutPhones = sql<
  { deviceId: string; deviceName: string; stage: number; status: AppRolloutPhoneStatus; code: string | null; reason: string | null; updatedAt: string }[]
>`coalesce((select json_agg(json_build_object('deviceId', p.device_id, 'deviceName', d.name, 'stage', p.stage, 'status', p.status, 'code', p.code, 'reason', p.reason, 'updatedAt', p.updated_at) order by p.stage, p.position) from app_rollout_phones p join devices d on d.id = p.device_id where p.rollout_id = r.id), '[]'::json)`;

export function listRollouts(db: Db, workspaceId: string, limit = 20) {
  return db
    .selectFrom('appRollouts as r')
    .select([...rolloutColumns, rolloutPhones.as('phones')])
    .where('r.workspaceId', '=', workspaceId)
    .orderBy('r.createdAt', 'desc')
    .orderBy('r.id', 'desc')
    .limit(limit)
    .execute();
}

export function findRollout(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('appRollouts as r')
    .select([...rolloutColumns, rolloutPhones.as('phones')])
    .where('r.workspaceId', '=', workspaceId)
    .where('r.id', '=', id)
    .executeTakeFirst();
}
export type RolloutRow = NonNullable<Awaited<ReturnType<typeof findRollout>>>;

/** A rollout of this version still under way. */
export function activeRolloutOf(tx: Tx, versionId: string) {
  return tx.selectFrom('appRollouts').select('id').where('versionId', '=', versionId).where('status', 'in', ['first_stage', 'rest']).executeTakeFirst();
}

export function insertRollout(
  tx: Tx,
  values: {
    workspaceId: string;
    action: AppRolloutAction;
    package: string;
    versionId: string | null;
    versionCode: number | null;
    versionName: string | null;
    firstStageSize: number;
    allowDowngrade: boolean;
    createdById: string;
  },
) {
  return tx
    .insertInto('appRollouts')
    .values({ ...values, status: 'first_stage' })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function insertRolloutPhones(tx: Tx, workspaceId: string, rolloutId: string, phones: readonly { deviceId: string; stage: number }[]) {
  await tx
    .insertInto('appRolloutPhones')
    .values(phones.map((phone, position) => ({ rolloutId, workspaceId, deviceId: phone.deviceId, stage: phone.stage, position, status: 'waiting' as const })))
    .execute();
}

/** Locks the rollout, so results of its phones arriving together move it one after the other. */
export function lockRollout(tx: Tx, id: string) {
  return tx.selectFrom('appRollouts').select(['id', 'workspaceId', 'status']).where('id', '=', id).forUpdate().executeTakeFirst();
}

export function setRolloutStatus(tx: Tx, id: string, status: AppRolloutStatus) {
  return tx
    .updateTable('appRollouts')
    .set({ status, ...(status === 'done' || status === 'stopped' ? { finishedAt: new Date() } : {}) })
    .where('id', '=', id)
    .execute();
}

/** The phones of a stage still waiting, with where each is reached (its host and serial). */
export function waitingPhones(tx: Tx, rolloutId: string, stage: number) {
  return tx
    .selectFrom('appRolloutPhones as p')
    .innerJoin('devices as d', 'd.id', 'p.deviceId')
    .select(['p.deviceId', 'd.name', 'd.hostId', 'd.serial'])
    .where('p.rolloutId', '=', rolloutId)
    .where('p.stage', '=', stage)
    .where('p.status', '=', 'waiting')
    .orderBy('p.position')
    .execute();
}

/** Sets a phone's result; answers whether it changed (a late or repeated answer for a settled phone changes nothing). */
export async function setPhoneResult(
  tx: Tx,
  rolloutId: string,
  deviceId: string,
  from: readonly AppRolloutPhoneStatus[],
  result: { status: AppRolloutPhoneStatus; code: string | null; reason: string | null },
): Promise<boolean> {
  const row = await tx
    .updateTable('appRolloutPhones')
    .set({ ...result, updatedAt: new Date() })
    .where('rolloutId', '=', rolloutId)
    .where('deviceId', '=', deviceId)
    .where('status', 'in', [...from])
    .returning('deviceId')
    .executeTakeFirst();
  return row !== undefined;
}

/** Every remaining waiting phone of the rollout is skipped, with the reason. */
export async function skipWaiting(tx: Tx, rolloutId: string, reason: string): Promise<void> {
  await tx
    .updateTable('appRolloutPhones')
    .set({ status: 'skipped', code: 'stage_failed', reason, updatedAt: new Date() })
    .where('rolloutId', '=', rolloutId)
    .where('status', '=', 'waiting')
    .execute();
}

/** How the phones of a stage stand: counts per status. */
export async function stageCounts(tx: Tx, rolloutId: string, stage: number): Promise<Record<AppRolloutPhoneStatus, number>> {
  const rows = await tx
    .selectFrom('appRolloutPhones')
    .select(['status', sql<number>`count(*)::int`.as('count')])
    .where('rolloutId', '=', rolloutId)
    .where('stage', '=', stage)
    .groupBy('status')
    .execute();
  const counts: Record<AppRolloutPhoneStatus, number> = { waiting: 0, sent: 0, succeeded: 0, failed: 0, skipped: 0 };
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

/** The phones of the workspace among these ids, in the order given, with their names. */
export async function phonesOfWorkspace(tx: Tx, workspaceId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return tx.selectFrom('devices').select(['id', 'name']).where('workspaceId', '=', workspaceId).where('id', 'in', ids).execute();
}

/** The workspace's phones' installed app versions, as their agents last said (device_software, 0035). */
export function installedApps(db: Db, workspaceId: string) {
  return db
    .selectFrom('deviceSoftware as s')
    .innerJoin('devices as d', 'd.id', 's.deviceId')
    .select(['s.deviceId', 'd.name', 's.apps'])
    .where('s.workspaceId', '=', workspaceId)
    .orderBy('d.createdAt')
    .orderBy('d.id')
    .execute();
}

/** The workspace's enabled recipe rows' bodies and the versions each row was verified on (the coverage rule's inputs). */
export async function coverageInputs(db: Db, workspaceId: string) {
  const [recipes, verifications, workspace] = await Promise.all([
    sql<{ id: string; body: string }>`select id, body::text as body from workspace_recipes where workspace_id = ${workspaceId} and enabled`.execute(db),
    db
      .selectFrom('recipeVerifications')
      .select(['recipeRowId', 'recipeId', 'package', 'appVersion', 'locale'])
      .where('workspaceId', '=', workspaceId)
      .execute(),
    db.selectFrom('workspaces').select('tryUntestedTemplates').where('id', '=', workspaceId).executeTakeFirst(),
  ]);
  return { rows: recipes.rows, verifications, allowUntested: workspace?.tryUntestedTemplates ?? false };
}

/**
 * An APK a host may fetch: a file of a version whose rollout waits on one of the host's phones (sent, not answered).
 * Anything else (another workspace's, or a version no rollout sent the host) is not found.
 */
export function hostAppFile(db: Db, host: { id: string; workspaceId: string }, key: string) {
  return db
    .selectFrom('appVersionFiles as f')
    .innerJoin('appVersions as v', 'v.id', 'f.versionId')
    .select(['f.objectKey as key', 'f.size'])
    .where('f.objectKey', '=', key)
    .where('v.workspaceId', '=', host.workspaceId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('appRollouts as r')
          .innerJoin('appRolloutPhones as p', 'p.rolloutId', 'r.id')
          .innerJoin('devices as d', 'd.id', 'p.deviceId')
          .select('r.id')
          .whereRef('r.versionId', '=', 'v.id')
          .where('p.status', '=', 'sent')
          .where('d.hostId', '=', host.id),
      ),
    )
    .executeTakeFirst();
}

/** The phones of this host whose app job was sent and not answered, with what the job was. */
export function sentJobsOfHost(db: Db, host: { id: string; workspaceId: string }) {
  return db
    .selectFrom('appRolloutPhones as p')
    .innerJoin('appRollouts as r', 'r.id', 'p.rolloutId')
    .innerJoin('devices as d', 'd.id', 'p.deviceId')
    .select(['r.id as rolloutId', 'r.action', 'r.package', 'r.versionId', 'r.allowDowngrade', 'd.serial'])
    .where('p.workspaceId', '=', host.workspaceId)
    .where('d.hostId', '=', host.id)
    .where('p.status', '=', 'sent')
    .orderBy('p.updatedAt')
    .execute();
}

/** Phones sent a job before `before` whose host never answered (at most `limit`, oldest first). */
export function overdueAppJobs(db: Db, before: Date, limit = 100) {
  return db
    .selectFrom('appRolloutPhones')
    .select(['rolloutId', 'deviceId', 'workspaceId'])
    .where('status', '=', 'sent')
    .where('updatedAt', '<', before)
    .orderBy('updatedAt')
    .limit(limit)
    .execute();
}
