/**
 * C58: every record type that carries `modified` writes it one way — `modified` in the site's time zone,
 * `modified_utc` in UTC — on create, update and delete (trash). The site here is five and a half hours
 * ahead of UTC all year (no daylight saving), so the two fields differ on every write.
 */
import moment from "moment-timezone";
import { startService, Running } from "../helpers/harness";
import { createEvent } from "../helpers/events";
import type { Json } from "../helpers/json";

const ZONE = "Asia/Kolkata";
const FORMAT = "YYYY-MM-DD HH:mm:ss";

/** `modified` is `modified_utc` read in the site zone, and both are of the write (within a minute of now). */
function expectSiteTime(record: Json): void {
  expect(typeof record.modified_utc).toBe("string");
  expect(record.modified).toBe(moment.utc(record.modified_utc, FORMAT, true).tz(ZONE).format(FORMAT));
  expect(record.modified).not.toBe(record.modified_utc);
  expect(Math.abs(moment.utc(record.modified_utc, FORMAT, true).diff(moment.utc(), "seconds"))).toBeLessThan(60);
}

describe("modified in site time, modified_utc in UTC (C58)", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ SITE_TIMEZONE: ZONE }); });
  afterAll(async () => { await svc.stop(); });

  test("events: create, update, delete, and the ticket state", async () => {
    const ev = await createEvent(svc, { title: "Modified" });
    expectSiteTime(ev);
    const updated = await svc.request("POST", `/events/${ev.id}`, { as: "admin", body: { title: "Modified again" } });
    expect(updated.status).toBe(200);
    expectSiteTime(updated.body);
    const ticketed: Json = await svc.broker.call("events.setTicketed", { id: ev.id, ticketed: true });
    expectSiteTime(ticketed);
    const trashed = await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" });
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe("trash");
    expectSiteTime(trashed.body);
  });

  for (const [plural, nameField] of [["venues", "venue"], ["organizers", "organizer"]] as const) {
    test(`${plural}: create, update, delete`, async () => {
      const created = await svc.request("POST", `/${plural}`, { as: "admin", body: { [nameField]: `Modified ${plural}` } });
      expect(created.status).toBe(201);
      expectSiteTime(created.body);
      const updated = await svc.request("POST", `/${plural}/${created.body.id}`, { as: "admin", body: { description: "Changed" } });
      expect(updated.status).toBe(200);
      expectSiteTime(updated.body);
      const trashed = await svc.request("DELETE", `/${plural}/${created.body.id}`, { as: "admin" });
      expect(trashed.status).toBe(200);
      expect(trashed.body.status).toBe("trash");
      expectSiteTime(trashed.body);
    });
  }
});
