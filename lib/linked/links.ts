/**
 * The `venue` / `organizer` input of an event (docs/records.md#venue-and-organizer-input, D6: shapes of `venue` and `organizer` on events; C2: several venues): empty, an id, a comma list of
 * ids, `{id}`, a data object, or an array mixing these. Parsed into entries; what each entry names is
 * checked by domain/linked/linked-input.ts.
 */
import { isPhpEmpty } from "../text/sanitize";
import { parsePositiveInteger } from "../http/query";

export type LinkEntry = { id: number } | { data: Record<string, unknown> };

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** `12`, `"12"`, `"12, 13"` → ids; undefined when any part is not a positive integer. */
function idsOf(v: number | string): number[] | undefined {
  const parts = typeof v === "number" ? [v] : v.split(",").map(s => s.trim()).filter(Boolean);
  const ids: number[] = [];
  for (const part of parts) {
    const n = typeof part === "number" ? (Number.isSafeInteger(part) && part > 0 ? part : undefined) : /^\d+$/.test(part) ? parsePositiveInteger(part) : undefined;
    if (n === undefined) return undefined;
    ids.push(n);
  }
  return ids;
}

/** The entries of a link input, in order; `[]` for an empty input; null when its shape is invalid. */
export function parseLinkEntries(value: unknown): LinkEntry[] | null {
  if (isPhpEmpty(value)) return [];
  const out: LinkEntry[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (isPhpEmpty(item)) continue;
    if (typeof item === "number" || typeof item === "string") {
      const ids = idsOf(item);
      if (!ids) return null;
      out.push(...ids.map(id => ({ id })));
    } else if (isPlainObject(item)) {
      if (isPhpEmpty(item.id)) out.push({ data: item });
      else {
        const id = typeof item.id === "number" || typeof item.id === "string" ? idsOf(item.id) : undefined;
        if (!id || id.length !== 1) return null;
        out.push({ id: id[0] });
      }
    } else return null;
  }
  return out;
}

/**
 * The ids an input names when it names existing records only (no data object to make one from): each
 * once, in order, as linking it answers them (mixins/linked-post.mixin.ts `link`); undefined when the input
 * holds a data object or is not a link input at all.
 */
export function linkedIdsOnly(value: unknown): number[] | undefined {
  const entries = parseLinkEntries(value);
  if (!entries || entries.some(e => !("id" in e))) return undefined;
  return [...new Set(entries.map(e => (e as { id: number }).id))];
}
