/**
 * The part of the MongoDB driver (3.x, as bundled by moleculer-db-adapter-mongo, which ships no types)
 * the MongoDB store uses: a client's databases and sessions, a database's collections and commands.
 */
import type { Doc, Query } from "../collection";

export interface MongoCursor {
  project(projection: Record<string, 0 | 1>): MongoCursor;
  sort(sort: Record<string, 1 | -1>): MongoCursor;
  skip(n: number): MongoCursor;
  limit(n: number): MongoCursor;
  toArray(): Promise<Doc[]>;
}

/** A session (`client.startSession()`): its `withTransaction` runs the callback again on a transient error. */
export interface MongoSession {
  withTransaction(fn: () => Promise<unknown>, opts?: Record<string, unknown>): Promise<unknown>;
  endSession(): unknown;
}

/** Every operation's options: inside a transaction, its session. */
export interface OpOptions {
  session?: MongoSession;
}

export interface FindAndModifyOptions extends OpOptions {
  upsert?: boolean;
  /** Driver 3.x's name… */
  returnOriginal?: boolean;
  /** …and 4.x's. */
  returnDocument?: "before" | "after";
}

export interface IndexOptions extends OpOptions {
  unique?: boolean;
  sparse?: boolean;
  /** Only the documents matching it are indexed (MongoDB 3.2+; 4.4 takes `$exists: true`, equalities, ranges, `$and`). */
  partialFilterExpression?: Query;
  name?: string;
}

export interface WriteResult {
  modifiedCount?: number;
  matchedCount?: number;
  result?: { nModified?: number; n?: number };
}

export interface MongoCol {
  find(query: Query, opts?: OpOptions): MongoCursor;
  findOne(query: Query, opts?: OpOptions): Promise<Doc | null>;
  countDocuments(query: Query, opts?: OpOptions): Promise<number>;
  insertOne(doc: Doc, opts?: OpOptions): Promise<unknown>;
  insertMany(docs: Doc[], opts?: OpOptions): Promise<unknown>;
  findOneAndUpdate(query: Query, update: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null>;
  findOneAndReplace(query: Query, doc: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null>;
  updateOne(query: Query, update: Doc, opts?: OpOptions): Promise<WriteResult>;
  updateMany(query: Query, update: Doc, opts?: OpOptions): Promise<WriteResult>;
  deleteMany(query: Query, opts?: OpOptions): Promise<{ deletedCount?: number }>;
  createIndex(spec: Record<string, 1>, opts?: IndexOptions): Promise<unknown>;
}

/** A database of the driver: its collections by name. */
export interface MongoDb {
  readonly databaseName: string;
  collection(name: string): MongoCol;
  /** A database command (`{ isMaster: 1 }`). */
  command(cmd: Record<string, unknown>): Promise<Doc>;
  dropDatabase(): Promise<unknown>;
}

/** The connected client: databases by name, sessions. */
export interface MongoClientLike {
  db(name: string): MongoDb;
  startSession(): MongoSession;
}
