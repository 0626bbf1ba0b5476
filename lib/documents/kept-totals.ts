/**
 * Totals kept with the mark they were counted under (C62: "a total kept per filter and … dropped by
 * writes"). The store answers a total and its mark in one read; the mark is a number that every committed
 * write of what the total counts moves on, and nothing moves back (store/sql/write-marks.ts). A kept total
 * is answered again only while the store's mark still reads what it was counted under, so it is always the
 * total a count would answer now: the answer stays exact, and only the work is saved.
 *
 * One count runs per stale or missing total at a time (per key, on this node): a request that finds one
 * running waits for it, and takes its answer when that count's mark is not older than the mark the request
 * read first (a count that began before a write the request saw is not its answer; it counts again).
 */

/** A total and the mark it was counted under (undefined: counted where no mark holds, never kept). */
export interface MarkedTotal {
  total: number;
  mark?: number;
}

export class KeptTotals {
  private readonly kept = new Map<string, { total: number; mark: number }>();
  private readonly running = new Map<string, Promise<MarkedTotal>>();

  /** `size`: how many totals are kept; the least recently used goes first. */
  constructor(private readonly size: number) {}

  /**
   * The total of `key`: kept if the store's mark (`mark()`) still reads what it was counted under,
   * otherwise counted (`count()`, answering the total with the mark read in the same statement).
   */
  async total(key: string, mark: () => Promise<number>, count: () => Promise<MarkedTotal>): Promise<number> {
    const now = await mark();
    const hit = this.kept.get(key);
    if (hit && hit.mark === now) {
      this.kept.delete(key);
      this.kept.set(key, hit);
      return hit.total;
    }
    const joined = this.running.get(key);
    if (joined) {
      const theirs = await joined.catch(() => undefined);
      if (theirs?.mark !== undefined && theirs.mark >= now) return theirs.total;
    }
    const mine = count();
    this.running.set(key, mine);
    try {
      const counted = await mine;
      if (counted.mark !== undefined && counted.mark >= now) this.keep(key, counted.total, counted.mark);
      return counted.total;
    } finally {
      if (this.running.get(key) === mine) this.running.delete(key);
    }
  }

  /** How many totals are kept (for tests and the health of a node). */
  get keptCount(): number {
    return this.kept.size;
  }

  private keep(key: string, total: number, mark: number): void {
    const held = this.kept.get(key);
    if (held && held.mark > mark) return;
    this.kept.delete(key);
    this.kept.set(key, { total, mark });
    while (this.kept.size > this.size) this.kept.delete(this.kept.keys().next().value as string);
  }
}

/** A query's key: its JSON, with each regular expression written as its source and flags (JSON writes one as `{}`). */
export function queryKey(query: unknown): string {
  return JSON.stringify(query, (_k, v: unknown) => (v instanceof RegExp ? { $regex: v.source, $flags: v.flags } : v));
}
