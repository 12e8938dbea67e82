/**
 * Joining: an agent exchanges a one-time code (from the console: a device's "Connect phone", or Settings → Phone
 * hosts) at `POST /api/agent/enroll` for its credential, once. A device code answers the device's credential, a host
 * code the host's; the phone's facts given are kept on its device.
 */
import { z } from 'zod';

export const ENROLL_PATH = '/api/agent/enroll';

export const enrollBody = z.object({
  code: z
    .string({ error: 'Enter the enrollment code' })
    .trim()
    .min(1, { message: 'Enter the enrollment code' })
    .max(40, { message: 'An enrollment code is at most 40 characters' }),
  serial: z.string().trim().min(1).max(100).optional(),
  model: z.string().trim().min(1).max(100).optional(),
  androidVersion: z.string().trim().min(1).max(20).optional(),
});
export type EnrollBody = z.input<typeof enrollBody>;

export const deviceEnrollment = z.object({ deviceId: z.string(), token: z.string() });
export const hostEnrollment = z.object({ hostId: z.string(), token: z.string() });
export const enrollAnswer = z.union([deviceEnrollment, hostEnrollment]);
export type EnrollAnswer = z.infer<typeof enrollAnswer>;

/** Exchanges a code with the server at `server`; throws with the server's own words when it refuses. */
export async function enroll(server: string, body: EnrollBody): Promise<EnrollAnswer> {
  const response = await fetch(new URL(ENROLL_PATH, server), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json as { error?: unknown } | undefined)?.error;
    throw new Error(typeof error === 'string' ? error : `The server answered ${response.status}`);
  }
  return enrollAnswer.parse(json);
}
