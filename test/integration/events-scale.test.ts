/**
 * The events list at scale (docs/lists.md#events-list, C30): with 10 000 events in the embedded store, a list page
 * is answered from the listing index (lib/events/listing-index.ts) and reads from the store only the
 * documents of the page, never every upcoming event.
 *
 * The events are seeded straight into the events service's store (no HTTP); the NeDB datastore's
 * candidate selection (`_getRawCandidates`, the step before documents are matched) is wrapped to count
 * how many documents each query examines, and the store's `findByIds` to count the documents read by id. (On MongoDB the list is a store query on its indexes; there
 * is no MongoDB server here to measure it.)
 */
import moment from "moment-timezone";
import { startService, Running } from "../helpers/harness";
import { eventsService, ids } from "../helpers/events";

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
    categories: [], tags: [], venues: [], organizers: [], post_parent: 0, post_password: "", lang: "en"
  };
}

describe("events: the list at 10 000 events is an indexed query", () => {
  let svc: Running;
  let examined: number[] = [];
  let read = 0;
  const docs = Array.from({ length: N }, (_, i) => seedDoc(i));

  beforeAll(async () => {
    svc = await startService();
    const service = eventsService(svc);
    await service.store.insert(docs);
    const datastore = service.adapter.db;
    const original = datastore._getRawCandidates.bind(datastore);
    datastore._getRawCandidates = (query: unknown) => {
      const found = original(query);
      examined.push(found.length);
      return found;
    };
    const byIds = service.store.findByIds;
    service.store.findByIds = async (wanted: number[]) => {
      const found = await byIds(wanted);
      read += found.length;
      return found;
    };
  });
  afterAll(async () => { await svc.stop(); });

  /** Runs a list request; answers the largest candidate set any store query of it examined, and the documents it read by id. */
  async function measured(query: string, as?: "admin") {
    examined = [];
    read = 0;
    const res = await svc.get(`/events?${query}`, as);
    expect(res.status).toBe(200);
    return { res, max: Math.max(0, ...examined), read };
  }

  const expected = (keep: (d: ReturnType<typeof seedDoc>) => boolean) => docs.filter(d => keep(d) && !d.hide_from_listings);

  test("featured events in one week: right answer, fewer than 2 000 documents examined", async () => {
    const { res, max, read } = await measured("featured=true&start_date=2027-03-01&end_date=2027-03-07&per_page=50");
    const want = expected(d => d.featured && d.status === "publish" && d.start_date >= "2027-03-01 00:00:00" && d.end_date <= "2027-03-07 23:59:59");
    expect(want.length).toBeGreaterThan(0);
    expect(res.body.total).toBe(want.length);
    expect(ids(res)).toEqual(want.map(d => d._id));
    expect(max).toBeLessThan(2_000);
    expect(max).toBeLessThanOrEqual(100);
    expect(read).toBe(want.length);
  });

  test("the default list (every upcoming event): the right page and total, only the page's documents read", async () => {
    const { res, max, read } = await measured("per_page=10");
    const from = moment.utc().subtract(1, "day").startOf("day").format("YYYY-MM-DD HH:mm:ss");
    const to = moment.utc().add(24, "months").endOf("day").format("YYYY-MM-DD HH:mm:ss");
    const want = expected(d => d.status === "publish" && d.start_date >= from && d.end_date <= to);
    expect(want.length).toBeGreaterThan(1_000);
    expect(res.body.total).toBe(want.length);
    expect(ids(res)).toEqual(want.slice(0, 10).map(d => d._id));
    expect(max).toBeLessThanOrEqual(10);
    expect(read).toBe(10);
  });

  test("a strict window of a few hours, every status for an editor", async () => {
    const { res, max } = await measured("start_date=2027-06-01T00:00:00&end_date=2027-06-01T12:00:00&strict_dates=1", "admin");
    const want = expected(d => d.start_date >= "2027-06-01 00:00:00" && d.end_date <= "2027-06-01 12:00:00");
    expect(ids(res)).toEqual(want.map(d => d._id));
    expect(max).toBeLessThan(50);
  });

  test("starts_after / starts_before and ends_* ranges are index ranges too", async () => {
    const a = await measured("starts_after=2027-08-01&starts_before=2027-08-03");
    expect(a.res.body.total).toBe(expected(d => d.status === "publish" && d.start_date > "2027-08-01 23:59:59" && d.start_date < "2027-08-03 23:59:59").length);
    expect(a.max).toBeLessThan(50);
    const b = await measured("ends_after=2028-02-01&ends_before=2028-02-02");
    expect(b.res.body.total).toBe(expected(d => d.status === "publish" && d.end_date > "2028-02-01 23:59:59" && d.end_date < "2028-02-02 23:59:59").length);
    expect(b.max).toBeLessThan(50);
  });

  test("include reads only the ids asked for", async () => {
    const { res, max } = await measured(`include=${FIRST_ID + 1},${FIRST_ID + 2},${FIRST_ID + 3}`);
    expect(ids(res)).toEqual([FIRST_ID + 1, FIRST_ID + 2, FIRST_ID + 3]);
    expect(max).toBeLessThanOrEqual(3);
  });

  test("a deep page of a narrow window", async () => {
    const { res, max } = await measured("start_date=2027-04-01&end_date=2027-04-30&per_page=5&page=3");
    const want = expected(d => d.status === "publish" && d.start_date >= "2027-04-01 00:00:00" && d.end_date <= "2027-04-30 23:59:59");
    expect(res.body.total).toBe(want.length);
    expect(ids(res)).toEqual(want.slice(10, 15).map(d => d._id));
    expect(max).toBeLessThan(2_000);
  });
});
