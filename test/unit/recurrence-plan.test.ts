/**
 * lib/recurrence/plan.ts: which stored occurrences keep their ids after a change (C53: occurrence identity, exceptions and scope), which are removed
 * and which are created; the scope edits (EXDATE for `this` deletes, split for `following`).
 */
import { parseRecurrence, formatRecurrence } from "../../lib/recurrence/rule";
import { expandSeries } from "../../lib/recurrence/expand";
import { planOccurrences, reanchor, splitRecurrence, withExdate, withoutExdate, moveDates, StoredOccurrence } from "../../lib/recurrence/plan";
import { Occurrence, Series, SeriesContext } from "../../lib/recurrence/types";
import { icalExpand, seriesCalendar } from "./recurrence-ical";

const HORIZON = "2029-01-01 00:00:00";

function series(ctx: SeriesContext, end: string, lines: string[]): Series {
  return { ...ctx, end, recurrence: parseRecurrence(lines, ctx, HORIZON) };
}

/** Stored rows of an expansion, ids `o1`, `o2`… */
function stored(list: readonly Occurrence[]): StoredOccurrence<string>[] {
  return list.map((o, i) => ({ id: `o${i + 1}`, identity: o.identity }));
}

const rome: SeriesContext = { zone: "Europe/Rome", allDay: false, start: "2027-03-02 19:00:00" };

describe("planOccurrences", () => {
  const before = expandSeries(series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6"]), HORIZON);
  const rows = stored(before); // TU 2, TH 4, TU 9, TH 11, TU 16, TH 18 March

  test("nothing changed: every id kept, nothing created or removed", () => {
    const plan = planOccurrences(rows, before);
    expect(plan.create).toEqual([]);
    expect(plan.remove).toEqual([]);
    expect(plan.keep.map(k => k.id)).toEqual(["o1", "o2", "o3", "o4", "o5", "o6"]);
    expect(plan.keep.some(k => k.changed)).toBe(false);
  });

  test("a duration change keeps identities; `changed` says which stored times differ", () => {
    const longer = expandSeries(series(rome, "2027-03-02 21:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6"]), HORIZON);
    const withTimes = before.map((o, i) => ({ id: `o${i + 1}`, identity: o.identity, start: o.start, end: o.end }));
    const plan = planOccurrences(withTimes, longer);
    expect(plan.keep.map(k => [k.id, k.changed, k.occurrence.end.slice(11)])).toEqual(withTimes.map(r => [r.id, true, "21:00:00"]));
    expect(planOccurrences(rows, longer).keep.some(k => k.changed)).toBe(false);
  });

  test("a rule change keeps the ids of surviving occurrences, removes and creates the others", () => {
    const after = expandSeries(series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU,FR;COUNT=6"]), HORIZON);
    const plan = planOccurrences(rows, after);
    expect(plan.keep.map(k => [k.id, k.occurrence.identity])).toEqual([
      ["o1", "2027-03-02 19:00:00"], ["o3", "2027-03-09 19:00:00"], ["o5", "2027-03-16 19:00:00"],
    ]);
    expect(plan.remove.map(r => r.id)).toEqual(["o2", "o4", "o6"]);
    expect(plan.create.map(o => o.identity)).toEqual(["2027-03-05 19:00:00", "2027-03-12 19:00:00", "2027-03-19 19:00:00"]);
  });

  test("a time change keeps every id (same days), with the new times", () => {
    const ctx = { ...rome, start: "2027-03-02 20:30:00" };
    const after = expandSeries(series(ctx, "2027-03-02 21:30:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6"]), HORIZON);
    const plan = planOccurrences(rows, after);
    expect(plan.create).toEqual([]);
    expect(plan.remove).toEqual([]);
    expect(plan.keep.map(k => [k.id, k.previous, k.occurrence.start, k.changed])).toEqual(before.map((o, i) => [`o${i + 1}`, o.identity, o.identity.replace("19:00", "20:30"), true]));
  });

  test("a move of the whole series by a day maps each occurrence to the moved one", () => {
    const ctx = { ...rome, start: "2027-03-03 19:00:00" };
    const after = expandSeries(series(ctx, "2027-03-03 20:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=WE,FR;COUNT=6"]), HORIZON);
    const plan = planOccurrences(rows, after, { move: { from: rome.start, to: ctx.start } });
    expect(plan.create).toEqual([]);
    expect(plan.remove).toEqual([]);
    expect(plan.keep.map(k => k.id)).toEqual(["o1", "o2", "o3", "o4", "o5", "o6"]);
    // Without the move, the days differ and nothing survives.
    const blind = planOccurrences(rows, after);
    expect(blind.keep).toEqual([]);
    expect(blind.remove).toHaveLength(6);
    expect(blind.create).toHaveLength(6);
  });

  test("the horizon moving forward creates the new occurrences only", () => {
    const s = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY"]);
    const first = expandSeries(s, "2027-04-01 00:00:00");
    const plan = planOccurrences(stored(first), expandSeries(s, "2027-05-01 00:00:00"));
    expect(plan.remove).toEqual([]);
    expect(plan.keep).toHaveLength(first.length);
    expect(plan.create.map(o => o.start.slice(0, 10))).toEqual(["2027-04-06", "2027-04-13", "2027-04-20", "2027-04-27"]);
  });

  test("an EXDATE added removes that occurrence only", () => {
    const s = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6", "EXDATE;TZID=Europe/Rome:20270309T190000"]);
    const plan = planOccurrences(rows, expandSeries(s, HORIZON));
    expect(plan.remove).toEqual([{ id: "o3", identity: "2027-03-09 19:00:00" }]);
    expect(plan.create).toEqual([]);
  });

  test("two occurrences on one day map in time order when the time changes", () => {
    const base = series(rome, "2027-03-02 20:00:00", ["RDATE;TZID=Europe/Rome:20270302T220000"]);
    const old = stored(expandSeries(base, HORIZON));
    const moved = series({ ...rome, start: "2027-03-02 18:00:00" }, "2027-03-02 19:00:00", ["RDATE;TZID=Europe/Rome:20270302T210000"]);
    const plan = planOccurrences(old, expandSeries(moved, HORIZON));
    expect(plan.keep.map(k => [k.id, k.occurrence.identity])).toEqual([["o1", "2027-03-02 18:00:00"], ["o2", "2027-03-02 21:00:00"]]);
  });
});

describe("EXDATE for scope=this deletes, and restore", () => {
  test("adds and removes the identity; the first start may be excluded", () => {
    const s = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;COUNT=3"]);
    const excluded = withExdate(withExdate(s.recurrence, "2027-03-02 19:00:00"), "2027-03-02 19:00:00");
    expect(formatRecurrence(excluded, rome.zone, false)).toEqual(["RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=Europe/Rome:20270302T190000"]);
    expect(expandSeries({ ...s, recurrence: excluded }, HORIZON).map(o => o.start)).toEqual(["2027-03-09 19:00:00", "2027-03-16 19:00:00"]);
    const restored = withoutExdate(excluded, "2027-03-02 19:00:00");
    expect(formatRecurrence(restored, rome.zone, false)).toEqual(["RRULE:FREQ=WEEKLY;COUNT=3"]);
  });

  test("moveDates keeps EXDATEs on the occurrences they named", () => {
    const s = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Rome:20270309T190000"]);
    const moved = moveDates(s.recurrence, rome.start, "2027-03-02 21:15:00");
    expect(moved.exdates).toEqual(["2027-03-09 21:15:00"]);
    expect(expandSeries({ ...s, start: "2027-03-02 21:15:00", end: "2027-03-02 22:15:00", recurrence: moved }, HORIZON)).toHaveLength(3);
  });
});

describe("reanchor (an update of the series' start, zone or all-day flag)", () => {
  test("timed → all-day → timed keeps UNTIL's last day and the EXDATEs on their occurrences", () => {
    const timed: SeriesContext = { zone: "Europe/Rome", allDay: false, start: "2027-03-02 19:00:00" };
    const day: SeriesContext = { zone: "Europe/Rome", allDay: true, start: "2027-03-02 00:00:00" };
    const s = series(timed, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;UNTIL=20270330T180000Z", "EXDATE;TZID=Europe/Rome:20270316T190000"]);
    const asDay = reanchor(s.recurrence, timed, day);
    expect(formatRecurrence(asDay, day.zone, true)).toEqual(["RRULE:FREQ=WEEKLY;UNTIL=20270330", "EXDATE;VALUE=DATE:20270316"]);
    expect(expandSeries({ ...day, end: "2027-03-02 23:59:59", recurrence: asDay }, HORIZON)).toHaveLength(4);
    const ny: SeriesContext = { zone: "America/New_York", allDay: false, start: "2027-03-02 08:30:00" };
    const back = reanchor(asDay, day, ny);
    expect(formatRecurrence(back, ny.zone, false)).toEqual(["RRULE:FREQ=WEEKLY;UNTIL=20270331T035959Z", "EXDATE;TZID=America/New_York:20270316T083000"]);
    expect(expandSeries({ ...ny, end: "2027-03-02 09:30:00", recurrence: back }, HORIZON).map(o => o.start.slice(0, 10)))
      .toEqual(["2027-03-02", "2027-03-09", "2027-03-23", "2027-03-30"]);
  });
});

describe("splitRecurrence (scope=following)", () => {
  /** The two halves' occurrences together are the whole series' (our expander and ical.js). */
  function expectSplitCovers(s: Series, at: string): { before: Series; after: Series } {
    const split = splitRecurrence(s, at);
    if (!split) throw new Error("no split");
    const whole = expandSeries(s, HORIZON);
    const atOccurrence = whole.find(o => o.identity === at);
    if (!atOccurrence) throw new Error(`${at} is no occurrence`);
    const before: Series = { ...s, recurrence: split.before };
    const after: Series = { ...s, start: at, end: atOccurrence.end, recurrence: split.after };
    const parts = [...expandSeries(before, HORIZON), ...expandSeries(after, HORIZON)];
    expect(parts.map(o => o.identity)).toEqual(whole.map(o => o.identity));
    expect(expandSeries(before, HORIZON).every(o => o.identity < at)).toBe(true);
    for (const half of [before, after]) {
      const reparsed = parseRecurrence(formatRecurrence(half.recurrence, half.zone, half.allDay), half, HORIZON);
      const ours = expandSeries({ ...half, recurrence: reparsed }, HORIZON);
      expect(icalExpand(seriesCalendar({ ...half, recurrence: reparsed }), HORIZON, half.allDay).map(o => o.identity)).toEqual(ours.map(o => o.identity));
    }
    return { before, after };
  }

  test("COUNT: the old rule ends with UNTIL just before, the new one keeps what is left", () => {
    const s = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10", "EXDATE;TZID=Europe/Rome:20270304T190000,20270325T190000"]);
    const { before, after } = expectSplitCovers(s, "2027-03-16 19:00:00");
    expect(formatRecurrence(before.recurrence, rome.zone, false)).toEqual([
      "RRULE:FREQ=WEEKLY;UNTIL=20270316T175959Z;BYDAY=TU,TH", "EXDATE;TZID=Europe/Rome:20270304T190000",
    ]);
    expect(formatRecurrence(after.recurrence, rome.zone, false)).toEqual([
      "RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TU,TH", "EXDATE;TZID=Europe/Rome:20270325T190000",
    ]);
  });

  test("UNTIL and unbounded rules, across the DST change; RDATEs go to their side", () => {
    const s = series({ zone: "America/New_York", allDay: false, start: "2027-03-01 09:00:00" }, "2027-03-01 10:00:00", [
      "RRULE:FREQ=WEEKLY;UNTIL=20270501T000000Z", "RDATE;TZID=America/New_York:20270303T120000,20270420T120000",
    ]);
    const { after } = expectSplitCovers(s, "2027-03-22 09:00:00");
    expect(after.recurrence.rdates).toEqual(["2027-04-20 12:00:00"]);
    const unbounded = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=MONTHLY;BYDAY=1TU"]);
    expectSplitCovers(unbounded, "2027-06-01 19:00:00");
  });

  test("an RDATE as the split point: the new first start when the rule has ended, refused while it goes on", () => {
    const ended = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;COUNT=2", "RDATE;TZID=Europe/Rome:20270312T100000,20270320T100000"]);
    const { before, after } = expectSplitCovers(ended, "2027-03-12 10:00:00");
    expect(after.recurrence).toEqual({ rule: null, rdates: ["2027-03-20 10:00:00"], exdates: [] });
    expect(before.recurrence.rdates).toEqual([]);
    const goesOn = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;COUNT=4", "RDATE;TZID=Europe/Rome:20270312T100000"]);
    let caught: unknown;
    try {
      splitRecurrence(goesOn, "2027-03-12 10:00:00");
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 400, type: "rest_invalid_param", data: { params: { scope: { vars: { reason: "following_on_added_date" } } } } });
  });

  test("all-day: the old rule ends the day before", () => {
    const ctx: SeriesContext = { zone: "Europe/Rome", allDay: true, start: "2027-03-06 00:00:00" };
    const s = series(ctx, "2027-03-06 23:59:59", ["RRULE:FREQ=WEEKLY;BYDAY=SA,SU;COUNT=8"]);
    const { before, after } = expectSplitCovers(s, "2027-03-20 00:00:00");
    expect(formatRecurrence(before.recurrence, ctx.zone, true)).toEqual(["RRULE:FREQ=WEEKLY;UNTIL=20270319;BYDAY=SA,SU"]);
    expect(formatRecurrence(after.recurrence, ctx.zone, true)).toEqual(["RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=SA,SU"]);
  });

  test("following on the first occurrence is all (C53: occurrence identity, exceptions and scope): no split", () => {
    const s = series(rome, "2027-03-02 20:00:00", ["RRULE:FREQ=WEEKLY;COUNT=4"]);
    expect(splitRecurrence(s, rome.start)).toBeNull();
  });
});
