/**
 * Writes gathered into batches as a group commit does (docs/webhooks.md#how-deliveries-are-made): the
 * first item is written at once, alone; the items arriving while a batch is being written go together in
 * the next one (at most `max`). One batch at a time, so a busy store gets fewer, larger writes and an idle
 * one no added wait. Each item's promise settles with its batch.
 */
export class Batches<I, O> {
  private queue: Array<{ item: I; resolve(o: O): void; reject(e: unknown): void }> = [];
  private writing?: Promise<void>;

  /** `write` answers one result per item, in the items' order. */
  constructor(private readonly write: (items: I[]) => Promise<O[]>, private readonly max = 500) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.next();
    });
  }

  /** Items waiting or being written. */
  get size(): number {
    return this.queue.length;
  }

  private next(): void {
    if (this.writing || !this.queue.length) return;
    const batch = this.queue.splice(0, this.max);
    this.writing = this.write(batch.map(b => b.item)).then(
      outs => batch.forEach((b, i) => b.resolve(outs[i])),
      (err: unknown) => batch.forEach(b => b.reject(err))
    ).finally(() => {
      this.writing = undefined;
      this.next();
    });
  }
}
