/**
 * The app library (issue #42): an upload's bytes are reserved under the storage quota, it is streamed to a temporary
 * file under the size cap, read for what it is (apps.apk.ts) and its APKs stored as the workspace's objects
 * and recorded; a version goes only when no rollout uses it and no group pins it. The coverage rule
 * (`coversApp`) says which versions the workspace's recipes cover, for the library and the phones' warnings.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { coversApp, parseRecipe, recipePackages, type Coverage } from '@farm/agent-protocol/recipes';
import { weighedRecipes, type WeighedRecipe } from '@farm/workers';
import { appMessages, sizeText, type AppCoverageWarning, type AppPin, type AppVersion } from '@farm/contracts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import type { Actor, Db, Tx } from '../../shared/types.ts';
import { lockGroup } from '../groups/groups.queries.ts';
import type { Storage } from '../../storage/storage.ts';
import { deleteStorageReservation } from '../uploads/uploads.queries.ts';
import { assertQuota, releaseStorage, reserveStorage, resizeStorage } from '../uploads/uploads.service.ts';
import { ApkError, ApkTooLargeError, readUploadedApp } from './apps.apk.ts';
import {
  activeRolloutOf,
  coverageInputs,
  deletePin,
  deleteVersion,
  findVersion,
  groupsPinning,
  insertVersion,
  installedApps,
  listPins,
  upsertPin,
  versionOfCode,
  type VersionRow,
} from './apps.queries.ts';

// ── coverage ──────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * What the coverage rule needs of a workspace: its recipes (its own enabled rows, each with its own verifications,
 * then the shipped templates with none) and whether templates may run on versions no one verified.
 */
export interface CoverageBasis {
  recipes: WeighedRecipe[];
  allowUntested: boolean;
}

export async function coverageBasis(db: Db, workspaceId: string): Promise<CoverageBasis> {
  const inputs = await coverageInputs(db, workspaceId);
  const own = inputs.rows.flatMap((row) => {
    const parsed = parseRecipe(JSON.parse(row.body));
    return parsed.ok ? [{ rowId: row.id, recipe: parsed.recipe }] : [];
  });
  return { recipes: weighedRecipes(own, inputs.verifications), allowUntested: inputs.allowUntested };
}

/**
 * Whether any recipe covers this version of the app; when none does, the reason of the recipe that drives the
 * package (the version or language it falls outside), or that no recipe drives it at all.
 */
export function appCoverage(basis: CoverageBasis, packageName: string, version: string): { covered: boolean; reason: string | null } {
  const driving = basis.recipes.filter(({ recipe }) => recipePackages(recipe).includes(packageName));
  if (driving.length === 0) return { covered: false, reason: `No recipe drives ${packageName}: its work goes to VAs by hand.` };
  let refusal: Extract<Coverage, { covered: false }> | null = null;
  for (const { recipe, verifications } of driving) {
    const answer = coversApp(recipe, { package: packageName, version }, { verifications, allowUntested: basis.allowUntested });
    if (answer.covered) return { covered: true, reason: null };
    refusal ??= answer;
  }
  return { covered: false, reason: refusal?.reason ?? null };
}

/** Every phone's installed app version that no recipe covers, as its agent last said (device_software). */
export async function coverageWarnings(db: Db, workspaceId: string): Promise<AppCoverageWarning[]> {
  const [rows, basis] = await Promise.all([installedApps(db, workspaceId), coverageBasis(db, workspaceId)]);
  const warnings: AppCoverageWarning[] = [];
  for (const row of rows) {
    const apps = Array.isArray(row.apps) ? (row.apps as { package?: unknown; version?: unknown }[]) : [];
    for (const app of apps) {
      if (typeof app.package !== 'string' || typeof app.version !== 'string' || app.version.length === 0) continue;
      const coverage = appCoverage(basis, app.package, app.version);
      if (!coverage.covered)
        warnings.push({ deviceId: row.deviceId, deviceName: row.name, package: app.package, version: app.version, reason: coverage.reason ?? '' });
    }
  }
  return warnings;
}

// ── the library ───────────────────────────────────────────────────────────────────────────────────────────────

export function toAppVersion(row: VersionRow, basis: CoverageBasis): AppVersion {
  return {
    id: row.id,
    package: row.package,
    versionCode: row.versionCode,
    versionName: row.versionName,
    minSdk: row.minSdk,
    abis: row.abis,
    kind: row.kind,
    fileName: row.fileName,
    size: Number(row.size),
    files: row.files.map((file) => ({ name: file.name, size: Number(file.size) })),
    coverage: appCoverage(basis, row.package, row.versionName ?? String(row.versionCode)),
    uploadedAt: row.createdAt.toISOString(),
  };
}

export async function pinsOf(db: Db, workspaceId: string): Promise<AppPin[]> {
  return (await listPins(db, workspaceId)).map((row) => ({
    groupId: row.groupId,
    package: row.package,
    versionCode: row.versionCode,
    versionName: row.versionName,
    pinnedAt: row.createdAt.toISOString(),
  }));
}

function tooLarge(maxBytes: number): AppError {
  const message = appMessages.tooLarge(sizeText(maxBytes));
  return new AppError(413, message, [{ field: 'file', message }]);
}

/** Streams the request's body to `path`, refusing it (413) once past `maxBytes`. Answers the bytes written. */
async function receive(body: Readable, path: string, maxBytes: number): Promise<number> {
  let written = 0;
  const out = createWriteStream(path, { mode: 0o600 });
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      written += chunk.length;
      if (written > maxBytes) throw tooLarge(maxBytes);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } catch (error) {
    body.resume();
    throw error;
  } finally {
    await new Promise<void>((resolve) => out.end(() => resolve()));
  }
  return written;
}

export interface UploadInput {
  body: Readable;
  declaredLength: number | null;
  fileName: string;
  maxBytes: number;
}

/**
 * Takes an uploaded APK or split set into the library: read from its bytes, refused with a sentence when it is not an
 * app, too large, already there, or past the storage quota; nothing is kept of a refused upload.
 *
 * The quota is held before a byte is written: the declared length (or the cap, for a body of unknown length) is
 * reserved under the quota's lock, then resized to what the app is stored as once its directory is read and before a
 * split set's APKs are copied out; the stored files replace the reservation in the transaction that records them.
 */
export async function uploadApp(ctx: WriteContext & { storage: Storage }, actor: Actor, input: UploadInput): Promise<AppVersion> {
  if (input.declaredLength !== null && input.declaredLength > input.maxBytes) throw tooLarge(input.maxBytes);
  if (input.declaredLength === 0) throw badRequest('file', appMessages.emptyFile);
  const reservation = await reserveStorage(ctx, actor.workspaceId, input.declaredLength ?? input.maxBytes);
  let dir: string | null = null;
  const stored: string[] = [];
  try {
    dir = await mkdtemp(join(tmpdir(), 'farm-app-'));
    const uploadPath = join(dir, 'upload');
    const size = await receive(input.body, uploadPath, input.maxBytes);
    if (size === 0) throw badRequest('file', appMessages.emptyFile);
    const app = await readUploadedApp(uploadPath, join(dir, 'set'), input.fileName, {
      maxBytes: input.maxBytes,
      beforeExtract: (bytes) => resizeStorage(ctx, actor.workspaceId, reservation, bytes),
    }).catch((error: unknown) => {
      if (error instanceof ApkTooLargeError) throw new AppError(413, error.message, [{ field: 'file', message: error.message }]);
      throw error instanceof ApkError ? badRequest('file', error.message) : error;
    });
    const files = app.files.map((file) => ({ key: randomUUID(), name: file.name, size: file.size, path: file.path }));
    const total = files.reduce((sum, file) => sum + file.size, 0);
    const basis = await coverageBasis(ctx.db, actor.workspaceId);
    // Stored before the rows, so a committed version always has its files; a refused write removes them below.
    for (const file of files) {
      await ctx.storage.writeFrom(file.key, file.path);
      stored.push(file.key);
    }
    const id = await write(ctx, actor.workspaceId, async (tx, outbox) => {
      // The files take the reservation's place, counted under the same lock.
      await deleteStorageReservation(tx, reservation);
      await assertQuota(tx, actor.workspaceId, total);
      if (await versionOfCode(tx, actor.workspaceId, app.package, app.versionCode))
        throw conflict(appMessages.versionTaken(app.package, app.versionName, app.versionCode));
      const versionId = await insertVersion(
        tx,
        actor,
        {
          package: app.package,
          versionCode: app.versionCode,
          versionName: app.versionName,
          minSdk: app.minSdk,
          abis: app.abis,
          kind: app.kind,
          fileName: input.fileName,
          size: total,
        },
        files,
      );
      const label = `${app.package} ${app.versionName ?? `(version code ${app.versionCode})`}`;
      await outbox.record(
        { userId: actor.userId, action: `App ${label} added to the library`, type: 'info' },
        { action: 'app.uploaded', entityType: 'app_version', entityId: versionId, data: { package: app.package, versionCode: app.versionCode, size: total } },
      );
      await announceVersion(tx, actor.workspaceId, versionId, outbox, basis);
      return versionId;
    }).catch(async (error: unknown) => {
      // The same version uploaded twice at once: the unique index is the same sentence as the check.
      if ((error as { code?: unknown }).code === '23505') throw conflict(appMessages.versionTaken(app.package, app.versionName, app.versionCode));
      throw error;
    });
    stored.length = 0;
    const row = await findVersion(ctx.db, actor.workspaceId, id);
    if (!row) throw notFound();
    return toAppVersion(row, basis);
  } finally {
    if (stored.length > 0) await ctx.storage.remove(stored).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    // Gone already when the version was recorded; otherwise its bytes go back to the workspace.
    await releaseStorage(ctx, actor.workspaceId, reservation).catch(() => undefined);
  }
}

async function announceVersion(tx: Tx, workspaceId: string, id: string, outbox: WriteOutbox, basis: CoverageBasis): Promise<void> {
  const row = await findVersion(tx, workspaceId, id);
  if (row) outbox.add('app.created', toAppVersion(row, basis));
}

/**
 * Removes a version from the library, unless a rollout of it is under way or a group pins it; its files are deleted
 * once the rows are gone (a file left behind by a crash then holds no row and counts for nothing).
 */
export async function removeVersion(ctx: WriteContext & { storage: Storage }, actor: Actor, id: string, log: Pick<FastifyBaseLogger, 'warn'>): Promise<void> {
  const keys = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const row = await findVersion(tx, actor.workspaceId, id);
    if (!row) throw notFound();
    if (await activeRolloutOf(tx, id)) throw conflict(appMessages.versionInUse);
    const pinning = await groupsPinning(tx, actor.workspaceId, row.package, row.versionCode);
    if (pinning.length > 0) throw conflict(appMessages.pinnedVersionInUse(pinning.map((name) => `"${name}"`).join(', ')));
    const removed = await deleteVersion(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    outbox.add('app.deleted', { id });
    await outbox.record(
      { userId: actor.userId, action: `App ${row.package} ${row.versionName ?? row.versionCode} removed from the library`, type: 'warning' },
      { action: 'app.deleted', entityType: 'app_version', entityId: id, data: { package: row.package, versionCode: row.versionCode } },
    );
    return removed.keys;
  });
  await ctx.storage.remove(keys).catch((error: unknown) => log.warn({ err: error }, 'app files not removed'));
}

// ── pins ──────────────────────────────────────────────────────────────────────────────────────────────────────

/** Holds a group at a version of the library (replacing its pin of that app, if any); answers the workspace's pins. */
export function pinVersion(ctx: WriteContext, actor: Actor, body: { groupId: string; versionId: string }): Promise<AppPin[]> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const group = await lockGroup(tx, actor.workspaceId, body.groupId);
    if (!group) throw badRequest('groupId', 'The group was not found in this workspace');
    const version = await findVersion(tx, actor.workspaceId, body.versionId);
    if (!version) throw badRequest('versionId', 'The version was not found in this workspace’s app library');
    await upsertPin(tx, actor.workspaceId, {
      groupId: group.id,
      package: version.package,
      versionCode: version.versionCode,
      versionName: version.versionName,
      pinnedById: actor.userId,
    });
    const label = version.versionName ?? `version code ${version.versionCode}`;
    await outbox.record(
      { userId: actor.userId, action: `Group ${group.name} pinned to ${version.package} ${label}`, type: 'info' },
      { action: 'app.pinned', entityType: 'device_group', entityId: group.id, data: { package: version.package, versionCode: version.versionCode } },
    );
    const pins = await pinsOf(tx, actor.workspaceId);
    outbox.add('app.pins', { pins });
    return pins;
  });
}

/** The group no longer holds the app at a version; answers the workspace's pins. */
export function unpin(ctx: WriteContext, actor: Actor, groupId: string, packageName: string): Promise<AppPin[]> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const group = await lockGroup(tx, actor.workspaceId, groupId);
    if (!group || !(await deletePin(tx, actor.workspaceId, groupId, packageName))) throw notFound();
    await outbox.record(
      { userId: actor.userId, action: `Group ${group.name} no longer pins ${packageName}`, type: 'info' },
      { action: 'app.unpinned', entityType: 'device_group', entityId: group.id, data: { package: packageName } },
    );
    const pins = await pinsOf(tx, actor.workspaceId);
    outbox.add('app.pins', { pins });
    return pins;
  });
}
