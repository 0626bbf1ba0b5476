/**
 * The shared cacher (`CACHER=redis://…`): Moleculer's cacher interface (its public base class, the
 * framework's extension point for cachers) over one Redis that every node reads, and its own log of
 * cleans (cache/clean-mark.ts, docs/caching.md#a-read-that-crosses-a-write).
 *
 * Keys and values: a kept value is its JSON under `<prefix><key>` (`MOL-<namespace>-…`) with the cache's
 * time to live. Beside them, under `<logPrefix>` (`CL-<namespace>:`, so that cleaning every kept answer
 * keeps them):
 * - `cleans` (a count) and `cleans:log` (the patterns of the last 256 cleans): the log of cleans;
 * - `group:<group>` and `groups`: kept keys by their first three segments (cache/key-pattern.ts), and
 *   the groups, each a sorted set scored by expiry, so a clean reads the groups its patterns reach, not
 *   every key; and `group:<group> <id>`: list bodies by the events they show (cache/staleness.ts
 *   `bodyIds`), so an event's write reads the bodies showing it, not every body.
 *
 * The guarantee (C16: read your writes, with many gateways, C45: caches and many gateways): a writer's clean is one script that records its patterns
 * and deletes what they match; a reader's keep is one script that reads the log and sets the value (and
 * files its key) only if no clean since the reader's mark covered the key. Redis runs a script whole, so
 * a keep is either before a clean (which then deletes it) or after it (and sees its patterns, and keeps
 * nothing). No reader is served a value that a clean answered before it was kept.
 *
 * While Redis cannot be reached: a read misses, a keep keeps nothing, a mark cannot be read (nothing is
 * kept), and a clean fails (the write's clean reports it, as every write's must).
 *
 * One Redis server (or a primary with replicas), not a Redis Cluster: the scripts read and write keys
 * they do not declare (the groups a clean reaches). Nodes of a version before this cacher must not share
 * a namespace with it: their keys are in no group and their cleans are not in this log.
 */
import Redis from "ioredis";
import { Cachers, type ServiceBroker } from "moleculer";
import { groupOf } from "./key-pattern";
import { ANY_SHOWN } from "./staleness";
import { REMEMBERED_CLEANS, type CleanLog } from "./clean-mark";

export interface RedisCacherOptions {
  /** The Redis URL (`redis://` or `rediss://`). */
  url: string;
  /** Before every kept key, then `-` (Moleculer's convention: `MOL-<namespace>`). */
  prefix: string;
  /** Before the log's and the groups' keys. */
  logPrefix: string;
  /** Seconds an entry lives. */
  ttl: number;
}

/**
 * Patterns in the scripts: cache/key-pattern.ts's rule for patterns whose only wildcard is `**`,
 * split once (`compile`) and matched per key (`matches`); any other wildcard matches every key (a keep
 * is refused, a clean deletes more: the safe ways).
 */
const LUA_MATCHES = `
local function compile(pattern)
  local pieces = {}
  local from = 1
  while true do
    local at = string.find(pattern, '**', from, true)
    if not at then table.insert(pieces, string.sub(pattern, from)) break end
    table.insert(pieces, string.sub(pattern, from, at - 1))
    from = at + 2
  end
  for _, piece in ipairs(pieces) do
    if string.find(piece, '[*?]') then return { any = true } end
  end
  return pieces
end
local function matches(key, pieces)
  if pieces.any then return true end
  if #pieces == 1 then return key == pieces[1] end
  local first, last = pieces[1], pieces[#pieces]
  if #key < #first + #last then return false end
  if string.sub(key, 1, #first) ~= first then return false end
  if #last > 0 and string.sub(key, -#last) ~= last then return false end
  local at = #first + 1
  local stop = #key - #last
  for i = 2, #pieces - 1 do
    local s, e = string.find(key, pieces[i], at, true)
    if not s or e > stop then return false end
    at = e + 1
  end
  return true
end`;

/**
 * Sets the value, and files its key under its group and the group among the groups: sorted sets scored
 * by when the entry expires, from which the expired are dropped as they pass (each set lives as long as
 * its newest entry). Redis's clock decides, so every node agrees.
 */
const LUA_FILE = `
local function body_ids(name, key)
  if not string.match(name, '^[A-Z]+:%d+:B$') then return nil end
  local tail = string.match(key, ':([^:]*)$') or ''
  if #tail >= 2 and string.sub(tail, 1, 1) == ',' and string.sub(tail, -1) == ','
      and not string.find(string.sub(key, 1, #key - #tail), ',', 1, true) then
    local ids = {}
    for id in string.gmatch(tail, '[^,]+') do table.insert(ids, id) end
    return ids
  end
  return { '${ANY_SHOWN}' }
end
local function file_under(set, key, expires, now, ttl)
  redis.call('ZADD', set, expires, key)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', '(' .. now)
  redis.call('EXPIRE', set, ttl)
end
local function file(groups, group, value, key, json, ttl, name)
  local now = tonumber(redis.call('TIME')[1])
  local expires = now + tonumber(ttl)
  redis.call('SET', value, json, 'EX', ttl)
  file_under(group, key, expires, now, ttl)
  file_under(groups, name, expires, now, ttl)
  for _, id in ipairs(body_ids(name, key) or {}) do file_under(group .. ' ' .. id, key, expires, now, ttl) end
end`;

/** KEYS: count, log, groups, group, value. ARGV: mark, key, JSON, ttl, group. 1 when kept. */
const KEEP_IF_CLEAN = `${LUA_MATCHES}${LUA_FILE}
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local since = n - tonumber(ARGV[1])
if since < 0 or since > ${REMEMBERED_CLEANS} then return 0 end
if since > 0 then
  local entries = redis.call('LRANGE', KEYS[2], -since, -1)
  if #entries < since then return 0 end
  for _, entry in ipairs(entries) do
    for _, pattern in ipairs(cjson.decode(entry)) do
      if matches(ARGV[2], compile(pattern)) then return 0 end
    end
  end
end
file(KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
return 1`;

/** KEYS: groups, group, value. ARGV: key, JSON, ttl, group. A keep without a log's check. */
const KEEP = `${LUA_FILE}
file(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return 1`;

/**
 * A clean, whole: records the patterns in the log, then deletes every kept key they match in the groups
 * they reach (a pattern whose fixed beginning holds three `:` names its one group; a shorter one reaches
 * the groups that begin with it). KEYS: count, log, groups. ARGV: the patterns as JSON, the kept keys'
 * prefix, the groups' prefix. The number of keys deleted.
 */
const CLEAN = `${LUA_MATCHES}
local patterns = cjson.decode(ARGV[1])
redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -${REMEMBERED_CLEANS}, -1)
local function group_of(text)
  local at = 0
  for _ = 1, 3 do
    at = string.find(text, ':', at + 1, true)
    if not at then return text end
  end
  return string.sub(text, 1, at - 1)
end
-- the sets to read, each with the group set its keys are filed in and the patterns that reach it
local reached = {}
local known = nil
local function reach(read, group, pieces)
  reached[read] = reached[read] or { group = group, patterns = {} }
  table.insert(reached[read].patterns, pieces)
end
for _, pattern in ipairs(patterns) do
  local pieces = compile(pattern)
  local body_group, id = string.match(pattern, '^([A-Z]+:%d+:B):%*%*,(%d+),%*%*$')
  local wild = string.find(pattern, '[*?]')
  local fixed = wild and string.sub(pattern, 1, wild - 1) or pattern
  local exact = group_of(fixed)
  if body_group then
    local set = ARGV[3] .. body_group
    reach(set .. ' ' .. id, set, pieces)
    reach(set .. ' ${ANY_SHOWN}', set, pieces)
  elseif #exact < #fixed then
    reach(ARGV[3] .. exact, ARGV[3] .. exact, pieces)
  else
    known = known or redis.call('ZRANGE', KEYS[3], 0, -1)
    for _, g in ipairs(known) do
      if string.sub(g, 1, #fixed) == fixed or string.sub(fixed, 1, #g) == g then reach(ARGV[3] .. g, ARGV[3] .. g, pieces) end
    end
  end
end
local deleted = 0
for read, r in pairs(reached) do
  for _, key in ipairs(redis.call('ZRANGE', read, 0, -1)) do
    for _, pieces in ipairs(r.patterns) do
      if matches(key, pieces) then
        deleted = deleted + redis.call('DEL', ARGV[2] .. key)
        redis.call('ZREM', r.group, key)
        if read ~= r.group then redis.call('ZREM', read, key) end
        break
      end
    end
  end
end
return deleted`;

type ScriptedRedis = Redis & {
  calendarKeepIfClean(count: string, log: string, groups: string, group: string, value: string, mark: string, key: string, json: string, ttl: number, groupName: string): Promise<number>;
  calendarKeep(groups: string, group: string, value: string, key: string, json: string, ttl: number, groupName: string): Promise<number>;
  calendarClean(count: string, log: string, groups: string, patterns: string, prefix: string, groupPrefix: string): Promise<number>;
};

export class RedisCacher extends Cachers.Base<Pick<Cachers.Base.CacherOptions, "ttl" | "missingResponse" | "prefix">> implements CleanLog {
  private readonly settings: RedisCacherOptions;
  private redis?: ScriptedRedis;

  constructor(opts: RedisCacherOptions) {
    super({ ttl: opts.ttl, prefix: opts.prefix });
    this.settings = opts;
  }

  override init(broker: ServiceBroker): void {
    super.init(broker);
    // a command waits for the connection at most a second: a read or keep while Redis is away gives up
    const redis = new Redis(this.settings.url, { maxRetriesPerRequest: 1, commandTimeout: 1000 }) as ScriptedRedis;
    redis.on("ready", () => { this.connected = true; });
    redis.on("error", (err: Error) => {
      this.connected = false;
      this.logger?.debug("Redis cacher:", err.message);
    });
    redis.defineCommand("calendarKeepIfClean", { numberOfKeys: 5, lua: KEEP_IF_CLEAN });
    redis.defineCommand("calendarKeep", { numberOfKeys: 3, lua: KEEP });
    redis.defineCommand("calendarClean", { numberOfKeys: 3, lua: CLEAN });
    this.redis = redis;
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }

  private get client(): ScriptedRedis {
    if (!this.redis) throw new Error("RedisCacher used before the broker initialised it");
    return this.redis;
  }

  private keyOf(key: string): string {
    return `${this.prefix}${key}`;
  }

  private logKey(name: string): string {
    return `${this.settings.logPrefix}${name}`;
  }

  private ttlOf(ttl: number | undefined): number {
    return Math.max(1, Math.round(ttl ?? this.settings.ttl));
  }

  async get(key: string): Promise<Record<string, unknown> | null> {
    let text: string | null;
    try {
      text = await this.client.get(this.keyOf(key));
    } catch {
      text = null; // Redis away: a miss, computed from the store
    }
    if (text === null) return this.opts.missingResponse;
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return this.opts.missingResponse;
    }
  }

  async getWithTTL(key: string): Promise<Record<string, unknown> | null> {
    const [data, ttl] = await Promise.all([this.get(key), this.client.ttl(this.keyOf(key)).catch(() => -2)]);
    return { data, ttl: ttl >= 0 ? ttl : null };
  }

  async set(key: string, data: unknown, ttl?: number): Promise<void> {
    const group = groupOf(key);
    await this.client.calendarKeep(this.logKey("groups"), this.logKey(`group:${group}`), this.keyOf(key), key, JSON.stringify(data), this.ttlOf(ttl), group);
  }

  async del(key: string | string[]): Promise<void> {
    const keys = (Array.isArray(key) ? key : [key]).map(k => this.keyOf(k));
    if (keys.length) await this.client.del(...keys);
  }

  // ---- the log of cleans (cache/clean-mark.ts)

  async mark(): Promise<number | undefined> {
    try {
      return Number((await this.client.get(this.logKey("cleans"))) ?? 0);
    } catch {
      return undefined;
    }
  }

  async keepIfClean(mark: number, key: string, value: unknown): Promise<boolean> {
    const group = groupOf(key);
    try {
      const kept = await this.client.calendarKeepIfClean(this.logKey("cleans"), this.logKey("cleans:log"), this.logKey("groups"),
        this.logKey(`group:${group}`), this.keyOf(key), String(mark), key, JSON.stringify(value), this.ttlOf(undefined), group);
      return kept === 1;
    } catch {
      return false;
    }
  }

  /** Records the patterns in the log and deletes every kept key they match, in one script. */
  async clean(match: string | string[] = "**"): Promise<void> {
    const patterns = Array.isArray(match) ? match : [match];
    await this.client.calendarClean(this.logKey("cleans"), this.logKey("cleans:log"), this.logKey("groups"), JSON.stringify(patterns), this.prefix!, this.logKey("group:"));
  }

  override async getCacheKeys(): Promise<Array<{ key: string }>> {
    const groups = await this.client.zrange(this.logKey("groups"), 0, -1);
    const keys = (await Promise.all(groups.map(g => this.client.zrange(this.logKey(`group:${g}`), 0, -1)))).flat();
    return keys.map(key => ({ key }));
  }

  /** The cache lock is not used by this service (docs/caching.md). */
  async tryLock(): Promise<() => Promise<void>> {
    throw new Error("RedisCacher has no locks");
  }

  async lock(): Promise<() => Promise<void>> {
    throw new Error("RedisCacher has no locks");
  }
}
