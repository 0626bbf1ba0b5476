/**
 * The newest change entry of each record (`key`), kept beside the embedded store: a new entry's
 * `before` is the previous entry's `after`, and looking that up in the store means reading and sorting
 * every earlier entry of the record (a category changes with each of its events). Fed by the store's
 * write observer; an entry removed makes its record unknown here (asked from the store again).
 */
export interface KeyedEntry {
  _id: number;
  key: string;
  after?: unknown;
}

export class LatestByKey {
  private readonly latest = new Map<string, KeyedEntry>();
  private readonly unknown = new Set<string>();

  reset(docs: readonly KeyedEntry[]): void {
    this.latest.clear();
    this.unknown.clear();
    for (const doc of docs) this.saved(doc);
  }

  saved(doc: KeyedEntry): void {
    const current = this.latest.get(doc.key);
    if (!current || doc._id >= current._id) this.latest.set(doc.key, doc);
  }

  removed(doc: KeyedEntry): void {
    if (this.latest.get(doc.key)?._id === doc._id) {
      this.latest.delete(doc.key);
      this.unknown.add(doc.key);
    }
  }

  /** The newest entry of `key`; null when it has none; undefined when only the store knows. */
  get(key: string): KeyedEntry | null | undefined {
    const entry = this.latest.get(key);
    if (entry) return entry;
    return this.unknown.has(key) ? undefined : null;
  }
}
