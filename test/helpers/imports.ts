/**
 * Helpers of the imports tests (test/integration/imports-*.test.ts): sending an import and waiting for it
 * to end, over HTTP as an outside client does.
 */
import type { Json } from "./json";

export async function httpJson(method: string, url: string, key: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers["Content-Type"] = contentType;
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: Json = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * A connection the server ended under a request sent on it: a kept-alive connection the server closed
 * while the request was on its way (its idle timer fired the moment its event loop was free again, after
 * a busy stretch), which a client asks again on a new connection when the request is a GET.
 */
function connectionEnded(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return cause?.code === "ECONNRESET" || cause?.code === "UND_ERR_SOCKET" || cause?.code === "EPIPE";
}

/**
 * Waits until a node's imports service answers (`GET {ns}/imports` → 200): it is optional and not among
 * the services the node's readiness waits for, so right after start the route may answer 503.
 */
export async function importsReady(ns: string, key: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < until) {
    try {
      const res = await httpJson("GET", `${ns}/imports`, key);
      if (res.status === 200) return;
      last = `${res.status} ${JSON.stringify(res.body)}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error(`${ns}/imports did not answer within ${timeoutMs} ms: ${last}`);
}

/** Polls an import until it is done or failed (or the deadline passes); answers it. */
export async function waitForImport(ns: string, key: string, id: number, timeoutMs = 60_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let last: Json = undefined;
  let ended = 0;
  while (Date.now() < until) {
    let res;
    try {
      res = await httpJson("GET", `${ns}/imports/${id}`, key);
      ended = 0;
    } catch (err) {
      // asked again a few times in a row at most: a node that keeps ending connections (or is gone) fails the wait
      if (!connectionEnded(err) || ++ended > 3) throw err;
      await new Promise(r => setTimeout(r, 150));
      continue;
    }
    last = res.body;
    if (res.status === 200 && (last.state === "done" || last.state === "failed")) return last;
    await new Promise(r => setTimeout(r, 150));
  }
  throw new Error(`import ${id} did not end within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Posts an import and waits for its end. */
export async function runImport(ns: string, key: string, body: unknown, contentType?: string): Promise<Json> {
  const res = await httpJson("POST", `${ns}/imports`, key, body, contentType);
  if (res.status !== 202) throw new Error(`POST /imports answered ${res.status}: ${JSON.stringify(res.body)}`);
  return waitForImport(ns, key, res.body.id);
}

export interface SeedCounts {
  events: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
}

/**
 * Fills a calendar (`ns`, administrator key `key`) through its API: categories (half of them children),
 * tags, venues, organizers, and events linking them, of several statuses, all-day ones and zones among them.
 */
export async function seedSource(ns: string, key: string, n: SeedCounts, width = 6): Promise<void> {
  const post = async (path: string, body: Record<string, unknown>): Promise<Json> => {
    const res = await httpJson("POST", `${ns}/${path}`, key, body);
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const categories: number[] = [];
  for (let i = 0; i < n.categories; i++) {
    const parent = i >= n.categories / 2 ? categories[i % Math.max(1, Math.floor(n.categories / 2))] : undefined;
    categories.push((await post("categories", { name: `Category ${i}`, description: `About ${i}`, ...(parent ? { parent } : {}) })).id);
  }
  const tags: number[] = [];
  for (let i = 0; i < n.tags; i++) tags.push((await post("tags", { name: `Tag ${i}` })).id);
  const venues: number[] = new Array(n.venues);
  const { boundedEach } = await import("../../lib/async/bounded-each");
  await boundedEach([...Array(n.venues).keys()], width, async i => {
    venues[i] = (await post("venues", { venue: `Venue ${i}`, address: `${i} Main St`, city: "Springfield", country: "United States", state: "IL", zip: "62701", phone: `555-01${i}`, website: `https://venue${i}.example.org/`, description: `Venue number ${i}`, geo_lat: 39.7 + i / 1000, geo_lng: -89.6 })).id;
  });
  const organizers: number[] = new Array(n.organizers);
  await boundedEach([...Array(n.organizers).keys()], width, async i => {
    organizers[i] = (await post("organizers", { organizer: `Organizer ${i}`, email: `org${i}@example.org`, phone: `555-02${i}`, website: `https://org${i}.example.org/`, description: `Organizer number ${i}` })).id;
  });
  const statuses = ["publish", "publish", "publish", "draft", "private", "pending"];
  const zones = ["UTC", "Europe/Rome", "America/New_York", "Asia/Tokyo"];
  await boundedEach([...Array(n.events).keys()], width, async i => {
    const day = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000 * 0.7).toISOString().slice(0, 10);
    const allDay = i % 10 === 0;
    await post("events", {
      title: `Event ${i}`, description: `Description of event ${i}`, excerpt: i % 3 === 0 ? `Excerpt ${i}` : undefined,
      status: statuses[i % statuses.length], timezone: zones[i % zones.length], all_day: allDay,
      start_date: `${day} ${allDay ? "00:00:00" : "18:30:00"}`, end_date: `${day} ${allDay ? "23:59:59" : "21:00:00"}`,
      cost: i % 4 === 0 ? "10 - 20" : undefined, website: i % 5 === 0 ? `https://events.example.org/${i}` : undefined,
      featured: i % 7 === 0, sticky: i % 11 === 0, hide_from_listings: false,
      image: i % 9 === 0 ? `https://img.example.org/poster-${i}.jpg` : undefined,
      categories: n.categories ? [categories[i % n.categories]] : [], tags: n.tags ? [tags[i % n.tags], tags[(i + 3) % n.tags]] : [],
      venue: n.venues ? venues[i % n.venues] : undefined, organizer: n.organizers ? [organizers[i % n.organizers]] : undefined
    });
  });
}

/** Every record of a list of `ns` (events: every status, every date), as an administrator reads them in context=edit. */
export async function readAll(ns: string, key: string, list: string): Promise<Json[]> {
  const out: Json[] = [];
  const extra = list === "events" ? "&start_date=1900-01-01&end_date=2999-12-31&status=publish,future,draft,pending,private" :
    list === "venues" || list === "organizers" ? "&status=publish,future,draft,pending,private" : "&hide_empty=0";
  for (let page = 1; ; page++) {
    const res = await httpJson("GET", `${ns}/${list}?per_page=50&page=${page}&context=edit${extra}`, key);
    if (res.status !== 200) throw new Error(`GET ${list} answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body[list]);
    if (page >= Number(res.body.total_pages ?? 1)) break;
  }
  return out;
}
