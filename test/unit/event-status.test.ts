/**
 * The event-status rules alone (lib/events/event-status.ts, domain/events/event-status-rule.ts): stored
 * fields and defaults, the online URL's combination, the previous start, the list filters' queries, the
 * JSON-LD and iCalendar mappings, the series groups, and what a TEC-type import keeps.
 */
import {
  checkAttendance, icsStatus, isOnlineUrl, previousStartFields, statusInputFields, statusJsonLd, statusRecordFields
} from "../../lib/events/event-status";
import { eventStatusWrite } from "../../domain/events/event-status-rule";
import { buildEventQuery } from "../../lib/events/event-query";
import { groupsOfWrite } from "../../lib/events/series";
import { eventInput } from "../../lib/imports/tec";
import { eventLines } from "../../lib/events/ics-answer";
import { ApiError } from "../../lib/errors";

describe("stored fields", () => {
  test("a create stores the defaults; an update only what it sends", () => {
    expect(statusInputFields({}, true)).toEqual({ event_status: "scheduled", event_status_reason: "", attendance_mode: "offline", online_url: null });
    expect(statusInputFields({}, false)).toEqual({});
    expect(statusInputFields({ event_status: "canceled", event_status_reason: "  Rain ", online_url: "" }, false))
      .toEqual({ event_status: "canceled", event_status_reason: "Rain", online_url: null });
    expect(statusInputFields({ online_url: " https://x.example/a b" }, false).online_url).toMatch(/^https:\/\/x\.example\/a/);
  });

  test("the record's defaults for an event that stores none", () => {
    expect(statusRecordFields({}, undefined)).toEqual({ event_status: "scheduled", event_status_reason: "", previous_start_date: null, attendance_mode: "offline", online_url: null });
    // the previous start shows only while the event is rescheduled; a translated reason wins
    expect(statusRecordFields({ event_status: "canceled", previous_start_date: "2030-01-01 10:00:00", event_status_reason: "Rain" }, "Pluie"))
      .toMatchObject({ previous_start_date: null, event_status_reason: "Pluie" });
    expect(statusRecordFields({ event_status: "rescheduled", previous_start_date: "2030-01-01 10:00:00" }, undefined).previous_start_date).toBe("2030-01-01 10:00:00");
  });

  test("online URLs: http and https only, empty clears", () => {
    for (const ok of ["https://meet.example.org/x", "http://a.example", ""]) expect(isOnlineUrl(ok)).toBe(true);
    for (const bad of ["ftp://a.example", "meet.example.org", "javascript:alert(1)", 12, null, "https://"]) expect(isOnlineUrl(bad)).toBe(false);
  });
});

describe("the combination", () => {
  test("online and mixed need a URL, from the write or the stored event", () => {
    expect(checkAttendance({ attendance_mode: "online" }, undefined)).toEqual({ online_url: { key: "param.required" } });
    expect(checkAttendance({ attendance_mode: "mixed", online_url: "" }, undefined)).toHaveProperty("online_url");
    expect(checkAttendance({ attendance_mode: "mixed", online_url: "https://a.example" }, undefined)).toEqual({});
    expect(checkAttendance({ attendance_mode: "online" }, { online_url: "https://a.example" })).toEqual({});
    expect(checkAttendance({ online_url: "" }, { attendance_mode: "online", online_url: "https://a.example" })).toHaveProperty("online_url");
    expect(checkAttendance({ online_url: "" }, { attendance_mode: "offline" })).toEqual({});
  });

  test("the writer's rule throws the 400 naming online_url, and keeps the previous start", () => {
    expect(() => eventStatusWrite({ attendance_mode: "online" }, undefined, "2030-01-01 10:00:00", "UTC")).toThrow(ApiError);
    try {
      eventStatusWrite({ online_url: "" }, { attendance_mode: "mixed", online_url: "https://a.example" }, "2030-01-01 10:00:00", "UTC");
      throw new Error("not refused");
    } catch (err) {
      expect((err as ApiError).type).toBe("rest_invalid_param");
      expect(Object.keys((err as ApiError).data.params as object)).toEqual(["online_url"]);
    }
    // an update that sends nothing of the combination is not checked again
    expect(eventStatusWrite({ title: "x" }, { attendance_mode: "online" }, "2030-01-01 10:00:00", "UTC")).toEqual({});
    expect(eventStatusWrite({ event_status: "rescheduled" }, { event_status: "scheduled", utc_start_date: "2030-01-01 09:00:00" }, "2030-01-08 09:00:00", "Europe/Rome"))
      .toEqual({ event_status: "rescheduled", previous_start_date: "2030-01-01 10:00:00", previous_utc_start_date: "2030-01-01 09:00:00" });
  });

  test("the previous start: only a rescheduled event whose start instant moved", () => {
    const before = { utc_start_date: "2030-06-01 18:00:00" };
    expect(previousStartFields("rescheduled", before, "2030-06-08 18:00:00", "Europe/Rome")).toEqual({ previous_start_date: "2030-06-01 20:00:00", previous_utc_start_date: "2030-06-01 18:00:00" });
    expect(previousStartFields("rescheduled", before, "2030-06-01 18:00:00", "UTC")).toEqual({});
    expect(previousStartFields("postponed", before, "2030-06-08 18:00:00", "UTC")).toEqual({});
    expect(previousStartFields("rescheduled", undefined, "2030-06-08 18:00:00", "UTC")).toEqual({});
  });
});

describe("list filters", () => {
  const base = { statuses: ["publish"], bounds: {}, searchAccess: "all" as const };
  test("values as asked; the default also matches events that store none", () => {
    const q = JSON.stringify(buildEventQuery({ ...base, eventStatus: ["canceled", "postponed"], attendanceMode: ["offline"] }));
    expect(q).toContain(JSON.stringify({ event_status: { $in: ["canceled", "postponed"] } }));
    expect(q).toContain(JSON.stringify({ attendance_mode: { $in: ["offline", null] } }));
    expect(JSON.stringify(buildEventQuery({ ...base, eventStatus: ["scheduled"] }))).toContain(JSON.stringify({ event_status: { $in: ["scheduled", null] } }));
    expect(JSON.stringify(buildEventQuery(base))).not.toContain("event_status");
  });
});

describe("where the status goes", () => {
  const place = { "@type": "Place", name: "Hall", address: { "@type": "PostalAddress", addressLocality: "Trieste" } };
  const src = (over: Record<string, unknown>) => ({ event_status: "scheduled", attendance_mode: "offline", online_url: null, timezone: "Europe/Rome", ...over });
  test("JSON-LD: schema.org values, the location by attendance mode, previousStartDate with the event's offset", () => {
    expect(statusJsonLd(src({}), place)).toEqual({ eventStatus: "https://schema.org/EventScheduled", eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode", location: place });
    expect(statusJsonLd(src({ event_status: "canceled" }), undefined)).toEqual({ eventStatus: "https://schema.org/EventCancelled", eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode" });
    expect(statusJsonLd(src({ event_status: "moved_online", attendance_mode: "online", online_url: "https://a.example" }), place).location).toEqual({ "@type": "VirtualLocation", url: "https://a.example" });
    expect(statusJsonLd(src({ attendance_mode: "mixed", online_url: "https://a.example" }), place).location).toEqual([place, { "@type": "VirtualLocation", url: "https://a.example" }]);
    // a blanked URL (protected event): no VirtualLocation
    expect(statusJsonLd(src({ attendance_mode: "mixed", online_url: null }), place).location).toEqual(place);
    expect(statusJsonLd(src({ event_status: "rescheduled", previous_utc_start_date: "2030-06-01 18:00:00" }), place).previousStartDate).toBe("2030-06-01T20:00:00+02:00");
    expect(statusJsonLd(src({ event_status: "postponed", previous_utc_start_date: "2030-06-01 18:00:00" }), place)).not.toHaveProperty("previousStartDate");
  });

  test("iCalendar STATUS and CONFERENCE", () => {
    expect(icsStatus("canceled", "publish")).toBe("CANCELLED");
    expect(icsStatus("postponed", "publish")).toBe("TENTATIVE");
    expect(icsStatus("rescheduled", "publish")).toBe("CONFIRMED");
    expect(icsStatus(undefined, "publish")).toBe("CONFIRMED");
    expect(icsStatus("canceled", "draft")).toBe("CANCELLED");
    expect(icsStatus("scheduled", "draft")).toBe("TENTATIVE");
    const lines = eventLines({ id: 1, title: "T", status: "publish", event_status: "canceled", online_url: "https://a.example/j", start_date: "2030-01-01 10:00:00",
      end_date: "2030-01-01 11:00:00", utc_start_date: "2030-01-01 10:00:00", utc_end_date: "2030-01-01 11:00:00", timezone: "UTC" }, "h");
    expect(lines).toContain("STATUS:CANCELLED");
    expect(lines).toContain("CONFERENCE;VALUE=URI:https://a.example/j");
  });

  test("a series' occurrences override the status, the reason and the attendance as groups of their own", () => {
    expect(groupsOfWrite({ event_status: "canceled" })).toEqual(["event_status"]);
    expect(groupsOfWrite({ event_status_reason: "x", attendance_mode: "online", online_url: "https://a.example" }).sort()).toEqual(["attendance", "event_status_reason"]);
  });

  test("a TEC-type import keeps the fields its source answers; previous_start_date stays the service's", () => {
    const maps = { categories: new Map(), tags: new Map(), venues: new Map(), organizers: new Map() };
    const input = eventInput({ id: 1, title: "T", event_status: "postponed", event_status_reason: "Rain", attendance_mode: "mixed",
      online_url: "https://a.example", previous_start_date: "2030-01-01 10:00:00" }, maps);
    expect(input).toMatchObject({ event_status: "postponed", event_status_reason: "Rain", attendance_mode: "mixed", online_url: "https://a.example" });
    expect(input).not.toHaveProperty("previous_start_date");
    // a source that answers none of them (The Events Calendar itself) sends none
    expect(eventInput({ id: 2, title: "U", online_url: null }, maps)).not.toHaveProperty("online_url");
  });
});
