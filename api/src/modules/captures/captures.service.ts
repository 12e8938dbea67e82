/**
 * Inspect's saved captures: a person names a screen they inspected and keeps it (the frame a stored object, the tree
 * counted with it in the workspace's storage quota, in one transaction under the quota's lock); a selector is checked
 * against every saved capture of that screen, green where it still finds its node.
 */
import { randomUUID } from 'node:crypto';
import { isOnScreen, nodeMatches, selectorVerdict, type checkSelector, type UiTree } from '@farm/agent-protocol/inspect';
import type { CreateUiCaptureBody, SelectorCheck, UiCaptureDetail, UiCaptureSummary } from '@farm/contracts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { assertQuota } from '../uploads/uploads.service.ts';
import { deleteCapture, deviceOfWorkspace, findCapture, insertCapture, insertFrameObject, screenTrees, type CaptureRow } from './captures.queries.ts';

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

/**
 * Keeps a screen a person inspected: its frame stored and its rows written while they are held (if storing fails,
 * nothing of the capture stays). Answers the capture as saved.
 */
export async function saveCapture(ctx: WriteContext & { storage: Storage }, actor: Actor, body: CreateUiCaptureBody): Promise<UiCaptureDetail> {
  const id = await write(ctx, actor.workspaceId, async (tx, outbox) => {
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
    const captureId = await insertCapture(tx, {
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
    await ctx.storage.write(frameKey, bytes);
    await outbox.record(
      { userId: actor.userId, action: `Screen "${body.screenName}" of ${device.name} saved for Inspect`, deviceId: device.id, type: 'info' },
      {
        action: 'capture.saved',
        entityType: 'ui_capture',
        entityId: captureId,
        data: { screenName: body.screenName, package: body.app.package, appVersion: body.app.version },
      },
    );
    return captureId;
  });
  const row = await findCapture(ctx.db, actor.workspaceId, id);
  if (!row) throw notFound();
  return toDetail(row);
}

/** Removes a saved capture (an operator's any, a VA's their own), then its frame's stored object. Not found: 404. */
export async function removeCapture(ctx: WriteContext & { storage: Storage }, actor: Actor, id: string): Promise<void> {
  const row = await findCapture(ctx.db, actor.workspaceId, id).catch(() => undefined);
  if (!row) throw notFound();
  const frameKey = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    if (actor.role !== 'operator' && row.createdById !== actor.userId) throw new AppError(403, 'A VA removes only the captures they saved');
    const key = await deleteCapture(tx, actor.workspaceId, row.id);
    if (!key) throw notFound();
    await outbox.record(
      { userId: actor.userId, action: 'A saved Inspect capture was removed', type: 'info' },
      { action: 'capture.removed', entityType: 'ui_capture', entityId: row.id, data: {} },
    );
    return key;
  });
  await ctx.storage.remove([frameKey]);
}

/** Matching time one check may spend in all, and the longest it holds the event loop before letting other requests in. */
const CHECK_BUDGET_MS = 2000;
const SLICE_MS = 10;

/**
 * The selector over every saved capture of the screen (up to 200 of 3,000 nodes each). Patterns are RE2 (linear in
 * the text), yet that much text is still seconds of work: the walk gives way to other requests every few
 * milliseconds, and a selector whose matching passes the budget is refused naming its pattern.
 */
export async function checkAcrossCaptures(
  db: Db,
  workspaceId: string,
  body: { package: string; screenName: string; selector: Parameters<typeof checkSelector>[1] },
  viewer?: string,
): Promise<SelectorCheck> {
  const rows = await screenTrees(db, workspaceId, body.package, body.screenName, viewer);
  const { selector } = body;
  let spent = 0;
  let sliceStart = performance.now();
  const results: SelectorCheck['results'] = [];
  for (const row of rows) {
    const tree = row.tree as UiTree;
    const found: unknown[] = [];
    for (const node of tree.nodes) {
      if (isOnScreen(tree, node) && nodeMatches(node, selector)) found.push(node);
      const now = performance.now();
      if (now - sliceStart < SLICE_MS) continue;
      spent += now - sliceStart;
      if (spent > CHECK_BUDGET_MS) throw tooLongToMatch(selector);
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    results.push({
      captureId: row.id,
      appVersion: row.appVersion,
      locale: row.locale,
      createdAt: row.createdAt.toISOString(),
      ...selectorVerdict(found, selector),
    });
  }
  return { results };
}

function tooLongToMatch(selector: { textMatches?: string | undefined; descMatches?: string | undefined }): AppError {
  const field = selector.textMatches !== undefined ? 'textMatches' : selector.descMatches !== undefined ? 'descMatches' : undefined;
  if (!field) return badRequest('selector', 'The selector takes too long to check over the saved captures of this screen.');
  return badRequest(`selector.${field}`, `The pattern in ${field} takes too long to match over the saved captures of this screen: write a simpler one.`);
}
