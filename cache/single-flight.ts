/**
 * One computation per stale answer, per key and per node (docs/caching.md#one-computation-per-stale-answer):
 * while a read that missed computes an answer, the reads of the same key that miss after it wait for that
 * computation instead of computing the answer again.
 *
 * A waiting read takes the answer only when the computation's value was kept (cache/clean-mark.ts): a
 * keep succeeds only if no write's clean covered the key between the computation's mark and the keep, so
 * every write answered before the waiting read arrived (its clean comes before its answer, C16: read your writes) is in the
 * value. When the value was not kept (a write crossed it, or it is not kept at all), the waiting reads
 * compute again, sharing one new computation; a read that waited twice in vain computes alone, so writes
 * that keep crossing the computations cannot hold a read back for long.
 */

/** How many computations a read waits on before it computes alone. */
export const MAX_WAITS = 2;

/** What a computation ended with: its value, and whether it was kept (then waiting reads may take it). */
export interface Flight<T> {
  value?: T;
  kept: boolean;
}

/** The computations in progress on this node, by key. */
export class Flights<T> {
  private readonly inProgress = new Map<string, Promise<Flight<T>>>();

  /** How many keys are being computed now. */
  get size(): number {
    return this.inProgress.size;
  }

  /** The computation of `key` in progress, if any. */
  current(key: string): Promise<Flight<T>> | undefined {
    return this.inProgress.get(key);
  }

  /**
   * Starts the computation of `key`: answers the function that ends it (with its value and whether it was
   * kept; ending twice does nothing). Until it ends, `current(key)` answers it.
   */
  start(key: string): (outcome: Flight<T>) => void {
    let end!: (outcome: Flight<T>) => void;
    const flight = new Promise<Flight<T>>(resolve => (end = resolve));
    this.inProgress.set(key, flight);
    let ended = false;
    return outcome => {
      if (ended) return;
      ended = true;
      if (this.inProgress.get(key) === flight) this.inProgress.delete(key);
      end(outcome);
    };
  }

  /**
   * `compute()`'s value for `key`, computed once for every caller that asks while it runs. `compute`
   * answers the value and whether it was kept; a caller that waited on a computation whose value was not
   * kept computes again (sharing that computation with the others that waited). `seen` is the computation
   * that was running when the caller arrived (`current(key)`, taken before its own cache read): it may have
   * ended since, and its kept value is still the answer.
   */
  async run(key: string, compute: () => Promise<Flight<T> & { value: T }>, seen?: Promise<Flight<T>>): Promise<T> {
    for (let waits = 0; waits < MAX_WAITS; waits++) {
      const running = this.inProgress.get(key) ?? (waits === 0 ? seen : undefined);
      if (!running) break;
      const outcome = await running;
      if (outcome.kept) return outcome.value as T;
    }
    if (this.inProgress.has(key)) return (await compute()).value;
    const end = this.start(key);
    try {
      const outcome = await compute();
      end(outcome);
      return outcome.value;
    } catch (err) {
      end({ kept: false });
      throw err;
    }
  }
}
