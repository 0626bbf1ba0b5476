/**
 * The same behaviour on every store: one random sequence of requests (creates, updates, deletes and
 * reads, with the fuzzer's hostile parameters; fast-check, a fixed seed) sent to a service on SQLite and
 * to one on PostgreSQL, each request to both at once, one after the other. Every answer's status and body
 * must be the same on both, once what differs by nature is masked: the port in URLs and the seconds of
 * clock times (each service reads its own clock). The first answers that differ are listed with their
 * requests. Written after the text no store kept alike (docs/errors.md#text-every-store-keeps) and the
 * folding of searches (lib/fold.ts) were found by other means; it found that records made inline by one
 * event write drew their ids in whatever order their parallel creates reached the sequence (now one order,
 * docs/records.md#venue-and-organizer-input), and that an events list with unknown categories and tags
 * named whichever was refused first (now both, lib/errors.ts `allChecks`). DIFF_SEED=<n> replays a run, DIFF_SEED=random draws one;
 * DIFF_REQUESTS sets the length (1 000).
 */
import fc from "fast-check";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { KEYS } from "../helpers/harness";
import { baseBodies, formEncode, objectJson, params, V } from "../helpers/fuzz";

const SEED = process.env.DIFF_SEED === "random" ? Date.now() % 1_000_000 : Number(process.env.DIFF_SEED ?? 20_261_127);
const REQUESTS = Number(process.env.DIFF_REQUESTS ?? 1000);
const NS = "/wp-json/calendar/events/v1";
const COLLECTIONS = ["events", "events", "events", "venues", "organizers", "categories", "tags"];
const BASE = baseBodies("Differential");

interface Step { method: string; path: string; auth?: keyof typeof KEYS; body?: string; root?: string }

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

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom("create", "create", "update", "delete", "list", "list", "list", "get"),
  collection: fc.constantFrom(...COLLECTIONS),
  id: fc.integer({ min: 1, max: 40 }),
  extra: anyParams,
  base: fc.constantFrom(true, true, true, false),
  auth: fc.constantFrom<Array<keyof typeof KEYS | undefined>>("admin", "admin", "admin", "editor", "author", undefined),
  root: fc.constantFrom(...ROOTS)
}).map(r => {
  const body = objectJson([...(r.base ? BASE[r.collection] : []), ...r.extra]);
  const made = ((): Step => {
    switch (r.kind) {
      case "create": return { method: "POST", path: `/${r.collection}`, auth: r.auth, body };
      case "update": return { method: "POST", path: `/${r.collection}/${r.id}`, auth: r.auth, body };
      case "delete": return { method: "DELETE", path: `/${r.collection}/${r.id}`, auth: r.auth };
      case "get": return { method: "GET", path: `/${r.collection}/${r.id}`, auth: r.auth };
      default: {
        const query = formEncode(r.extra);
        return { method: "GET", path: `/${r.collection}${query ? `?${query}` : ""}`, auth: r.auth };
      }
    }
  })();
  return { ...made, root: r.root };
});

/** An answer as comparable text: the port gone, clock times without their seconds. */
function comparable(status: number, text: string, port: number): string {
  return `${status} ${text
    .replaceAll(`:${port}`, ":PORT")
    .replace(/(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}):\d{2}/g, "$1:SS")
    .replace(/"seconds":"\d{2}"/g, '"seconds":"SS"')}`;
}

describe("the same answers on SQLite and on PostgreSQL", () => {
  let reachable = false;
  let db: TestDatabase | undefined;
  const nodes: Node[] = [];

  beforeAll(async () => {
    reachable = await postgresReachable();
    if (!reachable) return;
    db = await createTestDatabase("differential");
    for (const env of [{ DATA_DIR: ":memory:" }, { DATABASE_URL: db.url, DATA_DIR: ":memory:" }] as Array<Record<string, string>>) {
      // the series' horizon job runs often: a series being started is its writer's to plan, so the job
      // draws no ids between requests (docs/recurrence.md#many-nodes)
      const node = await startNode({ ...env, CACHER: "off", RATE_LIMIT: "", SERIES_JOB_MS: process.env.DIFF_SERIES_JOB_MS ?? "300" }, { http: true });
      nodes.push(node);
    }
    await Promise.all(nodes.map(n => waitForHttp(`${n.base}${NS}`, 200, 60_000)));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await db?.drop();
  });

  test(`${REQUESTS} requests answered alike`, async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const steps = fc.sample(step, { numRuns: REQUESTS, seed: SEED });
    const differences: string[] = [];
    const statuses = new Map<number, number>();
    for (const s of steps) {
      const headers: Record<string, string> = s.body !== undefined ? { "Content-Type": "application/json" } : {};
      if (s.auth) headers.Authorization = `Bearer ${KEYS[s.auth]}`;
      const answers = await Promise.all(nodes.map(async n => {
        const res = await fetch(`${n.base}${s.root ?? ""}${NS}${s.path}`, { method: s.method, headers, body: s.body });
        if (n === nodes[0]) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        return comparable(res.status, await res.text(), n.port!);
      }));
      if (answers[0] !== answers[1] && differences.length < 10) {
        // from a little before the first character that differs
        let at = 0;
        while (answers[0][at] === answers[1][at]) at++;
        const from = Math.max(0, at - 120);
        differences.push(`${s.method} ${s.root ?? ""}${s.path} [${s.auth ?? "anonymous"}] ${s.body ?? ""}\n  at ${at}\n  sqlite:   …${answers[0].slice(from, at + 200)}\n  postgres: …${answers[1].slice(from, at + 200)}`);
      }
    }
    const byStatus = [...statuses].sort((a, b) => a[0] - b[0]).map(([status, n]) => `${status}: ${n}`).join(", ");
    console.log(`differential: ${steps.length} requests (seed ${SEED}; ${byStatus}), ${differences.length} differing`);
    expect(differences).toEqual([]);
    // a run that only compared refusals would prove little
    expect([...statuses].filter(([status]) => status < 300).reduce((n, [, k]) => n + k, 0)).toBeGreaterThan(steps.length / 4);
  }, 240_000);
});
