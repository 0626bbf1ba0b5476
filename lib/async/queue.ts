/**
 * The one promise queue of the project: work run one after another per key, in this process. The record
 * writes of a post (lib/posts/write-order.ts), the holders of one store lock within a process
 * (store/lock-turns.ts, before the lock across processes), the writes of one translation document and the
 * geolocation sync all queue through it. It orders work; exclusion across nodes is the store's lock.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` once every earlier `run` with the same key has settled; answers what `fn` answers. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves once everything queued under `key` so far has settled (never rejects). */
  settled(key: string): Promise<void> {
    return (this.tails.get(key) ?? Promise.resolve()).then(() => undefined);
  }

  /** Keys with work queued or running (tests, diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}
