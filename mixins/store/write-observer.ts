/**
 * Follows every change of an embedded (NeDB) datastore as it happens, for what is kept beside NeDB's
 * own indexes (the events listing index, the freezing of stored documents). NeDB funnels each change
 * of its documents through four methods that update its indexes; wrapping them on the datastore
 * instance sees every insert, update, removal and reload, whichever API made it, in the datastore's
 * own order, and only once NeDB's indexes took it (a change a unique index refuses is rolled back
 * before any observer hears of it). Observers are told in the order they were added.
 */
export type StoredDoc = Record<string, any>;

export interface WriteObserver {
  /** The whole content (start, reload). */
  reset(docs: StoredDoc[]): void;
  saved(doc: StoredDoc): void;
  removed(doc: StoredDoc): void;
}

type Pair = { oldDoc: StoredDoc; newDoc: StoredDoc };

const OBSERVERS = Symbol("write observers");

export function observeDatastore(db: any, observer: WriteObserver): void {
  if (db[OBSERVERS]) {
    db[OBSERVERS].push(observer);
    observer.reset(db.getAllData());
    return;
  }
  const observers: WriteObserver[] = [observer];
  db[OBSERVERS] = observers;
  const proto = Object.getPrototypeOf(db);
  const add = proto._addToIndexes;
  const remove = proto._removeFromIndexes;
  const update = proto._updateIndexes;
  const reset = proto._resetIndexes;
  const each = (docs: StoredDoc | StoredDoc[], fn: (o: WriteObserver, d: StoredDoc) => void) => {
    for (const d of Array.isArray(docs) ? docs : [docs]) for (const o of observers) fn(o, d);
  };
  db._addToIndexes = function (doc: StoredDoc | StoredDoc[]) {
    add.call(this, doc);
    each(doc, (o, d) => o.saved(d));
  };
  db._removeFromIndexes = function (doc: StoredDoc | StoredDoc[]) {
    remove.call(this, doc);
    each(doc, (o, d) => o.removed(d));
  };
  db._updateIndexes = function (oldDoc: StoredDoc | Pair[], newDoc?: StoredDoc) {
    update.call(this, oldDoc, newDoc);
    const pairs: Pair[] = Array.isArray(oldDoc) ? oldDoc : [{ oldDoc, newDoc: newDoc! }];
    for (const p of pairs) {
      for (const o of observers) {
        if (p.oldDoc._id !== p.newDoc._id) o.removed(p.oldDoc);
        o.saved(p.newDoc);
      }
    }
  };
  db._resetIndexes = function (newData?: StoredDoc | StoredDoc[]) {
    reset.call(this, newData);
    const docs = newData === undefined ? [] : Array.isArray(newData) ? newData : [newData];
    for (const o of observers) o.reset(docs);
  };
  observer.reset(db.getAllData());
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value as object)) deepFreeze(v);
}

/**
 * Freezes every document as NeDB stores it. NeDB never changes a stored document in place (an update
 * stores a modified copy), so a frozen one can be handed to readers without the copy NeDB makes for
 * every find: `findByIds` does, and a reader that tried to change one would fail loudly.
 */
export const FREEZE_STORED: WriteObserver = {
  reset: docs => docs.forEach(deepFreeze),
  saved: deepFreeze,
  removed: () => undefined
};
