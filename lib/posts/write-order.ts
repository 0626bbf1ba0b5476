/**
 * Order among concurrent writes of one process (the embedded store runs each post type in one process,
 * C23):
 * - the post mixin runs the writes of one record one after another through lib/queue.ts's `KeyedQueue`,
 *   so each reads the record as the previous write left it (no lost field, term counts computed from the real previous state);
 * - `SlugHolds` hands out unique slugs to writes that are still on their way to the store, so two parallel
 *   creates (or renames) never both take the same free slug.
 */
import { RESERVED_SLUGS } from "../slug";

export interface SlugHold {
  slug: string;
  /** Gives the slug back once its write reached the store (or failed). */
  release(): void;
}

export class SlugHolds {
  private readonly held = new Map<string, symbol>();
  /** Highest suffix handed out per base: past ten, the search starts there (one lookup, not one per suffix). */
  private readonly hints = new Map<string, number>();

  /**
   * `base` made unique (`base`, `base-2`, …, reserved words avoided) among the slugs `taken` says are stored
   * and the slugs other writes hold right now; the answer is held until released. A candidate is held
   * while the store is asked, so parallel writes of one base move on to the next one at once.
   */
  async hold(base: string, taken: (slug: string) => Promise<boolean>): Promise<SlugHold> {
    if (base === "") return { slug: "", release: () => undefined };
    if (!RESERVED_SLUGS.includes(base)) {
      const bare = await this.tryHold(base, taken);
      if (bare) return bare;
    }
    const hint = this.hints.get(base) ?? 0;
    for (let n = hint >= 10 ? hint + 1 : 2; ; n++) {
      const hold = await this.tryHold(`${base}-${n}`, taken);
      if (hold) {
        this.hints.set(base, Math.max(this.hints.get(base) ?? 0, n));
        return hold;
      }
    }
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
