/**
 * Reads never write: every GET route of the route table (lib/http/routes.ts), driven through the
 * gateway as an anonymous caller and as an administrator, leaves the store unchanged. Among the records
 * is a `future` event whose date has passed (C13: read as published), a series behind its horizon, a
 * venue, an organizer and terms, so a read that published due events or planned a series would show here.
 *
 * How a write is seen: every service of the process shares one SQLite connection (DATA_DIR=:memory:),
 * and SQLite's `total_changes()` counts the rows every INSERT, UPDATE and DELETE of that connection
 * changed. It is read before and after each GET; nothing is patched. SQLite only: PostgreSQL has no
 * such count per database that other test runs on the same server leave alone.
 *
 * The stored renderings are the one thing a read may write (docs/caching.md#stored-renderings: the read
 * that computes an answer keeps it). The count is taken with them off; with them on, every other table
 * reads the same before and after each GET.
 */
import { startService, Running, succeed } from "../helpers/harness";
import { createEvent } from "../helpers/events";
import { ROUTES } from "../../lib/http/routes";
import type { SqlDriver } from "../../store/sql/driver";
import type { Json } from "../helpers/json";
import { settings, useSettings } from "../../lib/settings";

/** The tables of the stored renderings (store/sql/renderings.ts): a read that computes an answer keeps it there. */
const RENDERING_TABLES = ["renderings", "rendering_marks", "rendering_variants"];

const sqlite = process.env.TEST_STORE !== "postgres";
const maybe = sqlite ? describe : describe.skip;

maybe("reads never write", () => {
  let svc: Running;
  let driver: SqlDriver;
  let dueId = 0;
  /** A route path's concrete path, with the records made below (others: id 1, which answers an error). */
  const concrete: Record<string, string> = {};
  const pathOf = (routePath: string): string => concrete[routePath] ?? `/${routePath.replace(/:\w+/g, "1")}`;

  beforeAll(async () => {
    // no scheduled job runs while the reads are watched
    svc = await startService({ SERIES_JOB_MS: "0", DUE_EVENTS_JOB_MS: "0", STORED_RENDERINGS: "0" });
    driver = (svc.broker.getLocalService("events") as unknown as { storeHandle: { sql: SqlDriver } }).storeHandle.sql;
    const venue = await succeed(svc, "POST", "/venues", { venue: "Read Hall" });
    const organizer = await succeed(svc, "POST", "/organizers", { organizer: "Read Org" });
    const category = await succeed(svc, "POST", "/categories", { name: "Read Cat" });
    const tag = await succeed(svc, "POST", "/tags", { name: "Read Tag" });
    const due = await createEvent(svc, { title: "Due read", date: "+1 day", venue: venue.id, organizer: organizer.id, categories: [category.id], tags: [tag.id] });
    expect(due.status).toBe("future");
    // its date passes without a write of the service (C13: a due `future` post counts as published)
    const events = svc.broker.getLocalService("events") as unknown as { store: { updateOne(q: Json, u: Json): Promise<unknown> } };
    await events.store.updateOne({ _id: due.id }, { $set: { date_utc: "2020-01-01 00:00:00", date: "2020-01-01 00:00:00" } });
    const series = await createEvent(svc, { title: "Read series", start_date: "2030-01-06 10:00:00", end_date: "2030-01-06 11:00:00", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] });
    // and its series falls behind its horizon (as when the job has not run for days): a read must not plan it
    await events.store.updateOne({ _id: series.id }, { $set: { series_horizon: "2000-01-01 00:00:00" } });
    Object.assign(concrete, {
      "events/:id": `/events/${due.id}`, "events/by-slug/:slug": `/events/by-slug/${due.slug}`, "events/:id/occurrences": `/events/${series.id}/occurrences`,
      "venues/:id": `/venues/${venue.id}`, "venues/by-slug/:slug": `/venues/by-slug/${venue.slug}`,
      "organizers/:id": `/organizers/${organizer.id}`, "organizers/by-slug/:slug": `/organizers/by-slug/${organizer.slug}`,
      "categories/:id": `/categories/${category.id}`, "tags/:id": `/tags/${tag.id}`
    });
    dueId = due.id;
  });
  afterAll(async () => { await svc?.stop(); });

  const changes = async (): Promise<number> => Number((await driver.all<{ n: number }>("SELECT total_changes() AS n"))[0].n);

  const gets = ROUTES.filter(r => r.endpoints.some(e => e.methods.includes("GET")));

  test.each(gets.map(r => [r.path || "(index)", r.path]))("GET %s writes nothing", async (_name, routePath) => {
    const answered: number[] = [];
    for (const as of [undefined, "admin"] as const) {
      for (const query of ["", "?status[]=publish&status[]=future&per_page=50", "?context=edit"]) {
        const asked = `${as ?? "anonymous"} GET ${pathOf(routePath)}${query}`;
        const before = await changes();
        // experimental routes answer only those who opt in (docs/api-policy.md#experimental-routes)
        answered.push((await svc.request("GET", `${svc.ns}${pathOf(routePath)}${query}`, { as, headers: { "X-Calendar-Experimental": "1" } })).status);
        expect([asked, await changes()]).toEqual([asked, before]);
      }
    }
    // the route was served (not refused before any handler ran) at least once
    expect(answered.some(status => status < 400) || routePath.includes(":")).toBe(true);
  });

  test("with the stored renderings on, a GET of every route writes nothing but renderings", async () => {
    const storedOn = (on: boolean) => useSettings({ ...settings(), storedRenderings: on });
    const tables = (await driver.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"))
      .map(t => t.name).filter(name => !RENDERING_TABLES.includes(name));
    const contents = async () => {
      const out: Record<string, unknown> = {};
      for (const name of tables) out[name] = await driver.all(`SELECT * FROM "${name}" ORDER BY rowid`).catch(() => driver.all(`SELECT * FROM "${name}"`));
      return JSON.stringify(out);
    };
    const rendered = async () => Number((await driver.all<{ n: number }>("SELECT count(*) AS n FROM renderings"))[0].n);
    storedOn(true);
    try {
      for (const route of gets) {
        for (const as of [undefined, "admin"] as const) {
          // the answers kept by the first test cleaned: the read reaches the services
          await svc.broker.cacher?.clean();
          const before = await contents();
          await svc.request("GET", `${svc.ns}${pathOf(route.path)}`, { as, headers: { "X-Calendar-Experimental": "1" } });
          expect([route.path, as, await contents()]).toEqual([route.path, as, before]);
        }
      }
      // and the reads did keep renderings: the check above watched a read that writes
      expect(await rendered()).toBeGreaterThan(0);
    } finally {
      storedOn(false);
    }
  });

  test("the due event reads as published, in its record and in the list", async () => {
    const one = await svc.get(`/events/${dueId}`);
    expect(one.status).toBe(200);
    expect(one.body.status).toBe("publish");
    const list = await svc.get("/events?start_date=2000-01-01&per_page=50");
    expect(list.body.events.map((e: Json) => e.id)).toContain(dueId);
    const futureOnly = await svc.get("/events?start_date=2000-01-01&status=future&per_page=50", "admin");
    expect(futureOnly.body.events.map((e: Json) => e.id)).not.toContain(dueId);
  });
});
