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
  return {
    find: (...args) => here().find(...args),
    findByIds: (...args) => here().findByIds(...args),
    count: (...args) => here().count(...args),
    countParts: (...args) => here().countParts(...args),
    idsWhere: (...args) => here().idsWhere(...args),
    findOne: (...args) => here().findOne(...args),
    insert: (...args) => here().insert(...args),
    append: (...args) => here().append(...args),
    appendAll: async docs => {
      const col = here();
      if (col.appendAll) return col.appendAll(docs);
      const out = [];
      for (const doc of docs) out.push(await col.append(doc));
      return out;
    },
    updateOne: (...args) => here().updateOne(...args),
    updateOneChange: (...args) => here().updateOneChange(...args),
    updateMany: (...args) => here().updateMany(...args),
    removeMany: (...args) => here().removeMany(...args),
    ensureIndex: (...args) => here().ensureIndex(...args)
  };
}

/** The id registry of the current site. */
export function siteRegistry(store: Store): IdRegistry {
  return store.registry(currentSiteId());
}
