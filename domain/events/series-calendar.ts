/**
 * What the iCalendar answer of a list needs of the series its events belong to (C55: horizon and ICS): read from the
 * stored rows of recurring events (lib/events/series.ts), written by nothing here.
 */
import { buildEventQuery, EventListFilters } from "../../lib/events/event-query";
import { inBounds } from "../../lib/events/series-window";
import { expandSeries, occurrenceAt } from "../../lib/recurrence/expand";
import { wallClockToUtc } from "../../lib/time/dates";
import { globalId } from "../../lib/posts/permalink";
import { settings } from "../../lib/settings";
import { isFirst, isMember, SeriesDoc, seriesOf, templateOf, WHOLE_SERIES } from "../../lib/events/series";
import type { PostRecords } from "../posts/post-records";

/** How many exceptions past its records an iCalendar answer fetches (the answer's own cap, C22: caching headers and shaping). */
const ICS_MORE_LIMIT = 1000;
/** How many occurrences of one series an iCalendar answer looks at past the horizon. */
const ICS_EXPANSION_LIMIT = 5000;

export class SeriesCalendar {
  constructor(private readonly records: PostRecords<SeriesDoc>) {}

  /**
   * What the iCalendar answer of a list needs of the series its events belong to (C55: horizon and ICS), for the list's
   * filters: for each listed member its series, identity and whether it is an exception; for each series
   * its first start, end, zone, lines, UID and the identities within the query's window that the query
   * does not match (EXDATEs); and `more`, the exceptions the query matches that the answer's records do
   * not hold yet (past its first 1 000 records). With `whole` (no filters), a first event's own file: the
   * whole series.
   */
  async of(ids: number[], filters: EventListFilters | undefined, whole: boolean) {
    const listed: SeriesDoc[] = await this.records.store.findByIds(ids);
    const members: Record<string, { series: number; identity: string; exception: boolean }> = {};
    const seriesIds = new Set<number>();
    for (const d of listed) {
      if (!isMember(d)) continue;
      seriesIds.add(d.series_id!);
      const overrides = (d.series_overrides ?? []).filter(g => g !== "slug");
      members[d._id] = { series: d.series_id!, identity: d.series_identity!, exception: overrides.length > 0 || isFirst(d) && Object.keys(d.series_shared ?? {}).length > 0 };
    }
    const listedIds = new Set(ids);
    const bounds = filters?.bounds ?? {};
    // the members the query matches (the answer's records are its first 1 000 events at most)
    const matching = filters && seriesIds.size
      ? (await this.records.store.find({ $and: [buildEventQuery(filters), { series_id: { $in: [...seriesIds] } }] },
        { projection: { _id: 1, series_id: 1, series_overrides: 1, series_shared: 1 } }))
      : [];
    const matched = new Set([...listedIds, ...matching.map(m => m._id)]);
    const more = matching.filter(m => !listedIds.has(m._id) && ((m.series_overrides ?? []).some(g => g !== "slug") || (isFirst(m) && Object.keys(m.series_shared ?? {}).length > 0)))
      .map(m => m._id).slice(0, ICS_MORE_LIMIT);
    const series: Record<string, unknown> = {};
    for (const id of seriesIds) {
      const head = await this.records.findById(id);
      if (!head || !isFirst(head)) continue;
      const template = templateOf(head);
      const all = await this.records.store.find({ series_id: id }, { projection: { _id: 1, series_identity: 1, start_date: 1, end_date: 1 } });
      const s = seriesOf(head);
      const unlisted = whole ? [] : all.filter(m => {
        if (matched.has(m._id)) return false;
        const rule = occurrenceAt(s, m.series_identity!);
        return inBounds(bounds, m.start_date, m.end_date) || inBounds(bounds, rule.start, rule.end);
      }).map(m => m.series_identity!);
      // a window reaching past the horizon: the rule's occurrences there are not stored, so not listed
      const upper = bounds.end_date ?? bounds.ends_before;
      if (!whole && upper !== undefined && head.series_horizon !== WHOLE_SERIES) {
        const stored = new Set(all.map(m => m.series_identity!));
        const until = wallClockToUtc(upper, settings().siteTimezone);
        for (const o of expandSeries(s, until, { limit: ICS_EXPANSION_LIMIT })) {
          if (!stored.has(o.identity) && inBounds(bounds, o.start, o.end)) unlisted.push(o.identity);
        }
      }
      series[id] = {
        uid: globalId(settings().baseUrl, id), start: template.start_date, end: template.end_date, zone: template.timezone, allDay: !!template.all_day,
        lines: head.series_lines ?? [], exdates: unlisted, utc_start: template.utc_start_date
      };
    }
    return { members, series, more };
  }
}
