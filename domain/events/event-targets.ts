/**
 * The event a request names, found or refused as the contract says: by id (404, or 400 when the id is
 * another type's, D2: two id sequences), by slug (an unknown slug is a validation error), the target of an update or a
 * delete (permission first, docs/records.md#updating-an-event, #deleting-an-event), and the ids a list
 * filter or a write names checked to be records of one kind.
 */
import { ApiError } from "../../lib/errors";
import { canDeletePost, canEditPost, effectiveStatus, hasCap, Who } from "../../lib/access/capabilities";
import { nowDb } from "../../lib/time/dates";
import type { EventDoc } from "../../lib/events/event-doc";
import type { PostRecords } from "../posts/post-records";

/** What a write does to its target: `trash` is an update to status `trash` (C13: edit and delete rights). */
export type TargetAction = "edit" | "delete" | "trash";

export class EventTargets {
  constructor(private readonly records: PostRecords<EventDoc>) {}

  /** The event with that id, if there is one (no error). */
  find(id: number): Promise<EventDoc | null> {
    return id > 0 ? this.records.findById(id) : Promise.resolve(null);
  }

  /** The event with that id, or the reference's 404 / 400 when there is none / it is another type. */
  async byId(id: number): Promise<EventDoc> {
    const doc = id > 0 ? await this.records.findById(id) : null;
    if (doc) return doc;
    const kind = id > 0 ? await this.records.kindOfId(id) : undefined;
    if (kind && kind !== "event") throw new ApiError("rest-invalid-event-id", 400);
    throw new ApiError("rest-event-not-found", 404, { id });
  }
  /** By slug (GET, DELETE): an unknown slug is a validation error. */
  async bySlug(slug: string): Promise<EventDoc> {
    const doc = await this.records.findBySlug(slug);
    if (doc) return doc;
    throw ApiError.invalidParam("slug");
  }

  /**
   * Update and delete targets: permission first (general capability when no record has that id),
   * then 404 / 400 for a missing id or another type.
   */
  async forWrite(who: Who, doc: EventDoc | null, id: number, action: TargetAction): Promise<EventDoc> {
    if (!doc) {
      if (!hasCap(who, action === "delete" ? "delete_posts" : "edit_posts")) throw ApiError.forbidden(who === null);
      const kind = id > 0 ? await this.records.kindOfId(id) : undefined;
      if (kind && kind !== "event") throw new ApiError("rest-invalid-event-id", 400);
      throw new ApiError("rest-event-not-found", 404, { id });
    }
    const view = { ...doc, status: effectiveStatus(doc, nowDb(this.records.now())) };
    const allowed = (action === "delete" || canEditPost(who, view)) && (action === "edit" || canDeletePost(who, view));
    if (!allowed) throw ApiError.forbidden(who === null);
    return doc;
  }

  /** Every id must be a record of that kind (list filters `venue`, `organizer`, `post_parent`; the writes' `post_parent`). */
  async requireKind(ids: number[] | undefined, kind: string, param: string): Promise<void> {
    if (!ids) return;
    for (const id of ids) if ((await this.records.kindOfId(id)) !== kind) throw ApiError.invalidParam(param, "param.unknown_id");
  }
}
