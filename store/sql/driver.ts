/**
 * One small interface over the two SQL engines: better-sqlite3 (the embedded default, one database file
 * under DATA_DIR in WAL mode, or in memory) and node-postgres (DATABASE_URL). Statements are written with
 * `?` placeholders and the dialect's own functions come from store/sql/compile.ts.
 *
 * Transactions are the store's guarantee: on PostgreSQL each runs on a pooled connection of its own; on
 * SQLite a transaction takes the database's write lock (BEGIN IMMEDIATE), which holds across every
 * process sharing the file. Inside one process the SQLite connection is shared, so its writes wait for
 * one another (a connection can hold one transaction at a time); that queue orders use of the
 * connection, the database's lock is what keeps processes apart.
 */
import { ScopedStorage } from "../scoped-storage";
import { randomBytes } from "crypto";
import Database from "better-sqlite3";
import { Pool, PoolClient } from "pg";
import { foldText } from "../../lib/text/fold";
import { lockTurns } from "../lock-turns";
import { StoreUnavailable, UniqueViolation } from "../errors";
import { UPKEEP_EVERY_MS, vacuumWhereNeeded } from "./upkeep";
import { timedAsync, timedSync } from "./statement-times";
import { analyzedWithoutSamples } from "./sqlite-statistics";
import { noteFailure, outsideShared, runShared, sharedScopeOf, StepUndone, type SharedScope } from "./shared-transaction";
import type { Param, SqlRunner } from "./runner";

export { StoreUnavailable, UniqueViolation } from "../errors";

export type { Dialect, Param, SqlRunner } from "./runner";

/** A runner inside a synchronous unit (SQLite): statements answer at once. */
export interface SyncRunner {
  all<T = Record<string, unknown>>(sql: string, params?: Param[]): T[];
  run(sql: string, params?: Param[]): number;
}

export interface TransactionOptions {
  /**
   * No deadline on its statements (PostgreSQL; SQLite has none): a schema migration may rewrite a large
   * table or build an index over it, which outlasts the deadlines that keep a request from hanging.
   */
  unbounded?: boolean;
}

export interface LockOptions {
  /** No deadline on the wait for the lock (PostgreSQL): a node starting behind another's long migration waits for it. */
  unbounded?: boolean;
  /** Told once when the lock is held elsewhere and the wait begins (PostgreSQL), so a long wait is not silent. */
  onWait?: () => void;
}

export interface SqlDriver extends SqlRunner {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Runs `fn` holding the store-wide lock `key` (migrations, scheduled jobs, the writes of services through
   * mixins/store.mixin.ts `exclusive`): one holder across all nodes. The holders of this process take
   * turns in the order they asked; work holding `key` that asks for it again runs at once (store/lock-turns.ts).
   */
  withLock<T>(key: number, fn: () => Promise<T>, opts?: LockOptions): Promise<T>;
  close(): Promise<void>;
  /**
   * SQLite only: runs `fn` as one atomic unit of the next group commit (under a savepoint, so a unit that
   * throws is undone alone while the statements committed with it stand). `fn` is synchronous.
   */
  unit?<T>(fn: (tx: SyncRunner) => T): Promise<T>;
  /**
   * PostgreSQL only: runs `fn` in one transaction shared by every statement of this store it makes, the
   * actions it calls on this node included (store/sql/shared-transaction.ts); inside it, `transaction`
   * is a savepoint. Throws, rolled back, when `fn` throws or a statement failed outside any savepoint.
   */
  shared?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * PostgreSQL: where lookups by key go (statements whose plan cannot depend on their parameters: a record
   * or its stored answer read by its id): a pool of their own whose connections keep one plan per
   * statement, where the driver's own plan every execution for its parameters (PLANNED). Inside a shared
   * transaction they run on its connection. Absent: the driver runs them (SQLite, or no such pool).
   */
  lookups?: SqlRunner;
  /**
   * SQLite only: a read that answers undefined, without running, while the shared connection holds an
   * open transaction (whose writes a read there would see before they are committed, or undone).
   */
  readCommitted?<T = Record<string, unknown>>(sql: string, params?: Param[]): Promise<T[] | undefined>;
  /**
   * SQLite only: statements run at the end of every write transaction, before its commit and outside
   * every unit, when the first column of `when`'s first row is true (the full-text queue's drain,
   * store/sql/full-text-queue.ts; set by the migrations). When one fails, the transaction is rolled back
   * and each of its writers told.
   */
  beforeCommit?: { when: string; run: readonly string[] };
}

// ---------------------------------------------------------------------------------------------- SQLite

/** How long a SQLite lock row holds without renewal: the lock of a process that died frees itself then. */
export const FILE_LOCK_LEASE_MS = 15_000;
/** How long a holder waits for a SQLite lock before giving up (unless the wait is unbounded), as PostgreSQL's lock waits do. */
const FILE_LOCK_WAIT_MS = 30_000;

/**
 * The store-wide locks of a SQLite file shared by several processes: a lock is a row of `store_locks`
 * naming its holder and when its lease ends. Taking it is one statement that inserts the row, or takes it
 * over when its lease has ended; the holder renews the lease while its work runs and deletes the row after.
 * A waiter tries again every few milliseconds. The file's write lock makes each of these statements atomic.
 */
function fileLocks(run: (statement: { sql: string; params: Param[] }) => Promise<number>) {
  const me = randomBytes(12).toString("hex");
  let made: Promise<unknown> | undefined;
  const table = () => (made ??= run({ sql: "CREATE TABLE IF NOT EXISTS store_locks (key INTEGER PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL)", params: [] }));
  const take = (key: number) => {
    const now = Date.now();
    return run({
      sql: "INSERT INTO store_locks (key, holder, until) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, until = excluded.until WHERE store_locks.until < ?",
      params: [key, me, now + FILE_LOCK_LEASE_MS, now]
    });
  };
  return {
    async hold<T>(key: number, fn: () => Promise<T>, o: LockOptions = {}): Promise<T> {
      await table();
      const deadline = o.unbounded ? Infinity : Date.now() + FILE_LOCK_WAIT_MS;
      for (let attempt = 0; (await take(key)) !== 1; attempt++) {
        if (attempt === 0) o.onWait?.();
        if (Date.now() >= deadline) throw new StoreUnavailable(`the store's lock ${key} was held elsewhere for ${FILE_LOCK_WAIT_MS} ms`);
        await new Promise(resolve => setTimeout(resolve, Math.min(2 + attempt, 25)));
      }
      const renew = setInterval(() => void run({ sql: "UPDATE store_locks SET until = ? WHERE key = ? AND holder = ?", params: [Date.now() + FILE_LOCK_LEASE_MS, key, me] }).catch(() => undefined), FILE_LOCK_LEASE_MS / 3);
      renew.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renew);
        await run({ sql: "DELETE FROM store_locks WHERE key = ? AND holder = ?", params: [key, me] }).catch(() => undefined);
      }
    }
  };
}

/** A promise chain serialising use of one connection for writes. */
function serial() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn, fn);
    tail = next.catch(() => undefined);
    return next;
  };
}

function sqliteError(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  if (e.code === "SQLITE_CONSTRAINT_UNIQUE" || e.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const m = /UNIQUE constraint failed: (.*)$/.exec(e.message ?? "");
    return new UniqueViolation(m ? m[1] : "primary key", err);
  }
  return err;
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b/i;

/**
 * How many megabytes of the database's pages a connection keeps in memory unless told (SQLITE_CACHE_MB).
 * SQLite's own default is 2 MB. The full-text index's merges, which a create runs as its unit ends, work
 * over more pages than that once a calendar holds some tens of thousands of events, and read them again
 * from the file at every create: at 70 000 events a create's unit read about 10 MB and cost four to seven
 * times what it costs with 64 MB or more (docs/benchmarks.md "The full-text index's merges and the page cache").
 */
const SQLITE_CACHE_MB = 128;

export function openSqlite(filename: string, opts: { cacheMb?: number } = {}): SqlDriver {
  const db = new Database(filename);
  db.pragma("journal_mode = WAL");
  // WAL with NORMAL: a commit is in the log before it returns (survives a killed process), fsynced at checkpoints.
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 10000");
  // Checkpoints (log folded into the file) every ~16 MB of log rather than 4 MB: fewer stalls under writes.
  db.pragma("wal_autocheckpoint = 4000");
  db.pragma("foreign_keys = ON");
  // The temporary b-trees of a statement (a UNION's, a GROUP BY's, a materialised subquery's, the term
  // count triggers' on every event write) and its statement journal in memory, not in temporary files:
  // an event insert with its links costs less CPU (docs/benchmarks.md has the measure).
  db.pragma("temp_store = MEMORY");
  // A negative size is in kibibytes. The cache grows only as pages are read, up to this.
  db.pragma(`cache_size = ${-Math.round((opts.cacheMb ?? SQLITE_CACHE_MB) * 1024)}`);
  db.function("fold", { deterministic: true }, (v: unknown) => (typeof v === "string" ? foldText(v) : null));
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };
  const turns = lockTurns();
  // an in-memory database is one process's own: its turns (store/lock-turns.ts) are the lock
  const locks = filename === ":memory:" ? undefined : fileLocks(statement => driver.run(statement.sql, statement.params));
  const sync: SyncRunner = {
    all<T>(sql: string, params: Param[] = []) {
      try {
        return timedSync(sql, () => prepare(sql).all(...params) as T[]);
      } catch (err) {
        throw sqliteError(err);
      }
    },
    run(sql: string, params: Param[] = []) {
      try {
        return timedSync(sql, () => prepare(sql).run(...params).changes);
      } catch (err) {
        throw sqliteError(err);
      }
    }
  };
  const runner: SqlRunner = {
    dialect: "sqlite",
    all: async <T>(sql: string, params?: Param[]) => sync.all<T>(sql, params),
    run: async (sql, params) => sync.run(sql, params)
  };
  const writes = serial();
  const workBeforeCommit = () => {
    const work = driver.beforeCommit;
    if (!work || !Object.values(sync.all<Record<string, unknown>>(work.when)[0] ?? {})[0]) return;
    for (const statement of work.run) sync.run(statement);
  };

  // Group commit: single write statements arriving together are committed in one transaction (one pass
  // over the log instead of one per statement). Each statement still succeeds or fails on its own (a
  // refused one is rolled back alone, as SQLite does for a constraint); its caller hears of it after the
  // commit, so nothing is answered before it is stored.
  interface Pending { exec(): unknown; resolve(v: unknown): void; reject(e: unknown): void }
  let pending: Pending[] = [];
  const flush = () =>
    writes(async () => {
      const batch = pending;
      pending = [];
      const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      prepare("BEGIN IMMEDIATE").run();
      let lost: unknown;
      for (const w of batch) {
        try {
          results.push({ ok: true, value: w.exec() });
        } catch (err) {
          results.push({ ok: false, error: sqliteError(err) });
          // An error that ended the transaction (not a constraint) took the batch's earlier statements with it.
          if (!db.inTransaction) {
            lost = sqliteError(err);
            break;
          }
        }
      }
      if (lost === undefined) {
        try {
          workBeforeCommit();
          prepare("COMMIT").run();
        } catch (err) {
          if (db.inTransaction) prepare("ROLLBACK").run();
          lost = sqliteError(err);
        }
      }
      batch.forEach((w, i) => {
        const r = results[i];
        if (lost !== undefined) w.reject(r && !r.ok ? r.error : lost);
        else if (r.ok) w.resolve(r.value);
        else w.reject(r.error);
      });
    });
  const queue = <T>(exec: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.push({ exec, resolve: resolve as (v: unknown) => void, reject });
      if (pending.length === 1) setImmediate(() => void flush());
    });
  const write = <T>(rows: boolean, sql: string, params: Param[] = []): Promise<T> =>
    queue(() => {
      const st = prepare(sql);
      return (rows ? st.all(...params) : st.run(...params).changes) as T;
    });
  // A unit runs between savepoint and release; when it throws, only its own statements are undone.
  const unit = <T>(fn: (tx: SyncRunner) => T): Promise<T> =>
    queue(() => {
      prepare("SAVEPOINT unit").run();
      try {
        const out = fn(sync);
        prepare("RELEASE unit").run();
        return out;
      } catch (err) {
        if (db.inTransaction) {
          prepare("ROLLBACK TO unit").run();
          prepare("RELEASE unit").run();
        }
        throw err;
      }
    });

  const driver: SqlDriver = {
    ...runner,
    // A statement outside a transaction never lands inside another caller's transaction on the shared
    // connection: writes wait for an open transaction and are grouped (above); reads run at once.
    run: (sql, params) => write<number>(false, sql, params),
    all: <T>(sql: string, params?: Param[]) => (WRITE.test(sql) ? write<T[]>(true, sql, params) : runner.all<T>(sql, params)),
    unit,
    // the check and the read in one synchronous step: no transaction can begin or end between them
    readCommitted: async <T>(sql: string, params?: Param[]) => (db.inTransaction ? undefined : sync.all<T>(sql, params)),
    transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
      return writes(async () => {
        prepare("BEGIN IMMEDIATE").run();
        try {
          const out = await fn(runner);
          workBeforeCommit();
          prepare("COMMIT").run();
          return out;
        } catch (err) {
          if (db.inTransaction) prepare("ROLLBACK").run();
          throw err;
        }
      });
    },
    // The holders of one lock in this process take turns (store/lock-turns.ts; every service of the
    // process shares the connection); across the processes sharing the file, the lock is a row of
    // `store_locks` (fileLocks).
    withLock: (key, fn, o) => turns.hold(key, fn, locks ? work => locks.hold(key, work, o) : undefined),
    async close() {
      clearInterval(upkeep);
      db.close();
    }
  };
  // The planner's statistics (sqlite_stat1), by which it chooses between a list's indexes — its date range
  // or its link filters (docs/lists.md#event-filters): made when the store opens (refreshStatistics in store/sql/schema.ts, after
  // the migrations), then refreshed hourly for the tables that grew or shrank much since; without their
  // samples either time (store/sql/sqlite-statistics.ts).
  const upkeep = setInterval(() => void analyzedWithoutSamples(driver, "PRAGMA optimize").catch(() => undefined), 3_600_000);
  upkeep.unref();
  return driver;
}

// ------------------------------------------------------------------------------------------ PostgreSQL

/** A lock connection and the locks it holds (PostgreSQL's advisory locks belong to the connection). */
interface LockSession {
  client: PoolClient;
  /** The keys held on it (or being taken). */
  keys: Set<number>;
  /** Uses of the connection by work under its locks still running. */
  inFlight: number;
  /** Told when those uses are over. */
  drained?: () => void;
}

/** What the current work holds: the connection, the keys of the withLock calls it runs inside, while they run. */
interface HeldLocks {
  session: LockSession;
  ancestors: Set<number>;
  open: boolean;
}

/** `?` placeholders as PostgreSQL's `$n` (statements here hold no literal question marks). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const UNAVAILABLE = new Set(["55000", "57014", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004"]);

function pgError(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === "23505") return new UniqueViolation(e.constraint ?? "unique", err);
  // class 53, insufficient resources: the server refused a connection (53300, its max_connections or the
  // database's connection limit reached), ran out of memory or disk; the request may succeed later (503)
  if ((e.code && (UNAVAILABLE.has(e.code) || e.code.startsWith("53"))) || /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Query read timeout|is not queryable/i.test(e.message ?? ""))
    return new StoreUnavailable(`the database cannot be reached: ${e.message}`);
  return err;
}

interface PgQuery { name?: string; text: string; values?: Param[]; query_timeout?: number }
type PgAnswer = { rows: unknown[]; rowCount: number | null };
type PgQueryFn = (query: PgQuery) => Promise<PgAnswer>;

/**
 * A statement as node-postgres sends it: `$n` placeholders, and a name for the data statements, so each
 * connection parses and plans it once and later runs only bind it (node-postgres keeps named statements
 * per connection).
 */
const pgStatements = new Map<string, PgQuery>();
function pgStatement(sql: string): PgQuery {
  let st = pgStatements.get(sql);
  if (!st) {
    const text = numbered(sql);
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    st = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(text) ? { name: `q${(hash >>> 0).toString(36)}_${text.length}`, text } : { text };
    pgStatements.set(sql, st);
  }
  return st;
}

type PgScope = SharedScope<PgQuery, PgAnswer>;

/** `owner`: the driver whose shared transaction (if the current work runs in one) a failed statement marks. */
function pgRunner(q: PgQueryFn, owner?: object): SqlRunner {
  const failed = (err: unknown): unknown => {
    const scope = owner && sharedScopeOf(owner);
    if (scope) noteFailure(scope);
    return pgError(err);
  };
  return {
    dialect: "postgres",
    async all<T>(sql: string, params: Param[] = []) {
      try {
        return (await timedAsync(sql, () => q({ ...pgStatement(sql), values: params }))).rows as T[];
      } catch (err) {
        throw failed(err);
      }
    },
    async run(sql, params = []) {
      try {
        return (await timedAsync(sql, () => q({ ...pgStatement(sql), values: params }))).rowCount ?? 0;
      } catch (err) {
        throw failed(err);
      }
    }
  };
}

/**
 * A savepoint of a shared transaction: `fn` undone alone when it throws or when one of its statements
 * failed. The steps of the work take turns (one connection, one stack of savepoints); a step inside a
 * step nests.
 */
async function sharedStep<T>(scope: PgScope, fn: () => Promise<T>): Promise<T> {
  const state = scope.state;
  let done!: () => void;
  const mine = new Promise<void>(resolve => { done = resolve; });
  const before = scope.inStep ? Promise.resolve() : state.turn;
  if (!scope.inStep) state.turn = before.then(() => mine);
  await before;
  try {
    const name = `step_${++state.made}`;
    await scope.query({ text: `SAVEPOINT ${name}` });
    const mark = { name, failed: false };
    state.steps.push(mark);
    let out: T | undefined;
    let thrown: { err: unknown } | undefined;
    try {
      out = await runShared({ ...scope, inStep: true }, fn);
    } catch (err) {
      thrown = { err };
    }
    state.steps.splice(state.steps.indexOf(mark), 1);
    if (thrown || mark.failed) await scope.query({ text: `ROLLBACK TO SAVEPOINT ${name}` });
    await scope.query({ text: `RELEASE SAVEPOINT ${name}` });
    if (thrown) throw thrown.err;
    // its work answered as if written: the caller learns it was not
    if (mark.failed) throw new StepUndone();
    return out as T;
  } finally {
    done();
  }
}

/**
 * PostgreSQL: every execution of a prepared statement gets a plan made for its parameters; otherwise,
 * after five runs, a generic plan that cannot tell a search term found in every event from one in seven,
 * nor a two-year window from a day's. Searches for rare and for common words answer several times as many
 * requests with it, the default list a quarter more (the measures: docs/benchmarks.md). Lookups by key,
 * whose plan is the same for any parameters, have connections of their own without it (`lookups`).
 */
export const PLANNED = "-c plan_cache_mode=force_custom_plan";

/** What the lookups' connections call themselves to the server (`pg_stat_activity.application_name`). */
export const LOOKUP_CONNECTIONS = "calendar lookups";

/** How long an unbounded transaction's statement may take before the client stops waiting (a day: a lost connection, not a slow migration). */
const UNBOUNDED_QUERY_MS = 86_400_000;

export function openPostgres(url: string, opts: { max?: number; lookupMax?: number; connectTimeoutMs?: number; statementTimeoutMs?: number; lockTimeoutMs?: number; upkeep?: boolean } = {}): SqlDriver {
  // Never a hang: a connection, a statement and a query each have a deadline (an answer then is a 503);
  // each statement planned for its parameters (PLANNED).
  const statementTimeoutMs = opts.statementTimeoutMs ?? 10_000;
  /** A pool for statements (an idle connection dropped by the server is replaced on the next query; never an unhandled error). */
  const statementPool = (config: { max: number; options?: string; application_name?: string }): Pool => {
    const made = new Pool({ connectionString: url, connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000, statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 2000, ...config });
    made.on("error", () => undefined);
    return made;
  };
  const pool = statementPool({ max: opts.max ?? 10, options: PLANNED });
  // the statements of work running in a shared transaction go to its connection (store/sql/shared-transaction.ts)
  const owner = {};
  const runnerOn = (from: Pool) => pgRunner(query => sharedScopeOf<PgQuery, PgAnswer>(owner)?.query(query) ?? from.query(query), owner);
  const runner = runnerOn(pool);
  // Lookups by key on connections planned as PostgreSQL plans by default: a statement's plan is made for its
  // first runs' parameters, then kept once a plan for any parameters costs no more. Made anew at every run
  // (PLANNED), a stored answer's lookup was planned for longer than it ran.
  const lookupPool = (opts.lookupMax ?? 0) > 0 ? statementPool({ max: opts.lookupMax!, application_name: LOOKUP_CONNECTIONS }) : undefined;
  const lookups = lookupPool && runnerOn(lookupPool);
  // the locks' own connections (migrations, jobs): never more than the queries'
  const lockTimeoutMs = opts.lockTimeoutMs ?? 30_000;
  // a connection of it is waited for as long as a lock is
  const locks = new Pool({ connectionString: url, max: Math.min(4, opts.max ?? 10), connectionTimeoutMillis: lockTimeoutMs, statement_timeout: lockTimeoutMs, query_timeout: lockTimeoutMs + 5000 });
  locks.on("error", () => undefined);
  const onClient = async <T>(from: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> => {
    let client: PoolClient;
    try {
      client = await from.connect();
    } catch (err) {
      throw pgError(err);
    }
    // A connection the server ends while it is held between statements (an administrator, a failover) is
    // told on the client itself, which no pool listens to while it is held: its next statement fails instead.
    const ended = () => undefined;
    client.on("error", ended);
    try {
      return await fn(client);
    } finally {
      client.removeListener("error", ended);
      client.release();
    }
  };
  let upkeep: NodeJS.Timeout | undefined;
  /**
   * The lock connection the current work runs under (withLock's `fn` and all it starts), so a lock taken
   * inside that work is taken on the same connection instead of waiting for another of the pool: holders
   * that each needed a second lock (a collection opened on first use under a venue's name lock takes the
   * schema lock) held every connection of the pool and waited for one until the pool's deadline.
   */
  const holding = new ScopedStorage<HeldLocks>();
  /** The lock connection of the current work, or a connection of the lock pool (given back after `fn`). */
  const onLockClient = async <T>(fn: (client: PoolClient, held: HeldLocks) => Promise<T>): Promise<T> => {
    const under = holding.getStore();
    if (under?.open) {
      under.session.inFlight++;
      try {
        return await fn(under.session.client, under);
      } finally {
        if (--under.session.inFlight === 0) under.session.drained?.();
      }
    }
    return onClient(locks, client => fn(client, { session: { client, keys: new Set(), inFlight: 0 }, ancestors: new Set(), open: false }));
  };
  /**
   * Tries `key` on the connection: "own" when taken now (marked held on it before the query, so other work
   * under the same holder does not take it too: advisory locks are per connection), "enclosing" when an
   * enclosing withLock of this work holds it, false when held elsewhere.
   */
  const tryLock = async (client: PoolClient, held: HeldLocks, key: number): Promise<"own" | "enclosing" | false> => {
    if (held.ancestors.has(key)) return "enclosing";
    if (held.session.keys.has(key)) return false;
    held.session.keys.add(key);
    try {
      if (((await client.query("SELECT pg_try_advisory_lock($1) AS got", [key])).rows[0] as { got: boolean }).got) return "own";
    } catch (err) {
      held.session.keys.delete(key);
      throw err;
    }
    held.session.keys.delete(key);
    return false;
  };
  /** Runs `fn` holding `key` on the connection `held` names, then lets the lock go when this call took it (`own`). */
  const underLock = async <T>(client: PoolClient, held: HeldLocks, key: number, own: boolean, fn: () => Promise<T>): Promise<T> => {
    const inner: HeldLocks = { session: held.session, ancestors: new Set([...held.ancestors, key]), open: true };
    try {
      return await holding.run(inner, fn);
    } finally {
      inner.open = false;
      // work started under the lock that still uses the connection finishes before it goes back
      const session = held.session;
      if (session.inFlight > 0 && !held.open) await new Promise<void>(resolve => { session.drained = resolve; });
      if (own) {
        session.keys.delete(key);
        await client.query("SELECT pg_advisory_unlock($1)", [key]).catch(() => undefined);
      }
    }
  };
  /** The lock waited for on one connection (a node starting behind another's long migration). */
  const blockingLock = <T>(key: number, fn: () => Promise<T>, o: LockOptions): Promise<T> => onClient(locks, async client => {
    const held: HeldLocks = { session: { client, keys: new Set(), inFlight: 0 }, ancestors: new Set(), open: false };
    const free = o.onWait ? ((await client.query("SELECT pg_try_advisory_lock($1) AS got", [key])).rows[0] as { got: boolean }).got : false;
    if (!free) {
      o.onWait?.();
      // the session's deadline lifted for the wait alone, and put back before the connection goes back
      await client.query("SET statement_timeout = 0");
      try {
        const wait: PgQuery = { text: "SELECT pg_advisory_lock($1)", values: [key], query_timeout: UNBOUNDED_QUERY_MS };
        await client.query(wait);
      } finally {
        await client.query("RESET statement_timeout");
      }
    }
    held.session.keys.add(key);
    return underLock(client, held, key, true, fn);
  });
  /** The advisory lock `key` across nodes, around `fn` (this process's turn already taken). */
  const advisoryLock = async <T>(key: number, fn: () => Promise<T>, o: LockOptions): Promise<T> => {
    // The lock is held by a connection of a pool of its own, so work under a lock never waits for the
    // connection its own lock holds; a lock taken inside that work uses the same connection (`holding`).
    // A bounded waiter holds none of that pool's connections while it waits: it tries the lock, gives
    // the connection back when another holds it, and tries again after a short pause. The pool's
    // connections are then held by holders alone, so many writers waiting for one lock never leave its
    // holder (or a holder of another lock) without a connection. Inside a holder's work every wait is of
    // this kind (a blocking wait would stop the connection the holder's other work shares).
    const nested = holding.getStore()?.open === true;
    if (o.unbounded && !nested) return blockingLock(key, fn, o);
    const deadline = o.unbounded ? Infinity : Date.now() + lockTimeoutMs;
    let told = false;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      const got = await onLockClient(async (client, held) => {
        const taken = await tryLock(client, held, key);
        if (!taken) return { held: false as const };
        return { held: true as const, value: await underLock(client, held, key, taken === "own", fn) };
      });
      if (got.held) return got.value;
      if (!told) { told = true; o.onWait?.(); }
      if (Date.now() >= deadline) throw new StoreUnavailable(`lock timeout: the store's lock ${key} was held elsewhere for ${lockTimeoutMs} ms`);
      await new Promise(resolve => setTimeout(resolve, pause + Math.random() * pause));
    }
  };
  const turns = lockTurns();
  const driver: SqlDriver = {
    ...runner,
    lookups,
    transaction<T>(fn: (tx: SqlRunner) => Promise<T>, o: TransactionOptions = {}): Promise<T> {
      const scope = sharedScopeOf<PgQuery, PgAnswer>(owner);
      if (scope) return sharedStep(scope, () => fn(runner));
      return onClient(pool, async client => {
        const tx = pgRunner(query => client.query(o.unbounded ? { ...query, query_timeout: UNBOUNDED_QUERY_MS } : query));
        await tx.run("BEGIN");
        try {
          // the server's deadline lifted for this transaction alone (SET LOCAL ends with it)
          if (o.unbounded) await tx.run("SET LOCAL statement_timeout = 0");
          const out = await fn(tx);
          await tx.run("COMMIT");
          return out;
        } catch (err) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw err;
        }
      });
    },
    shared<T>(fn: () => Promise<T>): Promise<T> {
      if (sharedScopeOf(owner)) return fn();
      return onClient(pool, async client => {
        const scope: PgScope = { owner, query: query => client.query(query), state: { after: [], steps: [], failed: false, made: 0, turn: Promise.resolve() }, inStep: false };
        await client.query("BEGIN");
        let out: T;
        try {
          out = await runShared(scope, fn);
          // a statement that failed outside any savepoint left the transaction able only to roll back
          // (PostgreSQL answers such a COMMIT with a rollback, not an error)
          if (scope.state.failed) throw new StoreUnavailable("a statement of the shared transaction failed: nothing of it was written");
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw pgError(err);
        }
        for (const told of scope.state.after) await Promise.resolve().then(told).catch(() => undefined);
        return out;
      });
    },
    withLock<T>(key: number, fn: () => Promise<T>, o: LockOptions = {}): Promise<T> {
      // Work under a lock runs outside a shared transaction (store/sql/shared-transaction.ts): what it wrote
      // is committed before the lock is let go, as the next holder expects.
      if (sharedScopeOf(owner)) return outsideShared(() => this.withLock(key, fn, o));
      // The holders of one lock in this process take turns first (store/lock-turns.ts): one of them at a
      // time asks the database, and a holder asking again for its own lock runs at once.
      return turns.hold(key, fn, work => advisoryLock(key, work, o));
    },
    close: async () => {
      clearInterval(upkeep);
      await Promise.all([pool.end(), locks.end(), lookupPool?.end()]);
    }
  };
  // Where the server's autovacuum is off, the store keeps its tables vacuumed itself (store/sql/upkeep.ts).
  if (opts.upkeep !== false) upkeep = setInterval(() => void vacuumWhereNeeded(driver).catch(() => undefined), UPKEEP_EVERY_MS);
  upkeep?.unref();
  return driver;
}
