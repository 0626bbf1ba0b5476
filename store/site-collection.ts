/**
 * A collection that is always the current site's (lib/sites/scope.ts): each operation runs on the
 * collection of the site the work belongs to, made on first use and kept (a bounded number per
 * collection, the least recently made dropped first), so an idle site costs nothing here. The store
 * layer puts that site in every statement (`site = ?`), so a query can only ever see one site.
 */
import type { Collection } from "./collection";
import type { IndexSpec, Store } from "./index";
import type { IdRegistry } from "./registry";
import { currentSiteId } from "../lib/sites/scope";

/** Collections kept per name. */
const KEPT = 512;

export function siteCollection(store: Store, name: string, indexes: readonly IndexSpec[], wrap: (c: Collection) => Collection = c => c): Collection {
  const bySite = new Map<number, Collection>();
  const here = (): Collection => {
    const site = currentSiteId();
    let col = bySite.get(site);
    if (!col) {
      if (bySite.size >= KEPT) bySite.delete(bySite.keys().next().value as number);
      col = wrap(store.collection(name, indexes, site));
      bySite.set(site, col);
    }
    return col;
  };
  // Every argument goes on as given (options a later version of the interface adds included).
  const forward = <K extends keyof Collection>(method: K): Collection[K] =>
    ((...args: unknown[]) => {
      const col = here();
      return (col[method] as unknown as (...a: unknown[]) => unknown).apply(col, args);
    }) as unknown as Collection[K];
  return {
    find: forward("find"),
    findByIds: forward("findByIds"),
    count: forward("count"),
    idsWhere: forward("idsWhere"),
    findOne: forward("findOne"),
    insert: forward("insert"),
    append: forward("append"),
    updateOne: forward("updateOne"),
    updateOneChange: forward("updateOneChange"),
    updateMany: forward("updateMany"),
    removeMany: forward("removeMany"),
    ensureIndex: forward("ensureIndex")
  };
}

/** The id registry of the current site. */
export function siteRegistry(store: Store): IdRegistry {
  return store.registry(currentSiteId());
}
