/**
 * What writes of events do to term counts (docs/records.md#term-counts): a term counts the published
 * events carrying it (C35: each published occurrence). The SQL stores derive the counts themselves
 * (store/sql/term-counts.ts); this is the same rule in code, for the MongoDB store and for the services
 * that clean and announce after such a write.
 */
export interface CountedDoc {
  status?: unknown;
  categories?: unknown;
  tags?: unknown;
}

/** The terms a stored event counts for, by id, with their type. */
export function countedTerms(doc: CountedDoc | null | undefined): Map<number, "category" | "tag"> {
  const out = new Map<number, "category" | "tag">();
  if (!doc || doc.status !== "publish") return out;
  for (const [field, type] of [["categories", "category"], ["tags", "tag"]] as const) {
    const ids = doc[field];
    for (const id of Array.isArray(ids) ? ids : [ids]) if (Number.isSafeInteger(id)) out.set(id as number, type);
  }
  return out;
}

/** The count deltas of many writes (before, after; null: none), without the terms they leave as they were. */
export function termDeltas(pairs: ReadonlyArray<readonly [CountedDoc | null | undefined, CountedDoc | null | undefined]>): Map<number, { delta: number; type: "category" | "tag" }> {
  const out = new Map<number, { delta: number; type: "category" | "tag" }>();
  const add = (doc: CountedDoc | null | undefined, by: number) => {
    for (const [id, type] of countedTerms(doc)) out.set(id, { delta: (out.get(id)?.delta ?? 0) + by, type });
  };
  for (const [before, after] of pairs) {
    add(before, -1);
    add(after, 1);
  }
  for (const [id, d] of out) if (d.delta === 0) out.delete(id);
  return out;
}
