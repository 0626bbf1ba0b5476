/**
 * Events written straight into a SQL store's tables through the store's own driver (its triggers keep the
 * links and the text indexes, as every write does), with the texts, dates and links bench/run.ts's seeding
 * gives them through the API: for the benches whose calendar is too large to seed through the API in the
 * time they have (bench/search.ts; bench/speed.ts past BENCH_API_UP_TO). The term counts are not moved.
 */
import { type Param, type SqlDriver } from "../store/sql/driver";

export interface Links { venues: number[]; organizers: number[]; categories: number[]; tags: number[] }

const SITE = 1;
const day = 86_400_000;
const dbDate = (t: number) => new Date(t).toISOString().slice(0, 19).replace("T", " ");

/** Event `i` as the service stores it (run.ts's texts, dates and links). */
function eventDoc(i: number, l: Links, now: number, created: string): Record<string, unknown> {
  const start = now + day + (i % 700) * day + (i % 24) * 3_600_000;
  const kind = i % 7 === 0 ? "jazz" : i % 11 === 0 ? "Café night" : "concert";
  const [s, e] = [dbDate(start), dbDate(start + 2 * 3_600_000)];
  return {
    author: 1, title: `Event ${i} ${kind}`, description: `Benchmark event number ${i} with music`, excerpt: "", image: null,
    categories: [l.categories[i % l.categories.length]], tags: [l.tags[i % l.tags.length]], venues: [l.venues[i % l.venues.length]], organizers: [l.organizers[i % l.organizers.length]],
    ticketed: false, post_parent: 0, post_password: "", show_map: false, show_map_link: false, hide_from_listings: false, sticky: false, featured: i % 10 === 0,
    website: null, cost: [], currency_symbol: "", currency_position: "", timezone: "UTC", all_day: false,
    start_date: s, end_date: e, utc_start_date: s, utc_end_date: e, status: "publish", date: created, date_utc: created, modified: created, modified_utc: created,
    slug: `event-${i}-${kind.toLowerCase().replace(/é/g, "e").replace(/ /g, "-")}`, lang: "en", translations: ["en"]
  };
}

/** Events `from` to `to` − 1 written into the store's tables, 500 to a statement, their ids past every post id (answered). */
export async function seedEvents(driver: SqlDriver, l: Links, from0: number, to: number, now = Date.now()): Promise<number[]> {
  const n = to - from0;
  const ids: number[] = [];
  const sqlite = driver.dialect === "sqlite";
  const [row] = await driver.all<{ m: number | string | null }>("SELECT MAX(id) AS m FROM post_types WHERE site = ?", [SITE]);
  const first = Number(row.m ?? 0) + 1;
  const created = dbDate(now);
  for (let from = 0; from < n; from += 500) {
    const count = Math.min(500, n - from);
    const params: Param[] = [];
    const types: Param[] = [];
    for (let k = 0; k < count; k++) {
      const i = from + k;
      params.push(SITE, first + i, JSON.stringify(eventDoc(from0 + i, l, now, created)));
      types.push(SITE, first + i);
      ids.push(first + i);
    }
    await driver.transaction(async tx => {
      await tx.run(`INSERT INTO post_types (site, id, type) VALUES ${Array.from({ length: count }, () => "(?, ?, 'event')").join(", ")}`, types);
      await tx.run(`INSERT INTO events (site, id, doc) VALUES ${Array.from({ length: count }, () => (sqlite ? "(?, ?, jsonb(?))" : "(?, ?, ?::jsonb)")).join(", ")}`, params);
    }, { unbounded: true });
    if ((from + count) % 10_000 === 0 || from + count === n) process.stderr.write(`\r  events ${from + count}/${n}${from + count === n ? "\n" : ""}`);
  }
  if (!sqlite) {
    // a sequence made before (the links' creates) starts past these ids
    const [seq] = await driver.all<{ name: string | null }>("SELECT to_regclass('seq_1_posts')::text AS name");
    if (seq?.name) await driver.run(`SELECT setval('seq_1_posts', ${first + n})`);
    await driver.run("VACUUM ANALYZE");
  } else {
    await driver.run("ANALYZE");
  }
  return ids;
}

