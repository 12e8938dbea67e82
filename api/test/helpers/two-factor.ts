/**
 * Codes from an authenticator app as a test types them. A code of the step before now is still accepted (clocks
 * drift) and is not yet used, so a test can turn two-factor on with it and sign in with the current one. Near a
 * step's edge the server may check it in the next step, where it is two steps old and refused, so the helper waits
 * past the edge first: no test depends on where the wall clock falls.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { currentCode } from '../../src/auth/two-factor.service.ts';

const STEP_MS = 30_000;
/** Room left in the step for the requests that use the code. */
const MARGIN_MS = 3_000;

/** Waits, when less than three seconds of the current 30-second step remain, until the next step begins. */
export async function awayFromStepEdge(): Promise<void> {
  const left = STEP_MS - (Date.now() % STEP_MS);
  if (left < MARGIN_MS) await sleep(left + 50);
}

/** The code of the step `offsetSteps` from now (−1: the step before), taken well inside the current step. */
export async function codeAt(secret: string, offsetSteps: number): Promise<string> {
  await awayFromStepEdge();
  return currentCode(secret, Date.now() + offsetSteps * STEP_MS);
}
