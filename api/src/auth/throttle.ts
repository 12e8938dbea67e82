/**
 * Login throttling: after too many failures in a window, per IP and per email, answer 429 until the window passes.
 * Kept in process memory: an attacker spread over several API instances gets at most N times the budget.
 */
export interface ThrottleOptions {
  maxFailures: number;
  windowMs: number;
}

export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly options: ThrottleOptions = { maxFailures: 10, windowMs: 15 * 60_000 }) {}

  isBlocked(key: string, now = Date.now()): boolean {
    return this.recent(key, now).length >= this.options.maxFailures;
  }

  fail(key: string, now = Date.now()): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > 100_000) this.sweep(now);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => now - at < this.options.windowMs);
  }

  private sweep(now: number): void {
    for (const [key, times] of this.failures) {
      if (times.every((at) => now - at >= this.options.windowMs)) this.failures.delete(key);
    }
  }
}
