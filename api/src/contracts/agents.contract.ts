import { z } from 'zod';
import { id, isoTime } from './common.ts';
import { device } from './fleet.contract.ts';

/** The credential a phone agent connects with; shown once, stored hashed. */
export const deviceCredential = z.object({ deviceId: id, token: z.string(), createdAt: isoTime });

export const screenshot = z.object({ id, deviceId: id, sessionId: id.nullable(), url: z.string(), capturedAt: isoTime });
export type Screenshot = z.infer<typeof screenshot>;

export const commandBody = z.object({ name: z.enum(['screenshot', 'pause', 'resume', 'stop', 'restart_session']) });
export const commandAnswer = z.object({ delivered: z.boolean() });

export const wallLink = z.object({ id, name: z.string(), createdAt: isoTime, revokedAt: isoTime.nullable() });
export type WallLink = z.infer<typeof wallLink>;
export const createWallLinkBody = z.object({ name: z.string().trim().min(1, { message: 'name is required' }).max(80).optional() });
export const createdWallLink = wallLink.extend({ token: z.string(), url: z.string() });

/** One tile of the wall screen: only what a TV on the farm floor needs to show. */
export const wallTile = device.pick({ id: true, name: true, status: true, battery: true, lastActive: true }).extend({
  screenshotUrl: z.string().nullable(),
  currentTask: z.string().nullable(),
  vaName: z.string().nullable(),
});
export type WallTile = z.infer<typeof wallTile>;
export const wallSnapshot = z.object({ workspaceName: z.string(), tiles: z.array(wallTile) });
export type WallSnapshot = z.infer<typeof wallSnapshot>;
export const wallQuery = z.object({ token: z.string().max(200).optional() });
