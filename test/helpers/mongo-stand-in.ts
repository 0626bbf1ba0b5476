/**
 * A stand-in for a MongoDB server as the driver shows it (the part store/mongo/driver.ts names), held in
 * memory and answered by mingo's query and update engine, so the MongoDB store's own code (store/mongo/)
 * runs the store contract, the sites and the whole service where no MongoDB server can run (README
 * "MongoDB"). It is not MongoDB: where mingo evaluates a query or an update differently from a server,
 * these tests do not see it.
 *
 * What it keeps of the server:
 * - documents are copies (never shared with the caller); databases by name, dropped whole;
 * - `_id` and unique indexes refuse a duplicate with the server's error code 11000; a sparse index skips a
 *   document only when it lacks every one of its fields (as a compound sparse index does), a partial index
 *   (`partialFilterExpression`) holds only the documents its filter matches; an index asked again under
 *   its name with other options is refused (code 85), as the server refuses it;
 * - `findOneAndUpdate` may insert (upsert), with the driver 3.x/4.x options of which document to return;
 * - `isMaster` answers `setName` only when made as a replica set member (`mongoStandIn({ replicaSet: false })`);
 * - sessions and multi-document transactions (`withTransaction`), modelled on the server's snapshot
 *   isolation: a transaction reads the committed state of its first operation plus its own writes; its
 *   writes are seen by nobody until it commits, then all at once; a write to a document (or to a unique
 *   index key) that another open transaction wrote, or that was committed after the transaction's
 *   snapshot, fails at once with WriteConflict (code 112, label TransientTransactionError), and
 *   `withTransaction` runs the callback again, as the driver does; a write outside a transaction waits
 *   for the transaction holding its document to end. An error aborts the transaction (nothing of it
 *   stays).
 *
 * What it cannot show: the server's own concurrency (operations here interleave only between awaits, one
 * event loop, no threads, no network, no replication or majority commit), the timing and retries of a
 * real write-conflict storm, read concerns other than this snapshot, the server's query planner and index
 * use (every query scans), and index key rules beyond equality of values (collation, multikey arrays
 * under a unique index).
 */
import { find as mingoFind, Query as MingoQuery, update as mingoUpdate } from "mingo";
import type { FindAndModifyOptions, IndexOptions, MongoClientLike, MongoCol, MongoCursor, MongoDb, MongoSession, OpOptions } from "../../store/mongo/driver";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents of any shape, as the driver's
type Doc = Record<string, any>;
type Query = Record<string, unknown>;

const copy = <T>(value: T): T => structuredClone(value);

function valueAt(doc: Doc, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Doc)[part];
  }
  return v;
}

/** The server's duplicate key error, as the driver reports it. */
function duplicateKey(index: string): Error {
  return Object.assign(new Error(`E11000 duplicate key error index: ${index}`), { code: 11000 });
}

/** The server's write conflict inside a transaction, labelled so that `withTransaction` runs it again. */
function writeConflict(): Error {
  const labels = ["TransientTransactionError"];
  return Object.assign(new Error("WriteConflict error: this operation conflicted with another operation. Please retry your operation or multi-document transaction."), {
    code: 112, codeName: "WriteConflict", errorLabels: labels, hasErrorLabel: (label: string) => labels.includes(label)
  });
}

interface UniqueIndex {
  name: string;
  fields: string[];
  sparse: boolean;
  partial?: MingoQuery;
}

interface IndexDef {
  unique: boolean;
  sparse: boolean;
  partial: string;
}

/** A document's key in a unique index; undefined where the index skips it (sparse: every field missing; partial: not matched). */
function indexKey(index: UniqueIndex, doc: Doc): string | undefined {
  const values = index.fields.map(f => valueAt(doc, f));
  if (index.sparse && values.every(v => v === undefined)) return undefined;
  if (index.partial && !index.partial.test(doc)) return undefined;
  return JSON.stringify(values.map(v => v ?? null));
}

const idKey = (doc: Doc): string => JSON.stringify(doc._id);

/** One change of a write: the document as it was (null: inserted) and as it is (null: removed). */
interface Change {
  before: Doc | null;
  after: Doc | null;
}

class Transaction {
  readonly held = new Set<string>();
  /** Each collection's documents as this transaction sees them, once it wrote there. */
  readonly working = new Map<StandInCollection, Doc[]>();
  readonly log: Array<{ col: StandInCollection; change: Change }> = [];
  active = true;

  constructor(readonly snapshotAt: number, readonly snapshot: Map<StandInCollection, Doc[]>) {}

  view(col: StandInCollection): Doc[] {
    return this.working.get(col) ?? this.snapshot.get(col) ?? [];
  }
}

class StandInSession implements MongoSession {
  txn?: Transaction;

  constructor(private readonly server: StandInServer) {}

  /** The open transaction, its snapshot taken at its first operation. */
  current(): Transaction | undefined {
    return this.txn?.active ? this.txn : undefined;
  }

  async withTransaction(fn: () => Promise<unknown>): Promise<unknown> {
    const deadline = Date.now() + 120_000; // the driver's own limit on retries
    for (;;) {
      this.txn = this.server.begin();
      try {
        await fn();
      } catch (err) {
        this.server.end(this.txn, false);
        const transient = (err as { errorLabels?: string[] }).errorLabels?.includes("TransientTransactionError");
        if (!transient || Date.now() > deadline) throw err;
        this.server.retries++;
        // run again once some transaction has ended (or after a moment: a conflict with a commit needs no wait)
        await Promise.race([this.server.released(), new Promise(resolve => setTimeout(resolve, 2))]);
        continue;
      }
      if (!this.txn.active) throw writeConflict();
      this.server.end(this.txn, true);
      return undefined;
    }
  }

  async endSession(): Promise<void> {
    if (this.txn?.active) this.server.end(this.txn, false);
  }
}

class StandInServer implements MongoClientLike {
  private clock = 0;
  /** Which open transaction holds a resource (a document or a unique key it wrote). */
  private readonly holds = new Map<string, Transaction>();
  /** When a resource was last written by a commit (or by a write outside a transaction). */
  private readonly committedAt = new Map<string, number>();
  private waiting: Array<() => void> = [];
  readonly databases = new Map<string, StandInDb>();
  /** Transactions run again after a write conflict (what a test may assert happened). */
  retries = 0;

  constructor(readonly replicaSet: boolean) {}

  db(name: string): StandInDb {
    let db = this.databases.get(name);
    if (!db) this.databases.set(name, (db = new StandInDb(this, name)));
    return db;
  }

  startSession(): StandInSession {
    return new StandInSession(this);
  }

  begin(): Transaction {
    const snapshot = new Map<StandInCollection, Doc[]>();
    for (const db of this.databases.values()) for (const col of db.collections.values()) snapshot.set(col, col.docs);
    return new Transaction(this.clock, snapshot);
  }

  /** Claims `resources` for a write inside `txn`, or fails it with a write conflict (and aborts it). */
  claim(txn: Transaction, resources: string[]): void {
    for (const r of resources) {
      const holder = this.holds.get(r);
      if ((holder && holder !== txn) || (this.committedAt.get(r) ?? -1) > txn.snapshotAt) {
        this.end(txn, false);
        throw writeConflict();
      }
    }
    for (const r of resources) {
      this.holds.set(r, txn);
      txn.held.add(r);
    }
  }

  /** Whether a write outside a transaction must wait for one (it holds one of `resources`). */
  busy(resources: string[]): boolean {
    return resources.some(r => this.holds.has(r));
  }

  /** Resolves once some transaction has ended. */
  released(): Promise<void> {
    return new Promise(resolve => this.waiting.push(resolve));
  }

  /** Marks resources written outside a transaction. */
  written(resources: string[]): void {
    this.clock++;
    for (const r of resources) this.committedAt.set(r, this.clock);
  }

  end(txn: Transaction, commit: boolean): void {
    if (!txn.active) return;
    txn.active = false;
    if (commit) {
      this.clock++;
      for (const { col, change } of txn.log) col.apply(change);
      for (const r of txn.held) this.committedAt.set(r, this.clock);
    }
    for (const r of txn.held) if (this.holds.get(r) === txn) this.holds.delete(r);
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }
}

class StandInDb implements MongoDb {
  readonly collections = new Map<string, StandInCollection>();

  constructor(readonly server: StandInServer, readonly databaseName: string) {}

  collection(name: string): StandInCollection {
    let col = this.collections.get(name);
    if (!col) this.collections.set(name, (col = new StandInCollection(this.server, `${this.databaseName}.${name}`)));
    return col;
  }

  async command(cmd: Record<string, unknown>): Promise<Doc> {
    if (!("isMaster" in cmd) && !("hello" in cmd)) throw new Error(`the stand-in answers isMaster/hello only, not ${Object.keys(cmd)[0]}`);
    return { ismaster: true, isWritablePrimary: true, maxWireVersion: 9, ...(this.server.replicaSet ? { setName: "rs0", hosts: ["stand-in:27017"] } : {}) };
  }

  async dropDatabase(): Promise<boolean> {
    for (const col of this.collections.values()) col.dropped();
    this.collections.clear();
    this.server.databases.delete(this.databaseName);
    return true;
  }
}

let nextObjectId = 1;

class StandInCollection implements MongoCol {
  /** The committed documents: replaced, never changed in place, so a transaction's snapshot is the array it saw. */
  docs: Doc[] = [];
  private uniques: UniqueIndex[] = [{ name: "_id_", fields: ["_id"], sparse: false }];
  private readonly defs = new Map<string, IndexDef>();

  constructor(private readonly server: StandInServer, private readonly ns: string) {}

  private txnOf(opts?: OpOptions): Transaction | undefined {
    const session = opts?.session as StandInSession | undefined;
    if (!session) return undefined;
    const txn = session.current();
    if (!txn) throw new Error("the stand-in takes a session only inside withTransaction");
    return txn;
  }

  private view(opts?: OpOptions): Doc[] {
    return this.txnOf(opts)?.view(this) ?? this.docs;
  }

  private matching(docs: Doc[], query: Query): Doc[] {
    const q = new MingoQuery(query);
    return docs.filter(d => q.test(d));
  }

  /** The resources a change writes: its document and every unique key it adds or removes. */
  private resources(change: Change): string[] {
    const out = new Set<string>();
    for (const doc of [change.before, change.after]) {
      if (!doc) continue;
      out.add(`${this.ns}/_id/${idKey(doc)}`);
      for (const index of this.uniques) {
        const key = indexKey(index, doc);
        if (key !== undefined) out.add(`${this.ns}/${index.name}/${key}`);
      }
    }
    return [...out];
  }

  /** Refuses the changes where another document (not the one changed) would hold a key of a unique index. */
  private checkUnique(docs: Doc[], changes: Change[]): void {
    const replaced = new Set(changes.map(c => c.before).filter(Boolean));
    const others = docs.filter(d => !replaced.has(d));
    const added: Doc[] = [];
    for (const { after } of changes) {
      if (!after) continue;
      for (const index of this.uniques) {
        const key = indexKey(index, after);
        if (key !== undefined && [...others, ...added].some(o => indexKey(index, o) === key)) throw duplicateKey(index.name);
      }
      added.push(after);
    }
  }

  /** Applies a committed change to the documents. */
  apply(change: Change): void {
    this.docs = StandInCollection.applied(this.docs, change);
  }

  dropped(): void {
    this.docs = [];
  }

  private static applied(docs: Doc[], { before, after }: Change): Doc[] {
    const at = before ? docs.findIndex(d => idKey(d) === idKey(before)) : -1;
    if (at < 0) return after ? [...docs, after] : docs;
    const out = [...docs];
    if (after) out[at] = after;
    else out.splice(at, 1);
    return out;
  }

  /**
   * Runs a write: `plan` reads the documents it sees and says what changes. Inside a transaction the
   * changes claim their resources and stay the transaction's; outside one, the write waits for any
   * transaction holding them, then is stored at once.
   */
  private async write<T>(opts: OpOptions | undefined, plan: (docs: Doc[]) => { changes: Change[]; result: T }): Promise<T> {
    const txn = this.txnOf(opts);
    if (txn) {
      const docs = txn.view(this);
      const { changes, result } = plan(docs);
      this.server.claim(txn, changes.flatMap(c => this.resources(c)));
      this.checkUnique(docs, changes);
      let working = docs;
      for (const change of changes) {
        working = StandInCollection.applied(working, change);
        txn.log.push({ col: this, change });
      }
      txn.working.set(this, working);
      return result;
    }
    for (;;) {
      const { changes, result } = plan(this.docs);
      const resources = changes.flatMap(c => this.resources(c));
      if (this.server.busy(resources)) {
        await this.server.released();
        continue;
      }
      this.checkUnique(this.docs, changes);
      for (const change of changes) this.apply(change);
      this.server.written(resources);
      return result;
    }
  }

  find(query: Query, opts?: OpOptions): MongoCursor {
    const steps: { projection?: Record<string, 0 | 1>; sort?: Record<string, 1 | -1>; skip?: number; limit?: number } = {};
    const cursor: MongoCursor = {
      project: projection => ((steps.projection = projection), cursor),
      sort: sort => ((steps.sort = sort), cursor),
      skip: n => ((steps.skip = n), cursor),
      limit: n => ((steps.limit = n), cursor),
      toArray: async () => {
        let c = mingoFind(this.view(opts), query, steps.projection);
        if (steps.sort) c = c.sort(steps.sort);
        if (steps.skip) c = c.skip(steps.skip);
        if (steps.limit) c = c.limit(steps.limit);
        return copy(c.all() as Doc[]);
      }
    };
    return cursor;
  }

  async findOne(query: Query, opts?: OpOptions): Promise<Doc | null> {
    const [doc] = this.matching(this.view(opts), query);
    return doc ? copy(doc) : null;
  }

  async countDocuments(query: Query, opts?: OpOptions): Promise<number> {
    return this.matching(this.view(opts), query).length;
  }

  async insertOne(doc: Doc, opts?: OpOptions): Promise<unknown> {
    const stored = copy(doc);
    stored._id ??= `oid${nextObjectId++}`;
    return this.write(opts, () => ({ changes: [{ before: null, after: stored }], result: { insertedId: stored._id } }));
  }

  async insertMany(docs: Doc[], opts?: OpOptions): Promise<unknown> {
    const stored = docs.map(doc => ({ ...copy(doc), _id: doc._id ?? `oid${nextObjectId++}` }));
    return this.write(opts, () => ({ changes: stored.map(after => ({ before: null, after })), result: { insertedCount: docs.length } }));
  }

  /** The document `opts` asks for: before the change (driver 3.x's default) or after it. */
  private static chosen(opts: FindAndModifyOptions, before: Doc | null, after: Doc): { value: Doc | null } {
    const wantsBefore = opts.returnDocument ? opts.returnDocument === "before" : opts.returnOriginal !== false;
    return { value: wantsBefore ? (before ? copy(before) : null) : copy(after) };
  }

  async findOneAndUpdate(query: Query, update: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null> {
    return this.write(opts, docs => {
      const [doc] = this.matching(docs, query);
      if (!doc) {
        if (!opts.upsert) return { changes: [], result: { value: null } };
        // an upsert starts from the query's plain equalities (the counters: `{_id}`)
        const fresh: Doc = Object.fromEntries(Object.entries(query).filter(([k, v]) => !k.startsWith("$") && (v === null || typeof v !== "object")));
        mingoUpdate(fresh, update);
        fresh._id ??= `oid${nextObjectId++}`;
        return { changes: [{ before: null, after: fresh }], result: StandInCollection.chosen(opts, null, fresh) };
      }
      const after = copy(doc);
      mingoUpdate(after, update);
      after._id = doc._id;
      return { changes: [{ before: doc, after }], result: StandInCollection.chosen(opts, doc, after) };
    });
  }

  async findOneAndReplace(query: Query, replacement: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null> {
    return this.write(opts, docs => {
      const [doc] = this.matching(docs, query);
      if (!doc) return { changes: [], result: { value: null } };
      const after = { ...copy(replacement), _id: doc._id };
      return { changes: [{ before: doc, after }], result: StandInCollection.chosen(opts, doc, after) };
    });
  }

  async updateOne(query: Query, update: Doc, opts?: OpOptions): Promise<{ modifiedCount?: number; matchedCount?: number }> {
    const res = await this.findOneAndUpdate(query, update, { ...opts, returnDocument: "before" });
    return { matchedCount: res?.value ? 1 : 0, modifiedCount: res?.value ? 1 : 0 };
  }

  async updateMany(query: Query, update: Doc, opts?: OpOptions): Promise<{ modifiedCount?: number; matchedCount?: number }> {
    return this.write(opts, docs => {
      const matched = this.matching(docs, query);
      const changes: Change[] = [];
      for (const doc of matched) {
        const after = copy(doc);
        mingoUpdate(after, update);
        if (JSON.stringify(after) !== JSON.stringify(doc)) changes.push({ before: doc, after });
      }
      return { changes, result: { modifiedCount: changes.length, matchedCount: matched.length } };
    });
  }

  async deleteMany(query: Query, opts?: OpOptions): Promise<{ deletedCount?: number }> {
    return this.write(opts, docs => {
      const gone = this.matching(docs, query);
      return { changes: gone.map(before => ({ before, after: null })), result: { deletedCount: gone.length } };
    });
  }

  async createIndex(spec: Record<string, 1>, opts: IndexOptions = {}): Promise<unknown> {
    const fields = Object.keys(spec);
    const name = opts.name ?? fields.map(f => `${f}_1`).join("_");
    const def: IndexDef = { unique: !!opts.unique, sparse: !!opts.sparse, partial: JSON.stringify(opts.partialFilterExpression ?? null) };
    const known = this.defs.get(name);
    if (known) {
      // as the server: the same index again is nothing; another under the same name is refused
      if (JSON.stringify(known) === JSON.stringify(def)) return name;
      throw Object.assign(new Error(`Index with name: ${name} already exists with different options`), { code: 85, codeName: "IndexOptionsConflict" });
    }
    this.defs.set(name, def);
    if (!opts.unique) return name;
    const index: UniqueIndex = { name, fields, sparse: !!opts.sparse, partial: opts.partialFilterExpression ? new MingoQuery(opts.partialFilterExpression) : undefined };
    // as the server: an index the documents already break is not made
    const keys = new Set<string>();
    for (const doc of this.docs) {
      const key = indexKey(index, doc);
      if (key === undefined) continue;
      if (keys.has(key)) {
        this.defs.delete(name);
        throw duplicateKey(name);
      }
      keys.add(key);
    }
    this.uniques = [...this.uniques, index];
    return name;
  }
}

/** An empty stand-in server (a replica set member unless told otherwise); its databases are made on first use. */
export function mongoStandIn(opts: { replicaSet?: boolean } = {}): MongoClientLike & { db(name: string): MongoDb & { collection(name: string): MongoCol }; databases: Map<string, unknown>; retries: number } {
  return new StandInServer(opts.replicaSet ?? true);
}
