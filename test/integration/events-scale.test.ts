/**
 * The events list at scale (C30: speed targets): with 10 000 events in the embedded store (SQLite), a list page is one
 * query answered through an index of the events table, never a scan of every event.
 *
 * The events are seeded straight into the events service's store (no HTTP). Every statement the store
 * runs on the events table while a list is answered is captured (through the store's own driver object)
 * and its plan asked of SQLite (`EXPLAIN QUERY PLAN`): each must read the table through an index.
 * The right answer is checked against the seeded documents.
 */
import moment from "moment-timezone";
import { startService, Running } from "../helpers/harness";
import { eventsService, ids } from "../helpers/events";
import type { Param, SqlDriver } from "../../store/sql/driver";

const N = 10_000;
const FIRST_ID = 500_000;
const BASE = moment.utc("2027-01-01 00:00:00");
const db = (m: moment.Moment) => m.format("YYYY-MM-DD HH:mm:ss");

/** Event i: starts every 2 hours from 2027-01-01 (about 833 days), lasts 1 hour; every 10th featured; every 7th a draft. */
function seedDoc(i: number) {
  const start = BASE.clone().add(2 * i, "hours");
  const end = start.clone().add(1, "hour");
  const date = db(moment.utc("2026-01-01 00:00:00").add(i, "minutes"));
  return {
    _id: FIRST_ID + i, author: 1, status: i % 7 === 0 ? "draft" : "publish", date, date_utc: date, modified: date, modified_utc: date,
    title: `Seeded ${i}`, description: "", excerpt: "", slug: `seeded-${i}`, image: null,
    all_day: false, start_date: db(start), end_date: db(end), utc_start_date: db(start), utc_end_date: db(end), timezone: "UTC",
    cost: [], currency_symbol: "", currency_position: "", website: null, show_map: false, show_map_link: false,
    hide_from_listings: i % 50 === 0, sticky: false, featured: i % 10 === 0, ticketed: false,
    categories: [], tags: [], venues: [], organizers: [], post_parent: 0, post_password: "", lang: "en",
    // every 97th canceled and online; the others store no status (events written before it existed)
    ...(i % 97 === 5 ? { event_status: "canceled", attendance_mode: "online", online_url: "https://meet.example.org/x" } : {})
  };
}

interface PlanRow { detail: string }

describe("events: the list at 10 000 events is an indexed query", () => {
  let svc: Running;
  let captured: Array<{ sql: string; params: unknown[] }> = [];
  const docs = Array.from({ length: N }, (_, i) => seedDoc(i));
  let sql: SqlDriver;

  beforeAll(async () => {
    svc = await startService();
    const service = eventsService(svc);
    for (const doc of docs) await service.store.insert(doc);
    sql = service.storeHandle.sql as SqlDriver;
    const all = sql.all.bind(sql);
    sql.all = (<T>(text: string, params?: Param[]) => {
      if (/\bFROM events\b/.test(text)) captured.push({ sql: text, params: params ?? [] });
      return all<T>(text, params);
    }) as SqlDriver["all"];
  }, 120_000);
  afterAll(async () => { await svc.stop(); });

  /** Runs a list request; answers the plans of the store statements it ran on the events table. */
  async function measured(query: string, as?: "admin") {
    captured = [];
    const res = await svc.get(`/events?${query}`, as);
    expect(res.status).toBe(200);
    const statements = captured;
    captured = [];
    const plans: string[] = [];
    for (const st of statements) {
      const rows = await sql.all<PlanRow>(`EXPLAIN QUERY PLAN ${st.sql}`, st.params as Param[]);
      plans.push(rows.map(r => r.detail).join(" | "));
    }
    captured = [];
    expect(plans.length).toBeGreaterThan(0);
    return { res, plans };
  }

  /** Every plan reads the events table through an index (a bare "SCAN events" reads every row). */
  function indexed(plans: string[]) {
    for (const plan of plans) {
      expect(plan).toMatch(/(SEARCH|SCAN) events USING (COVERING )?INDEX|SEARCH events USING PRIMARY KEY/);
      expect(plan).not.toMatch(/SCAN events(?! USING)/);
    }
  }

  const expected = (keep: (d: ReturnType<typeof seedDoc>) => boolean) => docs.filter(d => keep(d) && !d.hide_from_listings);

  test("featured events in one week: right answer, read through an index", async () => {
    const { res, plans } = await measured("featured=true&start_date=2027-03-01&end_date=2027-03-07&per_page=50");
    const want = expected(d => d.featured && d.status === "publish" && d.start_date >= "2027-03-01 00:00:00" && d.end_date <= "2027-03-07 23:59:59");
    expect(want.length).toBeGreaterThan(0);
    expect(res.body.total).toBe(want.length);
    expect(ids(res)).toEqual(want.map(d => d._id));
    indexed(plans);
  });

  test("the default list (every upcoming event): the right page and total, read through an index", async () => {
    const { res, plans } = await measured("per_page=10");
    const from = moment.utc().subtract(1, "day").startOf("day").format("YYYY-MM-DD HH:mm:ss");
    const to = moment.utc().add(24, "months").endOf("day").format("YYYY-MM-DD HH:mm:ss");
    const want = expected(d => d.status === "publish" && d.start_date >= from && d.end_date <= to);
    expect(want.length).toBeGreaterThan(1_000);
    expect(res.body.total).toBe(want.length);
    expect(ids(res)).toEqual(want.slice(0, 10).map(d => d._id));
    indexed(plans);
  });

  test("a strict window of a few hours, every status for an editor", async () => {
    const { res, plans } = await measured("start_date=2027-06-01T00:00:00&end_date=2027-06-01T12:00:00&strict_dates=1", "admin");
    const want = expected(d => d.start_date >= "2027-06-01 00:00:00" && d.end_date <= "2027-06-01 12:00:00");
    expect(ids(res)).toEqual(want.map(d => d._id));
    indexed(plans);
  });

  test("starts_after / starts_before and ends_* ranges are index ranges too", async () => {
    const a = await measured("starts_after=2027-08-01&starts_before=2027-08-03");
    expect(a.res.body.total).toBe(expected(d => d.status === "publish" && d.start_date > "2027-08-01 23:59:59" && d.start_date < "2027-08-03 23:59:59").length);
    indexed(a.plans);
    const b = await measured("ends_after=2028-02-01&ends_before=2028-02-02");
    expect(b.res.body.total).toBe(expected(d => d.status === "publish" && d.end_date > "2028-02-01 23:59:59" && d.end_date < "2028-02-02 23:59:59").length);
    indexed(b.plans);
  });

  test("include reads only the ids asked for", async () => {
    const { res, plans } = await measured(`include=${FIRST_ID + 1},${FIRST_ID + 2},${FIRST_ID + 3}`);
    expect(ids(res)).toEqual([FIRST_ID + 1, FIRST_ID + 2, FIRST_ID + 3]);
    indexed(plans);
  });

  test("event_status and attendance_mode filters (events storing none count as the defaults): right answer, through an index", async () => {
    const from = moment.utc().subtract(1, "day").startOf("day").format("YYYY-MM-DD HH:mm:ss");
    const to = moment.utc().add(24, "months").endOf("day").format("YYYY-MM-DD HH:mm:ss");
    const upcoming = (d: ReturnType<typeof seedDoc>) => d.status === "publish" && d.start_date >= from && d.end_date <= to;
    const canceled = await measured("event_status=canceled&per_page=50");
    const wantCanceled = expected(d => upcoming(d) && d.event_status === "canceled");
    expect(wantCanceled.length).toBeGreaterThan(10);
    expect(canceled.res.body.total).toBe(wantCanceled.length);
    expect(ids(canceled.res)).toEqual(wantCanceled.slice(0, 50).map(d => d._id));
    indexed(canceled.plans);
    const offline = await measured("attendance_mode=offline&event_status=scheduled,postponed&per_page=5");
    const wantOffline = expected(d => upcoming(d) && d.event_status === undefined);
    expect(offline.res.body.total).toBe(wantOffline.length);
    expect(ids(offline.res)).toEqual(wantOffline.slice(0, 5).map(d => d._id));
    indexed(offline.plans);
  });

  test("a deep page of a narrow window", async () => {
    const { res, plans } = await measured("start_date=2027-04-01&end_date=2027-04-30&per_page=5&page=3");
    const want = expected(d => d.status === "publish" && d.start_date >= "2027-04-01 00:00:00" && d.end_date <= "2027-04-30 23:59:59");
    expect(res.body.total).toBe(want.length);
    expect(ids(res)).toEqual(want.slice(10, 15).map(d => d._id));
    indexed(plans);
  });
});
