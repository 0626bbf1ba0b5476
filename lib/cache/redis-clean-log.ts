/**
 * The log of cleans of a shared Redis cacher, kept in Redis itself (lib/cache/clean-mark.ts,
 * docs/caching.md#a-read-that-crosses-a-write): a count, and the patterns of the last 256 cleans. Every
 * writer records its patterns before it cleans; a reader reads the count after a miss, and after its keep
 * asks whether a clean since then covered the key. One round trip each, by a script, so the count and the
 * patterns are read together.
 *
 * A process holds one connection per Redis URL and prefix, shared by its services (`acquireCleanLog`), and
 * waits on it at most a second: while Redis is away a mark cannot be read (nothing is kept) and a check
 * answers "cleaned" (what was kept is dropped).
 */
import Redis from "ioredis";
import { keyMatches } from "./key-pattern";
import { REMEMBERED_CLEANS as REMEMBERED, type CleanLog } from "./clean-mark";

const RECORD_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -${REMEMBERED}, -1)
return n`;

/**
 * The count, then: nothing (no clean since the mark), '*' (too many to tell, or the count went back: the
 * log was lost), or the patterns since.
 */
const SINCE_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local since = n - tonumber(ARGV[1])
if since == 0 then return {n} end
if since < 0 or since > ${REMEMBERED} then return {n, '*'} end
local out = redis.call('LRANGE', KEYS[2], -since, -1)
table.insert(out, 1, n)
return out`;

type ScriptedRedis = Redis & {
  calendarCleanRecord(count: string, log: string, patterns: string): Promise<number>;
  calendarCleanSince(count: string, log: string, mark: string): Promise<Array<number | string>>;
};

/** Never a reason to fail a `**`-only pattern match: any other wildcard is taken as matching. */
const matchAnything = (): boolean => true;

export class RedisCleanLog implements CleanLog {
  readonly shared = true;
  private readonly redis: ScriptedRedis;
  private readonly countKey: string;
  private readonly logKey: string;

  constructor(url: string, prefix: string) {
    // commands wait for the connection (at start) at most a second
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 1000 }) as ScriptedRedis;
    this.redis.on("error", () => undefined); // a failed command answers the safe way (above)
    this.redis.defineCommand("calendarCleanRecord", { numberOfKeys: 2, lua: RECORD_SCRIPT });
    this.redis.defineCommand("calendarCleanSince", { numberOfKeys: 2, lua: SINCE_SCRIPT });
    this.countKey = `${prefix}cleans`;
    this.logKey = `${prefix}cleans:log`;
  }

  /**
   * Records a clean's patterns; before the clean itself, so that a reader's check after it sees them. A
   * failure is the write's clean's to report (Redis is away for both): the write goes on as it did before
   * the log existed.
   */
  async record(patterns: readonly string[]): Promise<void> {
    try {
      await this.redis.calendarCleanRecord(this.countKey, this.logKey, JSON.stringify(patterns));
    } catch {
      // the clean that follows meets the same Redis
    }
  }

  async mark(): Promise<number | undefined> {
    try {
      return Number((await this.redis.get(this.countKey)) ?? 0);
    } catch {
      return undefined;
    }
  }

  async cleanedSince(mark: number, key: string): Promise<boolean> {
    let answer: Array<number | string>;
    try {
      answer = await this.redis.calendarCleanSince(this.countKey, this.logKey, String(mark));
    } catch {
      return true;
    }
    for (const entry of answer.slice(1)) {
      if (entry === "*") return true;
      const patterns = JSON.parse(String(entry)) as string[];
      if (patterns.some(pattern => keyMatches(key, pattern, matchAnything))) return true;
    }
    return false;
  }

  close(): void {
    this.redis.disconnect();
  }
}

const open = new Map<string, { log: RedisCleanLog; users: number }>();

/** This process's log for that Redis and prefix, and how to let it go (the last user closes it). */
export function acquireCleanLog(url: string, prefix: string): { log: RedisCleanLog; release(): void } {
  const id = `${url}\u0000${prefix}`;
  let held = open.get(id);
  if (!held) open.set(id, (held = { log: new RedisCleanLog(url, prefix), users: 0 }));
  held.users++;
  let released = false;
  const entry = held;
  return {
    log: entry.log,
    release() {
      if (released) return;
      released = true;
      if (--entry.users === 0) {
        open.delete(id);
        entry.log.close();
      }
    }
  };
}
