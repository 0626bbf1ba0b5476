/**
 * What a caller may do with a venue or organizer (docs/authorization.md), the record's status read at
 * `now` (C13: a passed `future` counts as `publish`).
 */
import { canEditPost, canReadPost, effectiveStatus, PostLike, Who } from "../../lib/access/capabilities";
import type { LinkedDoc } from "../../lib/linked/record";

/** The record as the capability rules see it. */
export function postLike(record: LinkedDoc, nowDb: string): PostLike {
  return { ...record, status: effectiveStatus(record, nowDb) };
}

export function mayRead(who: Who, record: LinkedDoc, nowDb: string): boolean {
  return canReadPost(who, postLike(record, nowDb));
}

export function mayEdit(who: Who, record: LinkedDoc, nowDb: string): boolean {
  return canEditPost(who, postLike(record, nowDb));
}
