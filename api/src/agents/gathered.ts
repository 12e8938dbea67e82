/**
 * Calls that come while a batch is being written wait for it, then go together as the next batch: one statement for
 * many phones when the farm is busy, and no wait at all when it is not (a call with nothing running goes at once).
 */
interface Waiting<I, O> {
  item: I;
  resolve: (answer: O) => void;
  reject: (error: unknown) => void;
}

export class Gathered<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private running: Promise<void> | undefined;

  constructor(
    /** Answers each item, in the order given. */
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  /** The item's answer once its batch is written; a batch that fails fails each of its callers. */
  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.running ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      try {
        const answers = await this.write(batch.map((call) => call.item));
        for (const [i, call] of batch.entries()) call.resolve(answers[i] as O);
      } catch (error) {
        for (const call of batch) call.reject(error);
      }
    }
    this.running = undefined;
  }

  /** Waits for the batches written or waiting now. */
  async close(): Promise<void> {
    await this.running;
  }
}
