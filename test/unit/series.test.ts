/**
 * The pure parts of recurring events as stored rows (lib/events/series.ts), the list window they share
 * with the iCalendar answer (lib/events/series-window.ts) and series in iCalendar answers
 * (lib/recurrence/calendar.ts, read back by ical.js).
 */
import ICAL from "ical.js";
import {
  changedGroups, firstKey, groupsOfWrite, groupValues, heldClaim, isFirst, isMember, occurrenceRow, occurrenceSlug, scopeOf, SERIES_CLAIM_MS,
  seriesClaim, seriesKey, templateOf, textSource, unclaimed
} from "../../lib/events/series";
import { inBounds, listBounds } from "../../lib/events/series-window";
import { seriesCalendar, SeriesCalendarInfo } from "../../lib/recurrence/calendar";

const base = {
  _id: 10, author: 1, status: "publish", date: "2027-01-01 00:00:00", date_utc: "2027-01-01 00:00:00", modified: "2027-01-01 00:00:00",
  modified_utc: "2027-01-01 00:00:00", title: "Choir", slug: "choir", all_day: false, start_date: "2027-01-05 19:00:00",
  end_date: "2027-01-05 21:00:00", utc_start_date: "2027-01-05 18:00:00", utc_end_date: "2027-01-05 20:00:00", timezone: "Europe/Rome",
  cost: [], currency_symbol: "", currency_position: "prefix", website: null, hide_from_listings: false, sticky: false, featured: false,
  categories: [3], tags: [], venues: [], organizers: [], series_id: 10, series_identity: "2027-01-05 19:00:00", series_key: firstKey(10),
  series_overrides: [], series_lines: ["RRULE:FREQ=WEEKLY;COUNT=3"], series_shared: {}, series_horizon: "2029-01-01 00:00:00", series_version: 2
};

describe("stored series members", () => {
  test("membership and the first event", () => {
    expect(isMember(base)).toBe(true);
    expect(isFirst(base)).toBe(true);
    expect(isFirst({ ...base, _id: 11 })).toBe(false);
    expect(isMember({ ...base, series_id: undefined })).toBe(false);
    expect(isMember(null)).toBe(false);
  });

  test("a write's groups: parameters map to the stored groups they change", () => {
    expect(groupsOfWrite({ title: "x", venue: 4, start_date: "2027-01-01", cost: null, scope: "this" }).sort()).toEqual(["schedule", "title", "venues"]);
    expect(groupsOfWrite({ date_utc: "2027-01-01", end_date: "2027-01-02", timezone: "UTC" }).sort()).toEqual(["date", "schedule"]);
  });

  test("changed groups compare stored values", () => {
    expect(changedGroups(base, { ...base, title: "Other", currency_symbol: "€" }).sort()).toEqual(["cost", "title"]);
    expect(changedGroups(base, { ...base, modified: "2030-01-01 00:00:00" })).toEqual([]);
    expect(groupValues(base, ["cost", "title"])).toEqual({ cost: [], currency_symbol: "", currency_position: "prefix", title: "Choir" });
  });

  test("the series' template puts back what the first event overrides", () => {
    const first = { ...base, title: "Only this one", series_overrides: ["title"], series_shared: { title: "Choir" } };
    expect(templateOf(first).title).toBe("Choir");
    expect(templateOf(base)).toEqual(base);
  });

  test("occurrence slugs are `{series slug}-{date}`, empty while the series has none (C54: occurrence slugs and route)", () => {
    expect(occurrenceSlug("choir", "2027-03-02 19:00:00")).toBe("choir-2027-03-02");
    expect(occurrenceSlug("choir__trashed", "2027-03-02 19:00:00")).toBe("choir-2027-03-02");
    expect(occurrenceSlug("", "2027-03-02 19:00:00")).toBe("");
  });

  test("a new occurrence's row copies the series and takes its own id, dates, slug and key", () => {
    const row = occurrenceRow(base, { identity: "2027-01-12 19:00:00", start: "2027-01-12 19:00:00", end: "2027-01-12 21:00:00", utcStart: "2027-01-12 18:00:00", utcEnd: "2027-01-12 20:00:00" }, 42, "choir-2027-01-12", "2027-01-02 00:00:00");
    expect(row).toMatchObject({
      _id: 42, slug: "choir-2027-01-12", post_parent: 10, series_id: 10, series_identity: "2027-01-12 19:00:00", series_key: seriesKey(10, "2027-01-12 19:00:00"),
      series_overrides: [], title: "Choir", categories: [3], start_date: "2027-01-12 19:00:00", utc_end_date: "2027-01-12 20:00:00", modified: "2027-01-02 00:00:00"
    });
    for (const own of ["series_lines", "series_shared", "series_horizon", "series_version"]) expect(row).not.toHaveProperty(own);
    expect(row.categories).not.toBe(base.categories);
  });

  test("scopes: defaults and `following` on the first event (C53: occurrence identity, exceptions and scope)", () => {
    const other = { ...base, _id: 11 };
    expect(scopeOf(undefined, base)).toBe("all");
    expect(scopeOf(undefined, other)).toBe("this");
    expect(scopeOf("following", base)).toBe("all");
    expect(scopeOf("following", other)).toBe("following");
    expect(scopeOf("this", base)).toBe("this");
  });

  test("an occurrence shows the series' translations unless its text is its own", () => {
    const other = { ...base, _id: 11 };
    expect(textSource(other)._id).toBe(10);
    expect(textSource({ ...other, series_overrides: ["title"] })._id).toBe(11);
    expect(textSource({ ...other, series_overrides: ["cost"] })._id).toBe(10);
    expect(textSource(base)._id).toBe(10);
  });

  test("a claim on a series' planning holds until it lapses, and is never copied to an occurrence", () => {
    const t = new Date("2027-03-01T10:00:00.000Z");
    const claim = seriesClaim(t, "abc");
    expect(claim).toBe(`${new Date(t.getTime() + SERIES_CLAIM_MS).toISOString()} abc`);
    expect(heldClaim({ series_claim: claim }, t)).toBe(claim);
    expect(heldClaim({ series_claim: claim }, new Date(t.getTime() + SERIES_CLAIM_MS - 1))).toBe(claim);
    // at its expiry instant it still holds (the token sorts after the bare instant); a millisecond later not
    expect(heldClaim({ series_claim: claim }, new Date(t.getTime() + SERIES_CLAIM_MS))).toBe(claim);
    expect(heldClaim({ series_claim: claim }, new Date(t.getTime() + SERIES_CLAIM_MS + 1))).toBeUndefined();
    expect(heldClaim({}, t)).toBeUndefined();
    // the store's condition agrees: a held claim is not `$lte` the instant
    const at = new Date(t.getTime() + SERIES_CLAIM_MS);
    expect(unclaimed(at)).toEqual({ $or: [{ series_claim: { $exists: false } }, { series_claim: { $lte: at.toISOString() } }] });
    expect(claim <= at.toISOString()).toBe(false);
    expect(claim <= new Date(at.getTime() + 1).toISOString()).toBe(true);
    const head = { ...base, series_id: 10, series_claim: claim, series_lines: ["RRULE:FREQ=DAILY"] };
    expect(occurrenceRow(head, { identity: "2027-03-02 10:00:00", start: "2027-03-02 10:00:00", end: "2027-03-02 11:00:00", utcStart: "2027-03-02 10:00:00", utcEnd: "2027-03-02 11:00:00" }, 11, "s", "2027-03-01 10:00:00"))
      .not.toHaveProperty("series_claim");
  });
});

describe("the list window", () => {
  const now = new Date("2026-11-24T12:00:00Z");

  test("the default window when no starts_/ends_ bound is sent, whole days", () => {
    const b = listBounds({}, "UTC", now);
    expect(b.start_date).toBe("2026-11-23 00:00:00");
    expect(b.end_date).toBe("2028-11-24 23:59:59");
    expect(listBounds({ starts_after: "2027-01-01" }, "UTC", now)).toEqual({ starts_after: "2027-01-01 23:59:59" });
  });

  test("inBounds is the list's date condition", () => {
    const b = { start_date: "2027-03-01 00:00:00", end_date: "2027-03-31 23:59:59" };
    expect(inBounds(b, "2027-03-01 00:00:00", "2027-03-01 01:00:00")).toBe(true);
    expect(inBounds(b, "2027-02-28 23:00:00", "2027-03-01 01:00:00")).toBe(false);
    expect(inBounds(b, "2027-03-31 23:00:00", "2027-04-01 01:00:00")).toBe(false);
    expect(inBounds({ starts_before: "2027-03-02 00:00:00" }, "2027-03-02 00:00:00", "2027-03-02 01:00:00")).toBe(false);
  });
});

describe("series in an iCalendar answer", () => {
  const record = (id: number, start: string, title = "Choir") => ({
    id, global_id: `localhost?id=${id}`, title, status: "publish", all_day: false, timezone: "Europe/Rome", start_date: start,
    end_date: start.replace("19:00", "21:00"), utc_start_date: start.replace("19:00", "18:00"), utc_end_date: start.replace("19:00", "20:00"),
    modified_utc: "2027-01-01 00:00:00", date_utc: "2027-01-01 00:00:00"
  });
  const info: SeriesCalendarInfo = {
    members: {
      10: { series: 10, identity: "2027-01-05 19:00:00", exception: false },
      11: { series: 10, identity: "2027-01-12 19:00:00", exception: true }
    },
    series: {
      10: {
        uid: "localhost?id=10", start: "2027-01-05 19:00:00", end: "2027-01-05 21:00:00", utc_start: "2027-01-05 18:00:00", zone: "Europe/Rome",
        allDay: false, lines: ["RRULE:FREQ=WEEKLY;COUNT=4"], exdates: ["2027-01-19 19:00:00"]
      }
    }
  };

  test("one master VEVENT with the rule and the unlisted EXDATE, the exception by RECURRENCE-ID, others as before", () => {
    const text = seriesCalendar([record(10, "2027-01-05 19:00:00"), { ...record(11, "2027-01-12 19:00:00", "Special") }, record(99, "2027-02-01 19:00:00", "Alone")], info);
    const calendar = new ICAL.Component(ICAL.parse(text));
    for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
    const vevents = calendar.getAllSubcomponents("vevent");
    expect(vevents).toHaveLength(3);
    const master = new ICAL.Event(vevents.find(v => v.getFirstPropertyValue("uid") === "localhost?id=10" && !v.hasProperty("recurrence-id"))!);
    const exception = vevents.find(v => v.hasProperty("recurrence-id"))!;
    master.relateException(exception);
    const it = master.iterator();
    const seen: string[] = [];
    for (let next = it.next(); next; next = it.next()) {
      const d = master.getOccurrenceDetails(next);
      seen.push(`${d.startDate.toString()} ${d.item.summary}`);
    }
    expect(seen).toEqual(["2027-01-05T19:00:00 Choir", "2027-01-12T19:00:00 Special", "2027-01-26T19:00:00 Choir"]);
    expect(text).toContain("EXDATE;TZID=Europe/Rome:20270119T190000");
    expect(text).toContain("BEGIN:VTIMEZONE");
    const alone = vevents.find(v => v.getFirstPropertyValue("uid") === "localhost?id=99")!;
    expect(alone.hasProperty("rrule")).toBe(false);
    ICAL.TimezoneService.remove("Europe/Rome");
  });

  test("a series of instants (end = start) is written with DURATION:PT0S, no DTEND", () => {
    const instant = { ...info.series[10], end: "2027-01-05 19:00:00" };
    const text = seriesCalendar([{ ...record(10, "2027-01-05 19:00:00"), end_date: "2027-01-05 19:00:00" }], { members: { 10: info.members[10] }, series: { 10: instant } });
    const master = text.split("BEGIN:VEVENT")[1];
    expect(master).toContain("DURATION:PT0S");
    expect(master).not.toContain("DTEND");
  });
});
