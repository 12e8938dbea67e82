/**
 * Inspect's saved captures: a person names a screen they inspected and keeps it (the frame a stored object, the tree
 * counted with it in the workspace's storage quota, in one transaction under the quota's lock); a selector is checked
 * against every saved capture of that screen, green where it still finds its node.
 */
import { randomUUID } from 'node:crypto';
import { checkSelector, type UiTree } from '@farm/agent-protocol/inspect';
import type { CreateUiCaptureBody, SelectorCheck, UiCaptureDetail, UiCaptureSummary } from '@farm/contracts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { WriteOutbox } from '../../events/write.ts';
import type { Actor, Db, Tx } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { assertQuota } from '../uploads/uploads.service.ts';
import { deleteCapture, deviceOfWorkspace, insertCapture, insertFrameObject, screenTrees, type CaptureRow } from './captures.queries.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toSummary(row: CaptureRow): UiCaptureSummary {
  return {
    id: row.id,
    screenName: row.screenName,
    package: row.package,
    appVersion: row.appVersion,
    locale: row.locale,
    deviceId: row.deviceId,
    deviceName: row.deviceName ?? null,
    createdByName: row.createdByName ?? null,
    createdAt: row.createdAt.toISOString(),
    frameUrl: objectPath(row.frameKey),
    width: row.width,
    height: row.height,
  };
}

export function toDetail(row: CaptureRow & { tree: unknown }): UiCaptureDetail {
  return { ...toSummary(row), tree: row.tree as UiTree };
}

/** A VA keeps captures of the phones assigned to them; an operator of any phone of the workspace. */
async function assertMayCapture(db: Db, actor: Actor, deviceId: string) {
  const device = UUID.test(deviceId) ? await deviceOfWorkspace(db, actor.workspaceId, deviceId) : undefined;
  if (!device) throw badRequest('deviceId', 'That phone is not in this workspace');
  if (actor.role !== 'operator' && device.assignedToId !== actor.userId) throw new AppError(403, 'A VA saves captures of the phones assigned to them only');
  return device;
}

export async function saveCapture(tx: Tx, storage: Storage, actor: Actor, body: CreateUiCaptureBody, outbox: WriteOutbox): Promise<string> {
  const device = await assertMayCapture(tx, actor, body.deviceId);
  const match = /^data:(image\/(?:jpeg|png));base64,(.+)$/.exec(body.frame);
  const bytes = Buffer.from(match?.[2] ?? '', 'base64');
  if (!match || bytes.length === 0) throw badRequest('frame', 'Frame must be a JPEG or PNG data URL');
  const isJpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
  const isPng = bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  if ((match[1] === 'image/jpeg' && !isJpeg) || (match[1] === 'image/png' && !isPng)) throw badRequest('frame', 'Frame is not the image it says it is');
  const tree = JSON.stringify(body.tree);
  const treeBytes = Buffer.byteLength(tree);
  await assertQuota(tx, actor.workspaceId, bytes.length + treeBytes);
  const frameKey = randomUUID();
  await insertFrameObject(tx, {
    key: frameKey,
    workspaceId: actor.workspaceId,
    createdById: actor.userId,
    contentType: match[1] as string,
    size: bytes.length,
  });
  const id = await insertCapture(tx, {
    workspaceId: actor.workspaceId,
    deviceId: device.id,
    createdById: actor.userId,
    screenName: body.screenName,
    package: body.app.package ?? '',
    appVersion: body.app.version ?? '',
    locale: body.app.locale ?? '',
    tree,
    treeBytes,
    frameKey,
    width: body.tree.width,
    height: body.tree.height,
  });
  // Written while the rows are held: if writing fails, nothing of the capture stays.
  await storage.write(frameKey, bytes);
  await outbox.record(
    { userId: actor.userId, action: `Screen "${body.screenName}" of ${device.name} saved for Inspect`, deviceId: device.id, type: 'info' },
    {
      action: 'capture.saved',
      entityType: 'ui_capture',
      entityId: id,
      data: { screenName: body.screenName, package: body.app.package, appVersion: body.app.version },
    },
  );
  return id;
}

export async function removeCapture(tx: Tx, actor: Actor, id: string, createdById: string | null, outbox: WriteOutbox): Promise<string> {
  if (actor.role !== 'operator' && createdById !== actor.userId) throw new AppError(403, 'A VA removes only the captures they saved');
  const frameKey = await deleteCapture(tx, actor.workspaceId, id);
  if (!frameKey) throw notFound();
  await outbox.record(
    { userId: actor.userId, action: 'A saved Inspect capture was removed', type: 'info' },
    { action: 'capture.removed', entityType: 'ui_capture', entityId: id, data: {} },
  );
  return frameKey;
}

export async function checkAcrossCaptures(
  db: Db,
  workspaceId: string,
  body: { package: string; screenName: string; selector: Parameters<typeof checkSelector>[1] },
  viewer?: string,
): Promise<SelectorCheck> {
  const rows = await screenTrees(db, workspaceId, body.package, body.screenName, viewer);
  const results: SelectorCheck['results'] = rows.map((row) => {
    const verdict = checkSelector(row.tree as UiTree, body.selector);
    return { captureId: row.id, appVersion: row.appVersion, locale: row.locale, createdAt: row.createdAt.toISOString(), ...verdict };
  });
  return { results };
}
