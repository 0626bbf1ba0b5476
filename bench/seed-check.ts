/**
 * `npm run bench:seed-check`: does bench/seed-straight.ts write what the API writes? For each SQL store
 * (BENCH_STORES), two calendars of the same CHECK_EVENTS events (default 300) and links: one created
 * wholly through the API, one through the API up to CHECK_API_UP_TO (default 20) and written straight
 * past it. Both answer the same requests, compared with their creation times set aside: list pages and
 * their totals, a filtered list, searches, single events, the categories and tags with their counts, the
 * change feed (every entry's record, action and order); then one create and one update through the API on
 * the straight calendar (its ids and feed numbers go on after the straight write). Exits 1 on a difference.
 */
import { benchStore, KEY, NS, post, startServer, StoreKind } from "./common";
import { eventBody, Links, seedEvents } from "./seed-straight";
import { openPostgres, openSqlite } from "../store/sql/driver";
import { sqliteFile } from "../store";

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const EVENTS = Number(process.env.CHECK_EVENTS ?? 300);
const API_UP_TO = Number(process.env.CHECK_API_UP_TO ?? 20);
const NOW = Date.now();
/** Creation and modification times: when each calendar was written, not what it holds. */
const TIMES = new Set(["date", "date_utc", "modified", "modified_utc", "at"]);

async function links(base: string): Promise<Links> {
  const l: Links = { venues: [], organizers: [], categories: [], tags: [] };
  for (let i = 0; i < 4; i++) l.venues.push((await post(base, "/venues", { venue: `Venue ${i}`, city: "Paris", country: "France" })).id as number);
  for (let i = 0; i < 4; i++) l.organizers.push((await post(base, "/organizers", { organizer: `Organizer ${i}` })).id as number);
  for (let i = 0; i < 20; i++) l.categories.push((await post(base, "/categories", { name: `Category ${i}` })).id as number);
  for (let i = 0; i < 50; i++) l.tags.push((await post(base, "/tags", { name: `Tag ${i}` })).id as number);
  return l;
}

/** A calendar of EVENTS events, the API writing those below `apiUpTo` and seed-straight the rest. */
async function calendar(kind: StoreKind, label: string, apiUpTo: number): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const store = await benchStore(kind, label);
  const server = await startServer(store.env);
  let l: Links;
  try {
    l = await links(server.base);
    // one at a time: ids in the order of the events, as the straight write numbers them
    for (let i = 0; i < Math.min(apiUpTo, EVENTS); i++) await post(server.base, "/events", eventBody(i, l, NOW));
  } finally {
    await server.stop();
  }
  if (apiUpTo < EVENTS) {
    const driver = kind === "sqlite" ? openSqlite(sqliteFile(store.env.DATA_DIR)) : openPostgres(store.env.DATABASE_URL);
    try {
      await seedEvents(driver, l, apiUpTo, EVENTS, NOW);
    } finally {
      await driver.close();
    }
  }
  return store;
}

/** A value with its creation times set aside, and the feed's numbers and resume tokens. */
function normal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normal);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => !TIMES.has(k) && k !== "next" && k !== "token" && k !== "since").map(([k, x]) => [k, normal(x)]));
  // the port each calendar's service ran on
  return typeof v === "string" ? v.replace(/http:\/\/(localhost|127\.0\.0\.1):\d+/g, "BASE") : v;
}

/**
 * The feed's entries grouped by record, each record's in feed order: the order between records is the
 * order their writes committed in, which the venues' background geocoding (its `updated` entries) moves.
 */
function byRecord(entries: unknown[]): unknown {
  const changes = entries as Array<{ type: string; id: number }>;
  const groups = new Map<string, unknown[]>();
  for (const c of changes) groups.set(`${c.type}:${c.id}`, [...(groups.get(`${c.type}:${c.id}`) ?? []), c]);
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

/** Every entry of the change feed, page after page. */
async function feed(base: string): Promise<unknown[]> {
  const all: unknown[] = [];
  let since = "";
  for (;;) {
    const res = await fetch(`${base}${NS}/changes?per_page=500${since ? `&since=${encodeURIComponent(since)}` : ""}`, { headers: { Authorization: `Bearer ${KEY}` } });
    const page = (await res.json()) as { changes: unknown[]; next_token: string; has_more: boolean };
    all.push(...page.changes);
    if (!page.has_more || !page.changes.length) return normal(all) as unknown[];
    since = page.next_token;
  }
}

/** Where two texts first differ, with some context. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: api …${a.slice(Math.max(0, i - 80), i + 160)}…\n  straight …${b.slice(Math.max(0, i - 80), i + 160)}…`;
}

function paths(): string[] {
  return [
    ...[1, 2, 3, 4].map(p => `${NS}/events?page=${p}&per_page=50`),
    `${NS}/events?categories=category-3&venue=4`,
    `${NS}/events?categories=category-3`,
    `${NS}/events?tags=tag-7`,
    `${NS}/events?featured=true&per_page=50`,
    `${NS}/events?search=jazz&per_page=50`,
    `${NS}/events?search=caf%C3%A9&per_page=50`,
    `${NS}/events?search=concert%20142`,
    `${NS}/events?search=number%2029`,
    `${NS}/events?start_date=${new Date(NOW + 30 * 86_400_000).toISOString().slice(0, 10)}&end_date=${new Date(NOW + 60 * 86_400_000).toISOString().slice(0, 10)}&per_page=50`,
    ...[90, 150, 200, 299].map(k => `${NS}/events/${9 + k}`),
    `${NS}/categories?per_page=50&hide_empty=true`,
    `${NS}/tags?per_page=50`
  ];
}

async function answers(env: Record<string, string>): Promise<Map<string, unknown>> {
  const server = await startServer({ ...env, CACHER: "off" });
  const out = new Map<string, unknown>();
  try {
    for (const p of paths()) {
      const res = await fetch(`${server.base}${p}`, { headers: { Authorization: `Bearer ${KEY}` } });
      const body = normal(await res.json());
      out.set(p, { status: res.status, total: res.headers.get("x-wp-total"), body });
    }
    out.set("the whole feed", byRecord(await feed(server.base)));
    // writes through the API after the straight write: numbered on, answered
    const created = await post(server.base, "/events", { title: "After the seeding", start_date: "2027-01-01 10:00:00", end_date: "2027-01-01 11:00:00", categories: [5] });
    out.set("create after", { id: created.id });
    const res = await fetch(`${server.base}${NS}/events/${created.id}`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" }, body: JSON.stringify({ title: "Renamed after" }) });
    out.set("update after", res.status);
    const after = await fetch(`${server.base}${NS}/changes?per_page=500`, { headers: { Authorization: `Bearer ${KEY}` } });
    out.set("feed after", after.status);
  } finally {
    await server.stop();
  }
  return out;
}

async function main(): Promise<void> {
  let differences = 0;
  for (const kind of STORES) {
    const t0 = Date.now();
    const api = await calendar(kind, "check_api", EVENTS);
    const straight = await calendar(kind, "check_straight", API_UP_TO);
    try {
      const [a, b] = [await answers(api.env), await answers(straight.env)];
      for (const [p, x] of a) {
        const same = JSON.stringify(x) === JSON.stringify(b.get(p));
        if (!same) differences++;
        const body = (x as { body?: unknown }).body;
        const size = Array.isArray(body) ? `${body.length} items` : body && typeof body === "object" && "events" in body ? `${(body as { events: unknown[] }).events.length} events, total ${(body as { total?: number }).total}` : JSON.stringify(x).slice(0, 60);
        process.stdout.write(`${kind} ${same ? "same" : "DIFFERENT"}: ${p} (${size})\n`);
        if (!same) process.stdout.write(`  ${firstDifference(JSON.stringify(x), JSON.stringify(b.get(p)))}\n`);
      }
    } finally {
      await api.drop();
      await straight.drop();
    }
    process.stdout.write(`${kind}: ${EVENTS} events (${API_UP_TO} through the API, the rest straight) checked in ${Math.round((Date.now() - t0) / 1000)} s\n`);
  }
  if (differences) {
    process.stdout.write(`${differences} differences\n`);
    process.exit(1);
  }
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
