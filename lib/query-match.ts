/**
 * A store query (the subset lib/../mixins/store/collection.ts lists: equality, $in, $nin, $ne,
 * $gt/$gte/$lt/$lte, $exists, RegExp values and $regex, $or, $and, document-level $not) compiled once
 * into a predicate over stored documents, with NeDB's meaning: a condition on an array field holds when
 * it holds for some element ($in, $nin, $ne included), an absent field matches only `$exists: false`,
 * `$ne`, `$nin` and `$not`, and (as in NeDB, unlike MongoDB) an empty array matches no operator, not
 * even `$exists`. For reading documents the embedded store already holds in memory (the
 * events listing index) without NeDB's generic matcher, which re-reads every field path per document.
 * An operator outside the subset throws: the caller asks the store instead.
 */
type Doc = Record<string, unknown>;
export type Predicate = (doc: Doc) => boolean;

export class UnsupportedQuery extends Error {}

type Value = unknown;

/** An object of fields or operators (not an array, a RegExp or a Date). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof RegExp) && !(v instanceof Date);
}

// NeDB compares only values of one type with $lt…: numbers with numbers, strings with strings.
function comparable(a: Value, b: Value): boolean {
  return (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
}

function equals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every(k => equals((a as Doc)[k], (b as Doc)[k]));
}

/** A test of one value (an array element, or a whole non-array value). */
type ValueTest = (v: Value) => boolean;

function operatorTest(op: string, arg: Value): ValueTest {
  switch (op) {
    case "$gt": return v => comparable(v, arg) && (v as number) > (arg as number);
    case "$gte": return v => comparable(v, arg) && (v as number) >= (arg as number);
    case "$lt": return v => comparable(v, arg) && (v as number) < (arg as number);
    case "$lte": return v => comparable(v, arg) && (v as number) <= (arg as number);
    case "$ne": return v => !equals(v, arg);
    case "$in": {
      if (!Array.isArray(arg)) throw new UnsupportedQuery("$in needs an array");
      const set = new Set(arg.filter(x => x === null || typeof x !== "object"));
      const objects = arg.filter(x => x !== null && typeof x === "object");
      return v => set.has(v) || objects.some(o => equals(v, o));
    }
    case "$nin": {
      const inTest = operatorTest("$in", arg);
      return v => !inTest(v);
    }
    case "$regex": {
      if (!(arg instanceof RegExp)) throw new UnsupportedQuery("$regex needs a RegExp");
      return v => typeof v === "string" && arg.test(v);
    }
    default: throw new UnsupportedQuery(`operator ${op}`);
  }
}

/** The condition on one field: `cond` is a literal, a RegExp, or an object of operators. */
function fieldTest(field: string, cond: Value): Predicate {
  if (field.includes(".")) throw new UnsupportedQuery("dotted field");
  if (cond instanceof RegExp) return someValue(field, v => typeof v === "string" && cond.test(v), false);
  if (isPlainObject(cond) && Object.keys(cond).some(k => k.startsWith("$"))) {
    const ops = Object.entries(cond);
    const exists = ops.find(([op]) => op === "$exists");
    const tests = ops.filter(([op]) => op !== "$exists").map(([op, arg]) => operatorTest(op, arg));
    // an element (or a present value) exists: `$exists` holds for it exactly when it asks for existence
    if (exists && !exists[1]) tests.push(() => false);
    const all: ValueTest = v => tests.every(t => t(v));
    // on an absent field only `$exists: false`, `$ne` and `$nin` hold
    const absent = ops.every(([op, arg]) => (op === "$exists" ? !arg : op === "$ne" || op === "$nin"));
    return someValue(field, all, absent);
  }
  // a literal: equality, or (array field, scalar literal) some element equal
  return doc => {
    const v = doc[field];
    if (Array.isArray(v) && !Array.isArray(cond)) return v.some(el => equals(el, cond));
    return equals(v, cond);
  };
}

/**
 * The value test applied to the field: to some element of an array (all operators to the same
 * element; an empty array matches nothing), else to the value itself.
 */
function someValue(field: string, test: ValueTest, matchesAbsent: boolean): Predicate {
  return doc => {
    const v = doc[field];
    if (v === undefined) return matchesAbsent;
    if (Array.isArray(v)) return v.some(test);
    return test(v);
  };
}

export function compileQuery(query: Record<string, unknown>): Predicate {
  const tests: Predicate[] = [];
  for (const [key, cond] of Object.entries(query)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(cond)) throw new UnsupportedQuery(`${key} needs an array`);
      const parts = cond.map(c => compileQuery(c as Record<string, unknown>));
      tests.push(key === "$and" ? doc => parts.every(p => p(doc)) : doc => parts.some(p => p(doc)));
    } else if (key === "$not") {
      const inner = compileQuery(cond as Record<string, unknown>);
      tests.push(doc => !inner(doc));
    } else if (key.startsWith("$")) {
      throw new UnsupportedQuery(`operator ${key}`);
    } else {
      tests.push(fieldTest(key, cond));
    }
  }
  if (tests.length === 1) return tests[0];
  return doc => tests.every(t => t(doc));
}

/** NeDB's order of two values of a sort field: absent first, then by value (one type per field here). */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** A comparator for a sort specification (`{ date: -1, _id: -1 }`), as a store sorts. */
export function sortOrder(sort: Record<string, 1 | -1>): (a: Doc, b: Doc) => number {
  const keys = Object.entries(sort);
  return (a, b) => {
    for (const [field, direction] of keys) {
      const c = compareValues(a[field], b[field]);
      if (c !== 0) return c * direction;
    }
    return 0;
  };
}
