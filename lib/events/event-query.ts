/**
 * The store query of an events list (lists.md §2): always-applied conditions, the date window, and every
 * filter, as one query on indexed fields (NeDB and MongoDB operators only), with the default order.
 */
import type { Query, Sort } from "../../mixins/store/collection";
import { containsRegex, searchTerms } from "../search";

export interface EventListFilters {
  statuses: string[];
  /** Date bounds already normalised (lists.md §2.3); undefined = not applied. */
  bounds: { start_date?: string; end_date?: string; starts_before?: string; starts_after?: string; ends_before?: string; ends_after?: string };
  include?: number[];
  search?: string;
  /** Protected events match a search only through their title unless this says otherwise (D34). */
  searchAccess: "all" | { password?: string };
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  postParent?: number;
  ticketed?: boolean;
  /** Geolocation: venues to keep (radius / has coordinates) or to leave out (lacks coordinates). */
  geoVenues?: { in?: number[]; notIn?: number[] };
}

function searchCondition(text: string, exclude: boolean, access: EventListFilters["searchAccess"]): Query {
  const re = containsRegex(text);
  const body: Query = { $or: [{ excerpt: re }, { description: re }] };
  const readable: Query = access === "all" ? body : { $and: [{ post_password: { $in: ["", ...(access.password ? [access.password] : [])] } }, body] };
  const match: Query = { $or: [{ title: re }, readable] };
  return exclude ? { $not: match } : match;
}

export function buildEventQuery(f: EventListFilters): Query {
  const and: Query[] = [{ status: { $in: f.statuses } }, { hide_from_listings: { $ne: true } }];
  const b = f.bounds;
  if (!f.include) {
    if (b.start_date) and.push({ start_date: { $gte: b.start_date } });
    if (b.end_date) and.push({ end_date: { $lte: b.end_date } });
    if (b.starts_before) and.push({ start_date: { $lt: b.starts_before } });
    if (b.starts_after) and.push({ start_date: { $gt: b.starts_after } });
    if (b.ends_before) and.push({ end_date: { $lt: b.ends_before } });
    if (b.ends_after) and.push({ end_date: { $gt: b.ends_after } });
  } else {
    and.push({ _id: { $in: f.include } });
  }
  if (f.search) for (const term of searchTerms(f.search)) and.push(searchCondition(term.text, term.exclude, f.searchAccess));
  if (f.categoryIds) and.push({ categories: { $in: f.categoryIds } });
  if (f.tagIds) and.push({ tags: { $in: f.tagIds } });
  if (f.venueIds) and.push({ venues: { $in: f.venueIds } });
  if (f.organizerIds) and.push({ organizers: { $in: f.organizerIds } });
  if (f.featured !== undefined) and.push(f.featured ? { featured: true } : { featured: { $ne: true } });
  if (f.postParent !== undefined) and.push({ post_parent: f.postParent });
  if (f.ticketed !== undefined) and.push(f.ticketed ? { ticketed: true } : { ticketed: { $ne: true } });
  if (f.geoVenues?.in) and.push({ venues: { $in: f.geoVenues.in } });
  if (f.geoVenues?.notIn) and.push({ $or: [{ venues: { $size: 0 } }, { venues: { $nin: f.geoVenues.notIn } }] });
  return { $and: and };
}

/** Default order: start (wall clock), publication date, id; with `include`: publication date, id. */
export function eventSort(include: boolean): Sort {
  return include ? { date: 1, _id: 1 } : { start_date: 1, date: 1, _id: 1 };
}
