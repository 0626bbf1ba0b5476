/**
 * MongoDB's update operators as the services write them — $set, $unset, $inc, $push, $pull, $addToSet
 * on (dotted) field paths — applied to a copy of a document. The SQL stores apply them inside the
 * transaction that holds the record's row, so two writers never lose each other's fields.
 */
import type { Doc } from "./store-query";

function parentOf(doc: Doc, path: string, create: boolean): { obj: Doc; key: string } | undefined {
  const parts = path.split(".");
  let obj: Doc = doc;
  for (const part of parts.slice(0, -1)) {
    if (obj[part] === undefined || obj[part] === null || typeof obj[part] !== "object") {
      if (!create) return undefined;
      obj[part] = {};
    }
    obj = obj[part];
  }
  return { obj, key: parts[parts.length - 1] };
}

const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

function pullMatches(cond: unknown, el: unknown): boolean {
  if (cond && typeof cond === "object" && !Array.isArray(cond) && "$in" in (cond as Doc)) return ((cond as Doc).$in as unknown[]).some(v => same(v, el));
  return same(cond, el);
}

/** The document after `update`; `doc` itself is left as it was. */
export function applyUpdate(doc: Doc, update: Doc): Doc {
  const out: Doc = structuredClone(doc);
  const hasOps = Object.keys(update).some(k => k.startsWith("$"));
  if (!hasOps) return { ...structuredClone(update), _id: doc._id };
  for (const [op, fields] of Object.entries(update)) {
    for (const [path, value] of Object.entries(fields as Doc)) {
      if (path === "_id") continue;
      switch (op) {
        case "$set": {
          const at = parentOf(out, path, true)!;
          at.obj[at.key] = structuredClone(value);
          break;
        }
        case "$unset": {
          const at = parentOf(out, path, false);
          if (at) delete at.obj[at.key];
          break;
        }
        case "$inc": {
          const at = parentOf(out, path, true)!;
          at.obj[at.key] = (typeof at.obj[at.key] === "number" ? at.obj[at.key] : 0) + (value as number);
          break;
        }
        case "$push":
        case "$addToSet": {
          const at = parentOf(out, path, true)!;
          const list: unknown[] = Array.isArray(at.obj[at.key]) ? at.obj[at.key] : [];
          const items = value && typeof value === "object" && "$each" in (value as Doc) ? ((value as Doc).$each as unknown[]) : [value];
          for (const item of items) if (op === "$push" || !list.some(el => same(el, item))) list.push(structuredClone(item));
          at.obj[at.key] = list;
          break;
        }
        case "$pull": {
          const at = parentOf(out, path, false);
          if (at && Array.isArray(at.obj[at.key])) at.obj[at.key] = (at.obj[at.key] as unknown[]).filter(el => !pullMatches(value, el));
          break;
        }
        default:
          throw new Error(`update operator ${op} is not supported`);
      }
    }
  }
  return out;
}
