/** Saved Inspect captures: their rows, with the phone's and the person's names. */
import { sql } from 'kysely';
import type { Db, Tx } from '../../shared/types.ts';

export function captureQuery(db: Db, workspaceId: string) {
  return db
    .selectFrom('uiCaptures as c')
    .leftJoin('devices as d', 'd.id', 'c.deviceId')
    .leftJoin('users as u', 'u.id', 'c.createdById')
    .select([
      'c.id',
      'c.screenName',
      'c.package',
      'c.appVersion',
      'c.locale',
      'c.deviceId',
      'd.name as deviceName',
      // Who may see the capture: whoever may control its phone (screens.rules.ts).
      'd.assignedToId as deviceAssignedToId',
      'c.createdById',
      'u.name as createdByName',
      'c.createdAt',
      'c.frameKey',
      'c.width',
      'c.height',
    ])
    .where('c.workspaceId', '=', workspaceId);
}

export type CaptureRow = Awaited<ReturnType<ReturnType<typeof captureQuery>['executeTakeFirstOrThrow']>>;

export function listCaptures(
  db: Db,
  workspaceId: string,
  filter: { package?: string | undefined; screenName?: string | undefined; deviceId?: string | undefined },
  viewer?: string,
) {
  let query = captureQuery(db, workspaceId);
  if (viewer) query = query.where('d.assignedToId', '=', viewer);
  if (filter.package !== undefined) query = query.where('c.package', '=', filter.package);
  if (filter.screenName !== undefined) query = query.where(sql<string>`lower(c.screen_name)`, '=', filter.screenName.trim().toLowerCase());
  if (filter.deviceId !== undefined) query = query.where('c.deviceId', '=', filter.deviceId);
  return query.orderBy('c.createdAt', 'desc').limit(500).execute();
}

export function findCapture(db: Db, workspaceId: string, id: string) {
  return captureQuery(db, workspaceId).select('c.tree').where('c.id', '=', id).executeTakeFirst();
}

/** Every saved tree of one screen of an app (the newest 200), for a selector check; a VA's, of their phones only. */
export function screenTrees(db: Db, workspaceId: string, packageName: string, screenName: string, viewer?: string) {
  let query = db
    .selectFrom('uiCaptures')
    .select(['id', 'appVersion', 'locale', 'createdAt', 'tree'])
    .where('workspaceId', '=', workspaceId)
    .where('package', '=', packageName)
    .where(sql<string>`lower(screen_name)`, '=', screenName.trim().toLowerCase());
  if (viewer)
    query = query.where('deviceId', 'in', (eb) =>
      eb.selectFrom('devices').select('id').where('workspaceId', '=', workspaceId).where('assignedToId', '=', viewer),
    );
  return query.orderBy('createdAt', 'desc').limit(200).execute();
}

export function deviceOfWorkspace(db: Db, workspaceId: string, deviceId: string) {
  return db.selectFrom('devices').select(['id', 'name', 'assignedToId']).where('workspaceId', '=', workspaceId).where('id', '=', deviceId).executeTakeFirst();
}

export async function insertCapture(
  tx: Tx,
  values: {
    workspaceId: string;
    deviceId: string;
    createdById: string;
    screenName: string;
    package: string;
    appVersion: string;
    locale: string;
    tree: string;
    treeBytes: number;
    frameKey: string;
    width: number;
    height: number;
  },
): Promise<string> {
  const row = await tx.insertInto('uiCaptures').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function insertFrameObject(
  tx: Tx,
  values: { key: string; workspaceId: string; createdById: string; contentType: string; size: number },
): Promise<void> {
  await tx
    .insertInto('storedObjects')
    .values({ ...values, uploadedAt: new Date() })
    .execute();
}

/** Removes a capture and its frame's record; answers the frame's key (its file goes after the transaction). */
export async function deleteCapture(tx: Tx, workspaceId: string, id: string): Promise<string | null> {
  const row = await tx.deleteFrom('uiCaptures').where('workspaceId', '=', workspaceId).where('id', '=', id).returning('frameKey').executeTakeFirst();
  if (!row) return null;
  await tx.deleteFrom('storedObjects').where('workspaceId', '=', workspaceId).where('key', '=', row.frameKey).execute();
  return row.frameKey;
}
