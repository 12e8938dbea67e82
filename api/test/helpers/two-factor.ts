/**
 * Codes from an authenticator app as a test types them, on a fixed clock. A code of the step before now is still
 * accepted (clocks drift) and is not yet used, so a test can turn two-factor on with it and sign in with the current
 * one. On the wall clock a step could turn between the test taking a code and the server checking it, where the code
 * is then one step older than meant (two steps old: refused); under `fixedClock()` both read the same instant, so no
 * test depends on where the wall clock falls.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { currentCode } from '../../src/auth/two-factor.service.ts';

const STEP_MS = 30_000;

/**
 * Stops the clock (`Date` alone: timers, sockets and the database run as ever) at the moment each test of the file
 * begins, and starts it again after the test. The test's codes and the server's checks of them read that one instant.
 */
export function fixedClock(): void {
  beforeEach(() => {
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** The code of the step `offsetSteps` from now (−1: the step before), on the file's fixed clock. */
export async function codeAt(secret: string, offsetSteps: number): Promise<string> {
  if (!vi.isFakeTimers()) throw new Error('codeAt needs the fixed clock: call fixedClock() at the top of the test file');
  return currentCode(secret, Date.now() + offsetSteps * STEP_MS);
}
