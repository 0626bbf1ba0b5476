/**
 * Store queries of the venue and organizer lists (docs/lists.md#venue-and-organizer-filters), in the operator subset both stores
 * understand: status visibility (with C13 (a due `future` post counts as published)), the search of `find_like`, and the id sets that the event
 * filters (`event`, `has_events`, `only_with_upcoming`) produce.
 */
import type { Query } from "../documents/store-query";
export type { Query } from "../documents/store-query";

/** docs/lists.md#venue-and-organizer-filters: fragments split at every character that is not a-z, A-Z, 0-9 or `-`. */
export function searchFragments(search: string): string[] {
  const fragments = search.split(/[^a-zA-Z0-9-]+/).filter(Boolean);
  // Nothing left (e.g. only punctuation or non-Latin letters): the trimmed text is the one fragment.
  return fragments.length ? fragments : [search.trim()].filter(Boolean);
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** One field containing every fragment (case-insensitive substring). */
function fieldHasAll(field: string, fragments: string[]): Query {
  const conds = fragments.map(f => ({ [field]: { $regex: new RegExp(escapeRegex(f), "i") } }));
  return conds.length === 1 ? conds[0] : { $and: conds };
}

/**
 * A record matches when ONE of `fields` contains every fragment. D34: for callers who may not see a
 * password-protected record's protected fields, only its unprotected fields (the name) can match;
 * `unrestricted` lifts that (trusted internal callers).
 */
export function searchQuery(search: string, fields: readonly string[], protectedFields: readonly string[], unrestricted: boolean): Query {
  const fragments = searchFragments(search);
  const open = fields.filter(f => unrestricted || !protectedFields.includes(f)).map(f => fieldHasAll(f, fragments));
  const guarded = unrestricted ? [] : fields.filter(f => protectedFields.includes(f)).map(f => fieldHasAll(f, fragments));
  const alternatives = guarded.length ? [...open, { post_password: { $exists: false }, $or: guarded }] : open;
  return { $or: alternatives };
}

/**
 * Records whose status is one of `statuses`, with C13 (a due `future` post counts as published): a `future` record whose `date_utc` has passed
 * counts as `publish` (listed with `publish`, not with `future`).
 */
export function statusCondition(statuses: readonly string[], nowDb: string): Query {
  const wantsPublish = statuses.includes("publish");
  const wantsFuture = statuses.includes("future");
  if (wantsPublish === wantsFuture) return { status: { $in: [...statuses] } };
  if (wantsPublish) return { $or: [{ status: { $in: [...statuses] } }, { status: "future", date_utc: { $lte: nowDb } }] };
  return { $or: [{ status: { $in: statuses.filter(s => s !== "future") } }, { status: "future", date_utc: { $gt: nowDb } }] };
}

/** The `_id` condition of id sets that must all contain a record (`include`) and one it must avoid. */
export function idCondition(include: ReadonlyArray<readonly number[]>, exclude?: readonly number[]): Query | undefined {
  if (!include.length && !exclude) return undefined;
  if (!include.length) return { _id: { $nin: [...exclude!] } };
  let ids = [...new Set(include[0])];
  for (const set of include.slice(1)) {
    const keep = new Set(set);
    ids = ids.filter(id => keep.has(id));
  }
  if (exclude) {
    const drop = new Set(exclude);
    ids = ids.filter(id => !drop.has(id));
  }
  return { _id: { $in: ids } };
}

/**
 * All conditions together. Field conditions are lifted to the top level; logical ones and repeated
 * fields stay under `$and`.
 */
export function allOf(conditions: Array<Query | undefined>): Query {
  const present = conditions.filter((c): c is Query => c !== undefined);
  const top: Query = {};
  const rest: Query[] = [];
  for (const condition of present) {
    const keys = Object.keys(condition);
    if (keys.every(k => !k.startsWith("$") && !(k in top))) Object.assign(top, condition);
    else rest.push(condition);
  }
  return rest.length ? { ...top, $and: rest } : top;
}
