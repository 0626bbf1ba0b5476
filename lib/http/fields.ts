/**
 * `_fields` (WordPress's response field selection, C22: caching headers and shaping) on every route: a comma list (or array) of keys;
 * a dotted path (`venue.city`) keeps only that key of a nested object, of every object of a nested array
 * (`categories.name`), and a key named whole keeps its whole value. Keys keep the record's order; unknown
 * keys are ignored.
 *
 * - A single record: its keys are selected.
 * - A list: the keys of each listed record (the array under the list's own key); the envelope stays.
 * - The change feed: the keys of each change's `record`; the change's own keys stay.
 */

/** A selection tree: `true` keeps the whole value, an object keeps those keys of it. */
export type FieldMask = { [key: string]: true | FieldMask };

/** The mask of a `_fields` value, or undefined when it selects nothing (absent, empty, not text). */
export function parseFields(value: unknown): FieldMask | undefined {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  const mask: FieldMask = {};
  let any = false;
  for (const item of items) {
    if (typeof item !== "string") continue;
    const path = item.trim().split(".").map(p => p.trim());
    if (path.some(p => p === "")) continue;
    any = true;
    let node: FieldMask = mask;
    for (let i = 0; i < path.length; i++) {
      const key = path[i];
      if (node[key] === true) break; // the whole value is kept already
      if (i === path.length - 1) {
        node[key] = true;
        break;
      }
      if (node[key] === undefined) node[key] = {};
      node = node[key] as FieldMask;
    }
  }
  return any ? mask : undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** `value` with only the masked keys (arrays: each element; other values: as they are). */
export function applyMask(value: unknown, mask: FieldMask): unknown {
  if (Array.isArray(value)) return value.map(item => applyMask(item, mask));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const m = mask[key];
    if (m === undefined) continue;
    out[key] = m === true ? v : applyMask(v, m);
  }
  return out;
}

/** The list keys of this service's list envelopes. */
const LIST_KEYS = ["events", "venues", "organizers", "categories", "tags"] as const;

/**
 * A response body shaped by `_fields` for the action that answered it: lists (an envelope holding a record
 * array under its list key), the change feed, or a single record.
 */
export function shapeBody(action: string, body: unknown, mask: FieldMask): unknown {
  if (!isPlainObject(body)) return Array.isArray(body) ? applyMask(body, mask) : body;
  if (action === "changes.list" && Array.isArray(body.changes)) {
    return { ...body, changes: body.changes.map(c => (isPlainObject(c) && isPlainObject(c.record) ? { ...c, record: applyMask(c.record, mask) } : c)) };
  }
  if (action.endsWith(".list")) {
    const key = LIST_KEYS.find(k => Array.isArray(body[k]));
    if (key) return { ...body, [key]: (body[key] as unknown[]).map(item => applyMask(item, mask)) };
  }
  return applyMask(body, mask);
}
