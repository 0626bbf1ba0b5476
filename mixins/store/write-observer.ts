/**
 * Follows every change of an embedded (NeDB) datastore as it happens, for an in-memory index kept
 * beside NeDB's own (the events list index). NeDB funnels each change of its documents through four
 * methods that update its indexes; wrapping them on the datastore instance sees every insert, update,
 * removal and reload, whichever API made it, in the datastore's own order, and only once NeDB's
 * indexes took it (a change a unique index refuses is rolled back before the observer hears of it).
 */
export type StoredDoc = Record<string, any>;

export interface WriteObserver {
  /** The whole content (start, reload). */
  reset(docs: StoredDoc[]): void;
  saved(doc: StoredDoc): void;
  removed(doc: StoredDoc): void;
}

type Pair = { oldDoc: StoredDoc; newDoc: StoredDoc };

export function observeDatastore(db: any, observer: WriteObserver): void {
  const proto = Object.getPrototypeOf(db);
  const add = proto._addToIndexes;
  const remove = proto._removeFromIndexes;
  const update = proto._updateIndexes;
  const reset = proto._resetIndexes;
  db._addToIndexes = function (doc: StoredDoc | StoredDoc[]) {
    add.call(this, doc);
    for (const d of Array.isArray(doc) ? doc : [doc]) observer.saved(d);
  };
  db._removeFromIndexes = function (doc: StoredDoc | StoredDoc[]) {
    remove.call(this, doc);
    for (const d of Array.isArray(doc) ? doc : [doc]) observer.removed(d);
  };
  db._updateIndexes = function (oldDoc: StoredDoc | Pair[], newDoc?: StoredDoc) {
    update.call(this, oldDoc, newDoc);
    const pairs: Pair[] = Array.isArray(oldDoc) ? oldDoc : [{ oldDoc, newDoc: newDoc! }];
    for (const p of pairs) {
      if (p.oldDoc._id !== p.newDoc._id) observer.removed(p.oldDoc);
      observer.saved(p.newDoc);
    }
  };
  db._resetIndexes = function (newData?: StoredDoc | StoredDoc[]) {
    reset.call(this, newData);
    observer.reset(newData === undefined ? [] : Array.isArray(newData) ? newData : [newData]);
  };
  observer.reset(db.getAllData());
}
