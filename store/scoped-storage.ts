/**
 * An AsyncLocalStorage that is switched on only while some work runs in it.
 *
 * On Node before 24, an AsyncLocalStorage once run keeps Node's async hooks on for the rest of the process,
 * so every promise of every request pays for carrying the store along, though the store's scopes (a
 * transaction, a lock held) are entered only by writes and jobs. This one counts the runs in progress and
 * switches the storage off when the last has settled: reads that follow run with the hooks off (unless
 * another storage keeps them on). Work a run started that outlives it reads no store afterwards, as it
 * would read one marked finished: the scopes kept here are all closed by then (a lock let go, a
 * transaction committed).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export class ScopedStorage<T> {
  private readonly storage = new AsyncLocalStorage<T>();
  private running = 0;

  getStore(): T | undefined {
    return this.storage.getStore();
  }

  /** Runs `fn` with `store` as the store of all it starts, until its promise settles. */
  run<R>(store: T, fn: () => Promise<R>): Promise<R> {
    this.running++;
    let out: Promise<R>;
    try {
      out = this.storage.run(store, fn);
    } catch (err) {
      this.settled();
      throw err;
    }
    return out.finally(() => this.settled());
  }

  /** Runs `fn` with no store. */
  exit<R>(fn: () => R): R {
    return this.storage.exit(fn);
  }

  private settled(): void {
    if (--this.running === 0) this.storage.disable();
  }
}
