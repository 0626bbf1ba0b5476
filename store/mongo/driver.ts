/**
 * The part of the MongoDB driver (3.x, as bundled by moleculer-db-adapter-mongo, which ships no types)
 * the MongoDB store uses.
 */
import type { Doc, Query } from "../collection";

export interface MongoCursor {
  project(projection: Record<string, 0 | 1>): MongoCursor;
  sort(sort: Record<string, 1 | -1>): MongoCursor;
  skip(n: number): MongoCursor;
  limit(n: number): MongoCursor;
  toArray(): Promise<Doc[]>;
}

export interface FindAndModifyOptions {
  upsert?: boolean;
  /** Driver 3.x's name… */
  returnOriginal?: boolean;
  /** …and 4.x's. */
  returnDocument?: "before" | "after";
}

export interface MongoCol {
  find(query: Query): MongoCursor;
  findOne(query: Query): Promise<Doc | null>;
  countDocuments(query: Query): Promise<number>;
  insertOne(doc: Doc): Promise<unknown>;
  insertMany(docs: Doc[]): Promise<unknown>;
  findOneAndUpdate(query: Query, update: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null>;
  findOneAndReplace(query: Query, doc: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null>;
  updateMany(query: Query, update: Doc): Promise<{ modifiedCount?: number; matchedCount?: number; result?: { nModified?: number; n?: number } }>;
  deleteMany(query: Query): Promise<{ deletedCount?: number }>;
  createIndex(spec: Record<string, 1>, opts: { unique: boolean; sparse: boolean }): Promise<unknown>;
}
