/**
 * What a process counts or records in memory and writes in batches every few seconds (the results'
 * tallies, recorded carts): the timer, the writes one after another, the last write on close.
 * A subclass holds what is pending and writes it in {@link BatchedWriter.write}, keeping what
 * failed for the next time.
 */
export abstract class BatchedWriter {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly everyMs: number) {}

  /** Writes what is pending; called one at a time. */
  protected abstract write(): Promise<void>;

  /** A write within `everyMs`, unless one is due already. */
  protected schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.everyMs);
    this.timer.unref();
  }

  /** Writes what is pending, after any write under way. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Writes what is pending (a process stopping). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
