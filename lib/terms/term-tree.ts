/**
 * Walking the category tree with batched lookups: the ancestors of a set of terms (for archive URLs,
 * slug suffixes, loop protection) and the descendants of a set of categories (hierarchical filters).
 * The store is reached only through the lookup functions passed in; every walk is cycle-safe.
 */
import type { TermDoc } from "./term-record";

type TreeNode = Pick<TermDoc, "_id" | "parent">;

/** Fetches the terms with these ids (unknown ids are simply absent). */
export type FetchByIds<T extends TreeNode> = (ids: number[]) => Promise<T[]>;
/** Fetches the direct children of these parents. */
export type FetchChildren<T extends TreeNode> = (parentIds: number[]) => Promise<T[]>;

/** Upper bound of tree depth walked (a guard; loops are prevented on write). */
const MAX_DEPTH = 1000;

/**
 * Loads every ancestor of `docs` not yet in `known`, one batched lookup per tree level, and returns the
 * map of all terms seen (the docs themselves included).
 */
export async function loadAncestors<T extends TreeNode>(docs: readonly T[], fetch: FetchByIds<T>, known: Map<number, T> = new Map()): Promise<Map<number, T>> {
  for (const doc of docs) known.set(doc._id, doc);
  let missing = docs.map(d => d.parent);
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const wanted = [...new Set(missing.filter(id => id > 0 && !known.has(id)))];
    if (wanted.length === 0) break;
    const found = await fetch(wanted);
    for (const doc of found) known.set(doc._id, doc);
    missing = found.map(d => d.parent);
  }
  return known;
}

/** Ancestor ids of a term, parent first, from a map holding them; stops at a missing term or a cycle. */
export function ancestorIds(doc: TreeNode, byId: ReadonlyMap<number, TreeNode>): number[] {
  const out: number[] = [];
  const seen = new Set<number>([doc._id]);
  let parent = doc.parent;
  while (parent > 0 && !seen.has(parent)) {
    const node = byId.get(parent);
    if (!node) break;
    seen.add(parent);
    out.push(parent);
    parent = node.parent;
  }
  return out;
}

/** Ancestor slugs of a term, root first (the path segments of a category archive URL). */
export function ancestorSlugs(doc: TreeNode, byId: ReadonlyMap<number, Pick<TermDoc, "_id" | "parent" | "slug">>): string[] {
  return ancestorIds(doc, byId).map(id => byId.get(id)!.slug).reverse();
}

/** The given ids and every descendant of them, one batched lookup per tree level. */
export async function withDescendants<T extends TreeNode>(rootIds: readonly number[], fetchChildren: FetchChildren<T>): Promise<number[]> {
  const all = new Set<number>(rootIds);
  let frontier = [...all];
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
    const children = await fetchChildren(frontier);
    frontier = [];
    for (const child of children) {
      if (all.has(child._id)) continue;
      all.add(child._id);
      frontier.push(child._id);
    }
  }
  return [...all];
}
