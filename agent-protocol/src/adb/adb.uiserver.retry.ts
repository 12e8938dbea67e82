/**
 * When the UI server is tried again after it could not be installed or started. A phone that keeps failing would
 * otherwise be sent the server's two APKs (about 18 MB) every minute for as long as it stays plugged in: the wait
 * starts at a minute and doubles with each failure in a row (1, 2, 4, 8 … minutes) up to an hour. A server that
 * starts clears the count, and so does a phone that returns: the host opens a new phone (and a new count) for a phone
 * that is plugged in again or comes back after a blip.
 */

/** The longest wait between two tries. */
export const UI_SERVER_RETRY_MAX_MS = 60 * 60_000;

export class UiServerRetry {
  private failures = 0;
  private notBefore = 0;

  constructor(
    /** The wait after the first failure. */
    private readonly firstMs: number,
    /** The longest wait (never shorter than the first). */
    private readonly maxMs = UI_SERVER_RETRY_MAX_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the server may be tried now. */
  due(): boolean {
    return this.now() >= this.notBefore;
  }

  /** Failures in a row since the last start. */
  get failuresInARow(): number {
    return this.failures;
  }

  /** When the next try may be (0: now). */
  get nextTryAt(): number {
    return this.notBefore;
  }

  /**
   * A try failed; answers the wait before the next one. `atLeastMs` is a longer wait the failure itself calls for (a
   * phone that refuses installs from USB stays refusing until someone changes its settings).
   */
  failed(atLeastMs = 0): number {
    this.failures += 1;
    const cap = Math.max(this.firstMs, this.maxMs);
    // The exponent stops growing once the cap is reached, so a phone failing for weeks never overflows.
    const doubled = this.firstMs * 2 ** Math.min(this.failures - 1, 40);
    const wait = Math.max(atLeastMs, Math.min(cap, doubled));
    this.notBefore = this.now() + wait;
    return wait;
  }

  /** The server started: the next failure waits the first wait again. */
  succeeded(): void {
    this.failures = 0;
    this.notBefore = 0;
  }
}
