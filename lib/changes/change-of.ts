/**
 * The change-feed input of a write of one record: its type, id, action, modification time and the
 * snapshot the feed's visibility is judged by (a deleted term has none), and the record's document as the
 * write left it (kept with the entry: the record as of that change, C63: what a webhook says).
 */
import type { Doc } from "../documents/store-query";
import { nowDb } from "../time/dates";
import { ChangeAction, ChangeInput, ChangeType, isTermType, snapshotOf } from "./feed";

export function changeOf(type: ChangeType, action: ChangeAction, doc: Doc): ChangeInput {
  const gone = action === "deleted" && isTermType(type);
  return { type, id: Number(doc._id), action, modified_utc: typeof doc.modified_utc === "string" ? doc.modified_utc : nowDb(), snapshot: gone ? null : snapshotOf(type, doc), ...(gone ? {} : { doc }) };
}
