/**
 * Order among concurrent writes of one process (the embedded store runs each post type in one process,
 * C23 (topology by store)):
 * - the post mixin runs the writes of one record one after another through lib/async/queue.ts's `KeyedQueue`,
 *   so each reads the record as the previous write left it (no lost field, term counts computed from the real previous state);
 * - `SlugHolds` hands out unique slugs to writes that are still on their way to the store, so two parallel
 *   creates (or renames) never both take the same free slug.
 */
import { RESERVED_SLUGS } from "../text/slug";

export interface SlugHold {
  slug: string;
  /** Gives the slug back once its write reached the store (or failed). */
  release(): void;
}

export class SlugHolds {
  private readonly held = new Map<string, symbol>();
  /**
   * Highest suffix handed out per base while holds of that base are out (a burst of parallel writes of one
   * title): past ten, the search starts there (one lookup, not one per suffix). Forgotten once the last of
   * them is released, so a write on its own gets the answer the store's slugs give, the same on every
   * node and in one process (a hint kept for good made one process skip a freed suffix another node gave).
   */
  private readonly hints = new Map<string, number>();
  /** Holds handed out per base and not yet released. */
  private readonly out = new Map<string, number>();

  /**
   * `base` made unique (`base`, `base-2`, …, reserved words avoided) among the slugs `taken` says are stored
   * and the slugs other writes hold right now; the answer is held until released. A candidate is held
   * while the store is asked, so parallel writes of one base move on to the next one at once.
   *
   * Past ten, a run of taken suffixes is crossed in growing steps (11, 13, 17, 25 …) and the first free
   * one behind the step that found a free one is then searched by halves: a few lookups where other
   * nodes took hundreds of one base's suffixes (500 parallel creates of one title through three nodes
   * otherwise asked the store once per suffix, and their slowest answers neared the request timeout).
   * Where the taken suffixes run without gaps, the answer is the first free one, as one by one.
   */
  async hold(base: string, taken: (slug: string) => Promise<boolean>): Promise<SlugHold> {
    if (base === "") return { slug: "", release: () => undefined };
    if (!RESERVED_SLUGS.includes(base)) {
      const bare = await this.tryHold(base, taken);
      if (bare) return bare;
    }
    const hint = this.hints.get(base) ?? 0;
    let lastTaken = hint >= 10 ? hint : 1;
    let step = 1;
    let found: { n: number; hold: SlugHold } | undefined;
    while (!found) {
      const n = lastTaken + step;
      const hold = await this.tryHold(`${base}-${n}`, taken);
      if (hold) found = { n, hold };
      else {
        lastTaken = n;
        if (n >= 10) step *= 2;
      }
    }
    while (found.n - lastTaken > 1) {
      const middle = Math.floor((lastTaken + found.n) / 2);
      const hold = await this.tryHold(`${base}-${middle}`, taken);
      if (hold) {
        found.hold.release();
        found = { n: middle, hold };
      } else lastTaken = middle;
    }
    this.hints.set(base, Math.max(this.hints.get(base) ?? 0, found.n));
    return this.counted(base, found.hold);
  }

  /** `hold`, counted among the base's holds out until it is released (once). */
  private counted(base: string, hold: SlugHold): SlugHold {
    this.out.set(base, (this.out.get(base) ?? 0) + 1);
    let released = false;
    return {
      slug: hold.slug,
      release: () => {
        if (released) return;
        released = true;
        hold.release();
        const left = (this.out.get(base) ?? 1) - 1;
        if (left > 0) this.out.set(base, left);
        else {
          this.out.delete(base);
          this.hints.delete(base);
        }
      }
    };
  }

  /** `slug` held, unless another write holds it or the store has it (undefined). */
  private async tryHold(slug: string, taken: (slug: string) => Promise<boolean>): Promise<SlugHold | undefined> {
    if (this.held.has(slug)) return undefined;
    const token = Symbol(slug);
    this.held.set(slug, token);
    const release = () => {
      if (this.held.get(slug) === token) this.held.delete(slug);
    };
    try {
      if (!(await taken(slug))) return { slug, release };
    } catch (err) {
      release();
      throw err;
    }
    release();
    return undefined;
  }

  get size(): number {
    return this.held.size;
  }
}
