/**
 * Differential runs (test/integration/stores-differential.test.ts, topology-differential.test.ts): one
 * random sequence of requests (creates, updates, deletes and reads of every collection, plausible input in
 * many scripts mostly, the fuzzer's hostile parameters sometimes; fast-check, a fixed seed) sent to two
 * deployments, each request to both at once, one after the other. Every answer's status and body must be
 * the same on both, once what differs by nature is set aside: the ports in URLs and clock times up to a few
 * seconds apart (each service reads its own clock; `sameAnswer`). DIFF_SEED=<n> replays a run, DIFF_SEED=random draws one;
 * DIFF_REQUESTS sets the length (1 000); DIFF_DUMP=<dir> writes the first differing answers whole.
 */
import { writeFileSync } from "fs";
import fc from "fast-check";
import { KEYS } from "./harness";
import { baseBodies, formEncode, objectJson, params, V } from "./fuzz";

export const SEED = process.env.DIFF_SEED === "random" ? Date.now() % 1_000_000 : Number(process.env.DIFF_SEED ?? 20_261_127);
export const REQUESTS = Number(process.env.DIFF_REQUESTS ?? 1000);
export const NS = "/wp-json/calendar/events/v1";
const COLLECTIONS = ["events", "events", "events", "venues", "organizers", "categories", "tags"];
const BASE = baseBodies("Differential");

export interface Step { method: string; path: string; auth?: keyof typeof KEYS; body?: string; root?: string; site: number; headers?: Record<string, string> }

// Plausible input, most of each run: words of many scripts (the folding), names reused (duplicates,
// inline terms and venues), dates, statuses, passwords, list filters.
const WORDS = ["Jazz", "café", "CAFE", "Straße", "strasse", "ΣΊΣΥΦΟΣ", "σίσυφος", "イベント", "東京", "🎉", "ﬁnance", "Øresund", "night", "Rock",
  "a-b", "100%", "under_score", "x'y", "İstanbul", "ＡＢＣ", "Ça va", "naïve", "ß", "zeta", "_x", "10"];
const s = (v: string): V => ({ t: "s", v });
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map(ws => ws.join(" "));
const names = fc.array(fc.constantFrom(...WORDS.slice(0, 12)), { minLength: 0, maxLength: 3 }).map(ws => ({ t: "arr", v: ws.map(s) }) as V);
const when = fc.constantFrom("tomorrow 10:00", "tomorrow 12:00", "+3 days 09:00", "+40 days 18:30", "2030-01-01 10:00:00", "yesterday 08:00");
const plausible: fc.Arbitrary<Array<[string, V]>> = fc.array(fc.oneof(
  text.map(v => ["title", s(v)] as [string, V]),
  text.map(v => ["description", s(v)] as [string, V]),
  text.map(v => ["excerpt", s(v)] as [string, V]),
  text.map(v => ["search", s(v)] as [string, V]),
  text.map(v => ["venue", { t: "obj", v: [["venue", s(v)]] }] as [string, V]),
  fc.integer({ min: 1, max: 40 }).map(v => ["venue", { t: "n", v: String(v) }] as [string, V]),
  text.map(v => ["organizer", { t: "obj", v: [["organizer", s(v)]] }] as [string, V]),
  names.map(v => ["categories", v] as [string, V]),
  names.map(v => ["tags", v] as [string, V]),
  when.map(v => ["start_date", s(v)] as [string, V]),
  when.map(v => ["end_date", s(v)] as [string, V]),
  fc.constantFrom("publish", "draft", "pending", "private", "future").map(v => ["status", s(v)] as [string, V]),
  fc.constantFrom("", "pw", "ΣΊΣ").map(v => ["post_password", s(v)] as [string, V]),
  fc.constantFrom("Free", "$5", "10 - 20", "€3,50").map(v => ["cost", s(v)] as [string, V]),
  fc.boolean().map(v => ["featured", { t: "b", v }] as [string, V]),
  text.map(v => ["name", s(v)] as [string, V]),
  fc.constantFrom("name", "slug", "count", "id", "description").map(v => ["orderby", s(v)] as [string, V]),
  fc.constantFrom("asc", "desc").map(v => ["order", s(v)] as [string, V]),
  fc.constantFrom("0", "1").map(v => ["hide_empty", s(v)] as [string, V]),
  fc.integer({ min: 1, max: 4 }).map(v => ["page", { t: "n", v: String(v) }] as [string, V]),
  fc.constantFrom("2", "5", "50").map(v => ["per_page", s(v)] as [string, V]),
  // translations (a write in another language) and recurring events
  fc.constantFrom("fr", "pt-br", "zh-hans", "en").map(v => ["i18n_language", s(v)] as [string, V]),
  fc.constantFrom("RRULE:FREQ=WEEKLY;COUNT=3", "RRULE:FREQ=DAILY;COUNT=4;INTERVAL=2", "RRULE:FREQ=MONTHLY;COUNT=2").map(v => ["recurrence", { t: "arr", v: [s(v)] }] as [string, V]),
  fc.constantFrom("this", "following", "all").map(v => ["scope", s(v)] as [string, V])
), { maxLength: 6 });
/** Parameters of a request: plausible ones mostly, the fuzzer's hostile ones sometimes. */
const anyParams = fc.oneof({ arbitrary: plausible, weight: 4 }, { arbitrary: params, weight: 1 });

/** The roots of the languages (CONTRACT "Addresses"): most requests on the default one. */
const ROOTS = ["", "", "", "", "/fr", "/zh-hans"];

export const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom("create", "create", "update", "delete", "list", "list", "list", "get", "feed"),
  collection: fc.constantFrom(...COLLECTIONS),
  id: fc.integer({ min: 1, max: 40 }),
  extra: anyParams,
  base: fc.constantFrom(true, true, true, false),
  auth: fc.constantFrom<Array<keyof typeof KEYS | undefined>>("admin", "admin", "admin", "editor", "author", undefined),
  root: fc.constantFrom(...ROOTS),
  // the default site mostly, the run's second site (`prepareSites`) a third of the time
  site: fc.constantFrom(0, 0, 1),
  // a create now and then under one of a few idempotency keys: a repeat replays, another body is refused
  idempotency: fc.option(fc.constantFrom("k1", "k2", "k3"), { freq: 15 }),
  // the change feed, whole (see `comparable`): from the start, or resumed from a token (some not tokens at all)
  feed: fc.record({ since: fc.option(fc.constantFrom("1", "2:5", "abc", "0", "99999"), { freq: 2 }) })
}).map(r => {
  const body = objectJson([...(r.base ? BASE[r.collection] : []), ...r.extra]);
  const made = ((): Omit<Step, "site"> => {
    switch (r.kind) {
      case "create": return { method: "POST", path: `/${r.collection}`, auth: r.auth, body, ...(r.idempotency ? { headers: { "Idempotency-Key": r.idempotency } } : {}) };
      case "feed": return { method: "GET", path: `/changes?per_page=500${r.feed.since !== null ? `&since=${r.feed.since}` : ""}`, auth: r.auth };
      case "update": return { method: "POST", path: `/${r.collection}/${r.id}`, auth: r.auth, body };
      case "delete": return { method: "DELETE", path: `/${r.collection}/${r.id}`, auth: r.auth };
      case "get": return { method: "GET", path: `/${r.collection}/${r.id}`, auth: r.auth };
      default: {
        const query = formEncode(r.extra);
        return { method: "GET", path: `/${r.collection}${query ? `?${query}` : ""}`, auth: r.auth };
      }
    }
  })();
  return { ...made, root: r.root, site: r.site };
});

/**
 * A feed page with its changes in one order: a series' occurrences are written four at once, each with its
 * feed entry in its own transaction (docs/recurrence.md#the-horizon), so their entries follow one another
 * in the order those commits happened to take. The run reads the feed whole (500 a page), so a page holds
 * the same changes on both sides.
 */
function feedInOrder(text: string): string {
  const page = JSON.parse(text) as { changes?: unknown[]; next_token?: unknown };
  if (!Array.isArray(page.changes)) return text;
  // the token is opaque: PostgreSQL numbers entries by their writing transaction, SQLite one past the
  // highest (store/sql/feed.ts), so one position has two spellings; what it leads to is compared instead
  return JSON.stringify({ ...page, changes: page.changes.map(c => JSON.stringify(c)).sort(), ...(page.next_token !== undefined ? { next_token: "TOKEN" } : {}) });
}

/** An answer as comparable text: the ports gone, a feed page in one order; clock times as they came. */
function comparable(status: number, raw: string, ports: readonly number[], path: string): string {
  const text = status === 200 && path.startsWith("/changes") ? feedInOrder(raw) : raw;
  return `${status} ${ports.reduce((t, port) => t.replaceAll(`:${port}`, ":PORT"), text)}`;
}

const CLOCK_TIME = /(\d{4}-\d{2}-\d{2})([ T])(\d{2}:\d{2}):(\d{2})/g;
/** How far apart the two sides' clock readings of one request may be (each side reads its own clock, both at once). */
export const CLOCK_SLACK_MS = 10_000;
/** The text with its clock times' seconds masked: as a difference is shown. */
export function masked(text: string): string {
  return text.replace(CLOCK_TIME, "$1$2$3:SS").replace(/"seconds":"\d{2}"/g, '"seconds":"SS"');
}
/**
 * Whether two answers are the same but for the moments each side read its clock: equal once the seconds of
 * clock times are masked, or once every clock time is set aside with each pair at most CLOCK_SLACK_MS
 * apart. Masking the seconds alone is not enough: a request answered on both sides across a minute's
 * boundary (`modified` 18:45:59 on one, 18:46:00 on the other) differs in its minutes.
 */
export function sameAnswer(x: string, y: string): boolean {
  if (x === y || masked(x) === masked(y)) return true;
  const skeleton = (t: string) => masked(t.replace(CLOCK_TIME, "$2TIME"));
  if (skeleton(x) !== skeleton(y)) return false;
  const times = (t: string) => [...t.matchAll(CLOCK_TIME)].map(m => ({ text: m[0], at: Date.parse(`${m[1]}T${m[3]}:${m[4]}Z`) }));
  const [tx, ty] = [times(x), times(y)];
  // (a floating draft's `0000-00-00 00:00:00` is no instant: equal as text)
  return tx.length === ty.length && tx.every((t, i) => t.text === ty[i].text || Math.abs(t.at - ty[i].at) <= CLOCK_SLACK_MS);
}

/** A site of one side: the host that reaches it and its keys by role name. */
export interface SiteAccess {
  host: string;
  keys: Partial<Record<keyof typeof KEYS, string>>;
}

/** One side of a differential run: where its requests go (in turn, when it has several gateways). */
export interface Side {
  label: string;
  bases: readonly string[];
  /** Every port its answers may name. */
  ports: readonly number[];
  /** The sites a step's `site` picks (`prepareSites`). */
  sites: readonly SiteAccess[];
}

/** What the nodes of a differential run are started with: one base URL (the default site's host), sites by `X-Forwarded-Host`. */
export const DIFF_ENV = { BASE_URL: "http://calendar.test", TRUST_PROXY: "1", PLATFORM_KEY: "diff-platform", RATE_LIMIT: "" };
const SECOND_HOST = "second.calendar.test";

/**
 * The run's sites on one side, made through its platform API: the default one (the test keys) and a
 * second one in another time zone with an administrator, an editor and an author of the same user ids.
 */
export async function prepareSites(base: string): Promise<SiteAccess[]> {
  const platform = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}/platform/v1${path}`, { method: "POST", headers: { Authorization: `Bearer ${DIFF_ENV.PLATFORM_KEY}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`platform ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const site = await platform("/sites", { host: SECOND_HOST, timezone: "Europe/Paris", name: "Second" });
  const keys: SiteAccess["keys"] = { admin: site.api_key as string };
  for (const [name, role, user] of [["editor", "editor", 2], ["author", "author", 3]] as const) {
    keys[name] = (await platform(`/sites/${site.id}/keys`, { role, user_id: user })).key as string;
  }
  return [{ host: new URL(DIFF_ENV.BASE_URL).host, keys: KEYS }, { host: SECOND_HOST, keys }];
}

/**
 * Sends the run's requests to both sides (a side with several gateways gets them in turn); answers the
 * first differences (at most 10, each with its request) and the statuses side `a` answered.
 */
export async function differential(a: Side, b: Side, steps = fc.sample(step, { numRuns: REQUESTS, seed: SEED })): Promise<{ differences: string[]; statuses: Map<number, number>; requests: number; bySite: number[] }> {
  const differences: string[] = [];
  const statuses = new Map<number, number>();
  /** Side `a`'s successes per site: the second site's requests must reach it, not stop at its door. */
  const bySite: number[] = [];
  let turn = 0;
  /** The request of a step, as a difference names it. */
  const described = (s: Step) => `${s.method} ${s.root ?? ""}${s.path} [site ${s.site}, ${s.auth ?? "anonymous"}${s.headers ? `, ${JSON.stringify(s.headers)}` : ""}] ${s.body ?? ""}`;
  for (const [n, s] of steps.entries()) {
    const answers = await Promise.all([a, b].map(async side => {
      const base = side.bases[turn % side.bases.length];
      const site = side.sites[s.site % side.sites.length];
      const headers: Record<string, string> = { "X-Forwarded-Host": site.host, ...(s.body !== undefined ? { "Content-Type": "application/json" } : {}), ...s.headers };
      if (s.auth) headers.Authorization = `Bearer ${site.keys[s.auth] ?? KEYS[s.auth]}`;
      const res = await fetch(`${base}${s.root ?? ""}${NS}${s.path}`, { method: s.method, headers, body: s.body });
      if (side === a) {
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status < 300) bySite[s.site] = (bySite[s.site] ?? 0) + 1;
      }
      const raw = await res.text();
      return { raw, text: comparable(res.status, raw, side.ports, s.path) };
    }));
    turn++;
    if (!sameAnswer(answers[0].text, answers[1].text) && differences.length < 10) {
      const shown = answers.map(x => masked(x.text));
      // from a little before the first character that differs
      let at = 0;
      while (at < shown[0].length && shown[0][at] === shown[1][at]) at++;
      const from = Math.max(0, at - 120);
      // DIFF_DUMP=<dir>: the first difference's two answers whole, as files, as they came
      if (process.env.DIFF_DUMP && differences.length === 0) answers.forEach((x, i) => writeFileSync(`${process.env.DIFF_DUMP}/${i ? b.label : a.label}.txt`.replace(/ /g, "-"), x.raw));
      const before = steps.slice(Math.max(0, n - 3), n).map(p => `\n  after: ${described(p)}`).join("");
      differences.push(`${described(s)} (request ${n + 1})${before}\n  at ${at}\n  ${a.label}: …${shown[0].slice(from, at + 200)}\n  ${b.label}: …${shown[1].slice(from, at + 200)}`);
    }
  }
  return { differences, statuses, requests: steps.length, bySite };
}

/** The statuses of a run, as `200: n, 201: m, …`. */
export function statusSummary(statuses: Map<number, number>): string {
  return [...statuses].sort((x, y) => x[0] - y[0]).map(([status, n]) => `${status}: ${n}`).join(", ");
}

/** How many of a run's answers were successes: a run that only compared refusals would prove little. */
export function successes(statuses: Map<number, number>): number {
  return [...statuses].filter(([status]) => status < 300).reduce((n, [, k]) => n + k, 0);
}
