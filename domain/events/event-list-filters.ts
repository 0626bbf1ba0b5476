/**
 * What a list of events asks for, turned into store queries: the filters of `GET /events` read from its
 * params (terms and linked records resolved, the search in the asked language, the `geoloc*` filters,
 * docs/lists.md#event-filters), the list's query with its statuses read as C13 (a due `future` post counts as published) says (a due `future` event
 * as published: reads never write, lib/events/due-events.ts), and the occurrences route's conditions.
 */
import { searchTerms, SearchTerm } from "../../lib/text/search";
import { allChecks } from "../../lib/errors";
import { settings } from "../../lib/settings";
import { canEditPost, Capability, hasCap, REGISTERED_STATUSES, Who } from "../../lib/access/capabilities";
import { listBound, nowDb } from "../../lib/time/dates";
import { buildEventQuery, eventSearchCondition, EventListFilters, readableCondition, SearchAccess } from "../../lib/events/event-query";
import type { EventDoc } from "../../lib/events/event-doc";
import type { Query } from "../../store/collection";
import { modifiedRange } from "../../lib/changes/modified";
import { NearInput, NEAR_ACTION, readNear } from "../../lib/geo/near-query";
import { listBounds } from "../../lib/events/series-window";
import { dueCountParts, dueStatuses, withDueStatuses, type CountPart } from "../../lib/events/due-events";
import type { EventCall, NeighbourServices, PostServices } from "./event-ports";
import type { EventTargets } from "./event-targets";
import type { RecordFields } from "../fields/record-fields";

/** The list's params as their schema leaves them (lib/events/event-params.ts). */
export interface ListParams extends NearInput {
  search?: string;
  categories?: string[];
  tags?: string[];
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  status?: string[];
  geoloc?: boolean;
  include?: number[];
  post_parent?: number;
  ticketed?: boolean;
  event_status?: string[];
  attendance_mode?: string[];
  password?: string;
  context?: string;
  modified_after?: unknown;
  modified_before?: unknown;
  [param: string]: unknown;
}

export interface EventListFilterDeps<C extends EventCall> {
  targets: EventTargets;
  services: NeighbourServices<C>;
  posts: PostServices<C>;
  now(): Date;
  /** `meta[<key>]=<value>` filters (domain/fields/record-fields.ts). */
  fields?: RecordFields<C>;
}

const siteZone = (): string => settings().siteTimezone;

export class EventListQueries<C extends EventCall> {
  constructor(private readonly deps: EventListFilterDeps<C>) {}

  /** The filters of a list call (each refused parameter a 400; both term filters named when both are). */
  async filters(call: C): Promise<EventListFilters> {
    const p = call.params as ListParams;
    const { services, posts, targets } = this.deps;
    const who: Who = call.meta?.caller;
    const bounds: EventListFilters["bounds"] = listBounds(p, siteZone(), this.deps.now());
    // both refused: both named, whichever answered first
    const [categoryIds, tagIds] = await allChecks([
      p.categories ? services.termFilter(call, "category", p.categories, "categories") : undefined,
      p.tags ? services.termFilter(call, "tag", p.tags, "tags") : undefined
    ]);
    await targets.requireKind(p.venue, "venue", "venue");
    await targets.requireKind(p.organizer, "organizer", "organizer");
    if (p.post_parent !== undefined) await targets.requireKind([p.post_parent as number], "event", "post_parent");
    const searchAccess: SearchAccess = this.searchAccess(who, p);
    // `search` matches the text of the asked language (i18n); D34: unreadable protected events by title only.
    const searchQuery = p.search
      ? await posts.searchQuery(call, searchTerms(p.search), (terms: SearchTerm[]) => eventSearchCondition(terms, searchAccess),
        // the translated texts the stored search reads (custom field texts are not translated)
        { fields: ["title", "description", "excerpt", "event_status_reason"], ...(searchAccess === "all" ? {} : { limited: { fields: ["title"], unless: readableCondition(searchAccess) } }) })
      : undefined;
    return {
      statuses: posts.listStatusFilter(call, p.status),
      bounds,
      include: p.include,
      search: p.search,
      searchQuery,
      searchAccess,
      categoryIds: categoryIds as number[] | undefined,
      tagIds: tagIds as number[] | undefined,
      venueIds: p.venue,
      organizerIds: p.organizer,
      featured: p.featured,
      postParent: p.post_parent,
      ticketed: p.ticketed,
      eventStatus: p.event_status,
      attendanceMode: p.attendance_mode,
      geoVenues: await this.geoFilter(call),
      modified: modifiedRange(p),
      fieldConditions: await this.deps.fields?.filters(call, p.meta)
    };
  }

  /**
   * Whose protected fields a search may look into (D34: search never matches through hidden fields; docs/authorization.md#password-protected-records): the trusted caller all; with
   * `context=edit`, every event the caller may edit (all for editors, own ones by status otherwise);
   * and the events whose password was sent.
   */
  searchAccess(who: Who, p: { password?: string; context?: string }): SearchAccess {
    if (who === undefined) return "all";
    const access: Exclude<SearchAccess, "all"> = { password: p.password };
    if (p.context === "edit" && who) {
      if (["edit_others_posts", "edit_published_posts", "edit_private_posts"].every(c => hasCap(who, c as Capability))) return "all";
      const statuses = REGISTERED_STATUSES.filter(status => status !== "trash" && canEditPost(who, { author: who.id, status }));
      if (statuses.length) access.own = { author: who.id, statuses };
    }
    return access;
  }

  /**
   * The `geoloc*` filters (D8: geolocation; C11: venues hold their coordinates), answered by the geolocation service: parameter errors first, then
   * 400 geoloc-not-available when that service is not running. The radius search's distances are left
   * in `call.locals.geo` (the page's order and `distance`).
   */
  async geoFilter(call: C): Promise<EventListFilters["geoVenues"]> {
    const p = call.params as ListParams;
    const { services } = this.deps;
    const { asked, near } = readNear(p);
    if (!asked && p.geoloc === undefined) return undefined;
    const needed = [...(near || p.geoloc === undefined ? [NEAR_ACTION] : []), ...(p.geoloc !== undefined ? ["geolocation.venuesWithCoordinates"] : [])];
    services.requireGeolocation(needed);
    const out: NonNullable<EventListFilters["geoVenues"]> = {};
    if (near) {
      const distances = await services.venuesNear(call, near);
      call.locals = { ...(call.locals ?? {}), geo: distances };
      out.in = [...distances.keys()];
    }
    if (p.geoloc !== undefined) {
      const located: number[] = await services.venuesWithCoordinates(call);
      if (p.geoloc) out.in = out.in ? out.in.filter(id => located.includes(id)) : located;
      else out.notIn = located;
    }
    return out;
  }

  /** A list's query, its statuses read as C13 (a due `future` post counts as published) says. */
  listQuery(filters: EventListFilters): Query {
    const due = dueStatuses(filters.statuses, nowDb(this.deps.now()));
    return withDueStatuses(buildEventQuery({ ...filters, statuses: due.statuses }), due.condition);
  }

  /** A list's total in disjoint parts: what only writes move, and the `future` events the clock moves (lib/events/due-events.ts). */
  listCountParts(filters: EventListFilters): CountPart[] {
    const due = dueStatuses(filters.statuses, nowDb(this.deps.now()));
    return dueCountParts(statuses => buildEventQuery({ ...filters, statuses }), due);
  }

  /** The occurrences route's conditions: the series, the statuses read as C13 (a due `future` post counts as published) says, the date bounds. */
  occurrencesQuery(call: C, doc: EventDoc): Query {
    const p = call.params as { status?: string[]; strict_dates?: boolean; start_date?: unknown; end_date?: unknown };
    // statuses read as C13 (a due `future` post counts as published) says (lib/events/due-events.ts)
    const due = dueStatuses(this.deps.posts.listStatusFilter(call, p.status), nowDb(this.deps.now()));
    const and: Query[] = [{ series_id: doc.series_id }, { status: { $in: due.statuses } }, ...(due.condition ? [due.condition] : [])];
    for (const [kind, op] of [["start_date", "$gte"], ["end_date", "$lte"]] as const) {
      const value = p[kind];
      const bound = value !== undefined && value !== null ? listBound(value, kind, !!p.strict_dates, siteZone()) : null;
      if (bound !== null) and.push({ [kind]: { [op]: bound } });
    }
    return { $and: and };
  }
}
