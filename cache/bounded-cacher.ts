/**
 * The in-process cacher: Moleculer's cacher interface (its public base class, the framework's extension
 * point for cachers) over a map bounded by size (docs/caching.md). Kept answers are many and large (a
 * single event's page is ~2 KB, kept once per URL, caller and language), so an unbounded map grows with
 * the number of records read; this one drops the least recently read entries past `maxBytes` (the JSON
 * length of what is kept) or `maxEntries`. An entry's time to live counts from when it was kept and is
 * never extended by reads: an answer that depends on the clock is never served past its `ttl`.
 *
 * A clean looks only at the entries its pattern can match: keys are grouped by their first three
 * segments (`RESP:1:E12`, cache/staleness.ts), and a pattern whose fixed beginning names a group
 * (`RESP:1:B:**,12,**`) reads that group alone; a shorter one (`RESP:1:E**`) the groups it begins. List
 * bodies are also indexed by the ids of the events they show (cache/staleness.ts `bodyIds`), so the
 * pattern of the bodies showing one event reads those bodies alone, not every body.
 *
 * It is its own log of cleans (cache/clean-mark.ts): it counts them and remembers the patterns of the
 * last ones, so that a value computed from the store while a write cleaned its key is not kept afterwards.
 */
import { Cachers, Utils, type ServiceBroker } from "moleculer";
import { groupOf, groupsReached, keyMatches } from "./key-pattern";
import { REMEMBERED_CLEANS, type CleanLog } from "./clean-mark";
import { ANY_SHOWN, bodyIds, bodyPatternId } from "./staleness";

export interface BoundedCacherOptions {
  /** Seconds an entry lives (from when it was kept). */
  ttl: number;
  /** Most kept bytes (JSON length of the values), then the least recently read go. */
  maxBytes: number;
  /** Most kept entries. */
  maxEntries: number;
}

interface Entry {
  data: unknown;
  expires: number;
  size: number;
}

/** Files `key` under `name` in `index`. */
function fileIn(index: Map<string, Set<string>>, name: string, key: string): void {
  const members = index.get(name);
  if (members) members.add(key);
  else index.set(name, new Set([key]));
}

/** Takes `key` out of `name` in `index`, and the name out when it is left empty. */
function unfileFrom(index: Map<string, Set<string>>, name: string, key: string): void {
  const members = index.get(name);
  if (members?.delete(key) && members.size === 0) index.delete(name);
}

/** The names a list body is filed under in `bodiesShowing`: one per event it shows (none for other keys). */
function showingNames(key: string): string[] {
  const body = bodyIds(key);
  return body ? body.ids.map(id => `${body.group} ${id}`) : [];
}

/** How large a kept value is, as the JSON it would be in a shared cacher. */
function sizeOf(data: unknown): number {
  try {
    return (JSON.stringify(data) ?? "").length + 64;
  } catch {
    return 1024;
  }
}

export class BoundedMemoryCacher extends Cachers.Base<Pick<Cachers.Base.CacherOptions, "ttl" | "missingResponse">> implements CleanLog {
  private readonly entries = new Map<string, Entry>();
  private readonly groups = new Map<string, Set<string>>();
  /** List bodies by `<group> <id>` of an event they show. */
  private readonly bodiesShowing = new Map<string, Set<string>>();
  private bytes = 0;
  private cleaned = 0;
  /** The patterns of the latest cleans, oldest first (the last `REMEMBERED_CLEANS`). */
  private readonly recentCleans: string[][] = [];
  private readonly limits: BoundedCacherOptions;
  private sweeper?: NodeJS.Timeout;

  constructor(opts: BoundedCacherOptions) {
    super({ ttl: opts.ttl });
    this.limits = opts;
  }

  override init(broker: ServiceBroker): void {
    super.init(broker);
    this.connected = true;
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.entries.clear();
    this.groups.clear();
    this.bodiesShowing.clear();
    this.bytes = 0;
  }

  /** How many cleans this cacher has run (cache/clean-mark.ts). */
  mark(): number {
    return this.cleaned;
  }

  /**
   * Whether a clean run since `mark` (a `mark()` value) may have covered `key`: one of its patterns
   * matches it, or the mark is older than the cleans remembered.
   */
  cleanedSince(mark: number, key: string): boolean {
    const since = this.cleaned - mark;
    if (since <= 0) return false;
    if (since > this.recentCleans.length) return true;
    for (let i = this.recentCleans.length - since; i < this.recentCleans.length; i++) {
      if (this.recentCleans[i].some(pattern => keyMatches(key, pattern, Utils.match))) return true;
    }
    return false;
  }

  /** Checked and kept in one turn of the event loop: nothing runs between them in this process. */
  async keepIfClean(mark: number, key: string, value: unknown): Promise<boolean> {
    if (this.cleanedSince(mark, key)) return false;
    await this.set(key, value);
    return true;
  }

  /** Kept bytes and entries now (tests, metrics). */
  usage(): { bytes: number; entries: number } {
    return { bytes: this.bytes, entries: this.entries.size };
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.remove(key, entry);
      return undefined;
    }
    return entry;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.size;
    unfileFrom(this.groups, groupOf(key), key);
    for (const name of showingNames(key)) unfileFrom(this.bodiesShowing, name, key);
  }

  /** Removes those of `keys` that are kept and that `pattern` matches. */
  private removeMatching(keys: Iterable<string>, pattern: string): void {
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry && keyMatches(key, pattern, Utils.match)) this.remove(key, entry);
    }
  }

  async get(key: string): Promise<Record<string, unknown> | null> {
    const entry = this.live(key);
    // what the cacher's middleware takes for "not kept" (its option, undefined by default)
    if (!entry) return this.opts.missingResponse;
    // read: now the most recent (a Map iterates in insertion order, so the oldest read comes first)
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.data as Record<string, unknown>;
  }

  async getWithTTL(key: string): Promise<Record<string, unknown> | null> {
    const entry = this.live(key);
    if (!entry) return { data: this.opts.missingResponse, ttl: null };
    return { data: entry.data, ttl: (entry.expires - Date.now()) / 1000 };
  }

  async set(key: string, data: unknown, ttl?: number): Promise<void> {
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    const entry: Entry = { data, expires: Date.now() + (ttl ?? this.limits.ttl) * 1000, size: sizeOf(data) };
    if (entry.size > this.limits.maxBytes) return;
    this.entries.set(key, entry);
    this.bytes += entry.size;
    fileIn(this.groups, groupOf(key), key);
    for (const name of showingNames(key)) fileIn(this.bodiesShowing, name, key);
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.limits.maxBytes && this.entries.size <= this.limits.maxEntries) break;
      this.remove(k, e);
    }
  }

  async del(key: string | string[]): Promise<void> {
    for (const k of Array.isArray(key) ? key : [key]) {
      const entry = this.entries.get(k);
      if (entry) this.remove(k, entry);
    }
  }

  async clean(match: string | string[] = "**"): Promise<void> {
    const patterns = Array.isArray(match) ? match : [match];
    this.cleaned++;
    this.recentCleans.push(patterns);
    if (this.recentCleans.length > REMEMBERED_CLEANS) this.recentCleans.shift();
    for (const pattern of patterns) {
      const shown = bodyPatternId(pattern);
      const sets = shown
        ? [this.bodiesShowing.get(`${shown.group} ${shown.id}`), this.bodiesShowing.get(`${shown.group} ${ANY_SHOWN}`)]
        : groupsReached(pattern, this.groups.keys()).map(group => this.groups.get(group));
      for (const keys of sets) if (keys) this.removeMatching(keys, pattern);
    }
  }

  override async getCacheKeys(): Promise<Array<{ key: string; expiresAt: number }>> {
    return [...this.entries].map(([key, e]) => ({ key, expiresAt: e.expires }));
  }

  /** The cache lock is not used by this service (docs/caching.md). */
  async tryLock(): Promise<() => Promise<void>> {
    throw new Error("BoundedMemoryCacher has no locks");
  }

  async lock(): Promise<() => Promise<void>> {
    throw new Error("BoundedMemoryCacher has no locks");
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.remove(key, entry);
  }
}
