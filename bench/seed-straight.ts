/**
 * Events written straight into a SQL store, as the service's create writes them, for the benches whose
 * calendar is too large to seed through the API in the time they have (bench/search.ts; bench/speed.ts
 * past BENCH_API_UP_TO). Each event gets what one `POST /events` with its links stores:
 * - its id drawn as the id registry draws it (store/sql/registry.ts): on SQLite one past the highest of
 *   `post_types`, on PostgreSQL from the site's own `posts` sequence (store/sql/sequences.ts), so the
 *   service numbers on after it;
 * - its `post_types` row, its document (the texts, dates and links of bench/run.ts's seeding, the fields
 *   in the order the service stores them), and its `created` change-feed entry, written before the row
 *   as the store writes it (store/sql/collection.ts `insert`; PostgreSQL: numbered as `feed_id` numbers);
 * - what the store's triggers add (store/sql/schema.ts, store/sql/term-counts.ts): its links, its
 *   link pairs (store/sql/link-pairs.ts) and their members (store/sql/pair-members.ts), its full-text rows (SQLite), its terms' counts with their `updated` feed entries; on SQLite by the
 *   triggers themselves in the same transaction, on PostgreSQL in bulk (`seedPostgres`). The typed and
 *   folded columns and every index are the database's own work on either.
 * bench/seed-check.ts compares such a calendar with one made wholly through the API.
 */
import { LINK_FIELDS, LINK_TABLE, migrate } from "../store/sql/schema";
import { linkPairsFill } from "../store/sql/link-pairs";
import { pairMembersFill } from "../store/sql/pair-members";
import { pgSequences } from "../store/sql/sequences";
import { FEED_ID_STRIDE, recountStatements } from "../store/sql/term-counts";
import { markWrittenStatement } from "../store/sql/write-marks";
import { analyzedWithoutSamples } from "../store/sql/sqlite-statistics";
import { type SqlDriver } from "../store/sql/driver";

export interface Links { venues: number[]; organizers: number[]; categories: number[]; tags: number[]; stage?: Stage }

/**
 * A filterable `choice` field of the calendar's events (bench/speed.ts's custom-field row): event `i` holds
 * `values[i % values.length]`. `tokens`: the ids of its tokens in the site's dictionary (lib/fields/values.ts
 * `presenceToken`, `valueToken`), which a straight write needs; the API's writes make them.
 */
export interface Stage { field: number; key: string; values: string[]; tokens?: Record<string, number> }

/** Event `i`'s value of the stage field. */
const stageOf = (i: number, stage: Stage): string => stage.values[i % stage.values.length];

const SITE = 1;
const day = 86_400_000;
const dbDate = (t: number) => new Date(t).toISOString().slice(0, 19).replace("T", " ");
/** SQLite: events per transaction. */
const SQLITE_BATCH = 1000;
/**
 * PostgreSQL: events per transaction (each lane's, below). A transaction's feed entries are FEED_ID_STEP (1 024) apart within
 * its slot of FEED_ID_STRIDE (65 536) ids (store/sql/term-counts.ts): 64 entries at most, and each event
 * makes three (its own, its category's, its tag's): 63.
 */
const PG_BATCH = 21;

/** The kind of event `i` (bench/run.ts's titles). */
const kindOf = (i: number) => (i % 7 === 0 ? "jazz" : i % 11 === 0 ? "Café night" : "concert");

/** Event `i`'s create body, as bench/speed.ts and bench/run.ts post it (`now`: the seeding's clock). */
export function eventBody(i: number, l: Links, now: number): Record<string, unknown> {
  const start = now + day + (i % 700) * day + (i % 24) * 3_600_000;
  return {
    title: `Event ${i} ${kindOf(i)}`, description: `Benchmark event number ${i} with music`,
    start_date: dbDate(start), end_date: dbDate(start + 2 * 3_600_000), venue: l.venues[i % l.venues.length], organizer: l.organizers[i % l.organizers.length],
    categories: [l.categories[i % l.categories.length]], tags: [l.tags[i % l.tags.length]], featured: i % 10 === 0,
    ...(l.stage ? { meta: { [l.stage.key]: stageOf(i, l.stage) } } : {})
  };
}

/** What the service stores of event `i`'s stage value (domain/fields/record-fields.ts): nothing without the field. */
function stageDoc(i: number, l: Links): Record<string, unknown> {
  const stage = l.stage;
  if (!stage) return {};
  const value = stageOf(i, stage);
  const ids = [`${stage.field}`, `${stage.field}=${value}`].map(t => stage.tokens?.[t]);
  if (ids.some(id => id === undefined)) throw new Error(`the stage field's tokens for ${value} are not in the dictionary yet (seed some events through the API first)`);
  return { custom_values: { [String(stage.field)]: value }, custom_text: "", custom_links: (ids as number[]).sort((a, b) => a - b) };
}

/** Event `i` as the service stores the body above (the fields in its order; `created`: its creation time). */
export function eventDoc(i: number, l: Links, now: number, created: string): Record<string, unknown> {
  const b = eventBody(i, l, now);
  return {
    author: 1, title: b.title, description: b.description, excerpt: "", image: null,
    categories: b.categories, tags: b.tags, venues: [b.venue], organizers: [b.organizer],
    ticketed: false, post_parent: 0, post_password: "", show_map: false, show_map_link: false, hide_from_listings: false, sticky: false, featured: b.featured,
    website: null, cost: [], currency_symbol: "", currency_position: "", timezone: "UTC", all_day: false,
    start_date: b.start_date, end_date: b.end_date, utc_start_date: b.start_date, utc_end_date: b.end_date, status: "publish", date: created, date_utc: created, modified: created, modified_utc: created,
    slug: `event-${i}-${kindOf(i).toLowerCase().replace(/é/g, "e").replace(/ /g, "-")}`, lang: "en", translations: ["en"],
    ...stageDoc(i, l)
  };
}

/** The `updated` feed entry the count trigger appends for term `id` (store/sql/term-counts.ts; `before`: its previous entry's `after`, `{}` for a term). */
function termEntry(id: number, type: "category" | "tag", modified: string): Record<string, unknown> {
  return { key: `term:${id}`, type, id, action: "updated", modified_utc: modified, before: {}, after: {}, at: Date.now() };
}

/** The `created` feed entry of event `id` (lib/changes/feed.ts `feedEntry`, the store filling `before`: none yet). */
function createdEntry(id: number, created: string): Record<string, unknown> {
  return { key: `post:${id}`, type: "event", id, action: "created", modified_utc: created, before: null, after: { status: "publish", author: 1, date_utc: created }, at: Date.now() };
}

/** The seeding's progress every 10 000 events, with the seconds since the seeding began (`began`). */
function progress(done: number, n: number, began: number): void {
  if (done % 10_000 === 0 || done === n) process.stderr.write(`\r  events ${done}/${n} (${Math.round((Date.now() - began) / 1000)} s)${done === n ? "\n" : ""}`);
}

async function seedSqlite(driver: SqlDriver, l: Links, from0: number, n: number, now: number, created: string): Promise<number[]> {
  const began = Date.now();
  const ids: number[] = [];
  for (let from = 0; from < n; from += SQLITE_BATCH) {
    const count = Math.min(SQLITE_BATCH, n - from);
    // One plain transaction per batch, no savepoint: the full-text index writes what a transaction added
    // when a savepoint ends (a create's unit, store/sql/driver.ts) and merges its pieces as it goes, so
    // a savepoint per event cost a merge step per event, and one savepoint held over the whole batch made
    // every statement under it slower the more it had written. Either way the index holds the same rows.
    await driver.transaction(async tx => {
      for (let k = 0; k < count; k++) {
        // the registry's statement (store/sql/registry.ts `allocate`)
        const [row] = await tx.all<{ id: number }>("INSERT INTO post_types (site, id, type) SELECT ?, COALESCE(MAX(id), 0) + 1, ? FROM post_types WHERE site = ? RETURNING id", [SITE, "event", SITE]);
        const id = Number(row.id);
        await tx.run("INSERT INTO changes (site, id, doc) SELECT ?, COALESCE(MAX(id), 0) + 1, jsonb(?) FROM changes WHERE site = ?", [SITE, JSON.stringify(createdEntry(id, created)), SITE]);
        await tx.run("INSERT INTO events (site, id, doc) VALUES (?, ?, jsonb(?))", [SITE, id, JSON.stringify(eventDoc(from0 + from + k, l, now, created))]);
        ids.push(id);
      }
    });
    progress(from + count, n, began);
  }
  // The triggers queued the events' full-text rows (store/sql/full-text-queue.ts); this driver has no drain
  // before its commits, so they are indexed here, in one transaction, as the service's opening would
  // (store/sql/schema.ts `migrate`). Left queued, the service's first start indexed them all in one
  // statement, which delayed its readiness and landed in the first profile of a row (docs/benchmarks.md).
  await migrate(driver);
  // the statistics as the service keeps them (store/sql/sqlite-statistics.ts)
  await analyzedWithoutSamples(driver, "ANALYZE");
  return ids;
}

/**
 * PostgreSQL: the events in PG_LANES lanes side by side, each its own transactions of PG_BATCH events. The
 * store's triggers are set aside in them (`session_replication_role`, superuser) and their work done per
 * transaction in a few statements instead of per row: each event's links (the statement of
 * store/sql/schema.ts `postgresLinks`), and the feed entries the count trigger appends for its category
 * and its tag (store/sql/term-counts.ts `events_term_counts`), numbered as `feed_id` numbers a
 * transaction's entries: its id times FEED_ID_STRIDE, then FEED_ID_STEP apart, in the order the API's
 * create writes them (the event's, then its terms'). The terms' counts are recounted once at the end by
 * the store's own statements (`recountStatements`). Per row, the count trigger rewrote two term rows twice
 * (nine indexes each) for every event: 90 000 events took ~10 minutes on a loaded machine.
 */
const PG_LANES = 5;
/** store/sql/term-counts.ts FEED_ID_STEP: how far apart one transaction's feed entries are. */
const FEED_ID_STEP = 1024;

async function seedPostgres(driver: SqlDriver, l: Links, from0: number, n: number, now: number, created: string): Promise<number[]> {
  const began = Date.now();
  // the site's own sequence, made as the service makes it when it does not exist yet
  const seq = await pgSequences(driver).of(SITE, "posts", "post_types");
  const taxonomyOf = new Map<number, string>();
  for (const t of await driver.all<{ id: number | string; taxonomy: string }>("SELECT id, doc ->> 'taxonomy' AS taxonomy FROM terms WHERE site = ?", [SITE])) taxonomyOf.set(Number(t.id), t.taxonomy);
  // every id first, in the events' order (as one client creating them in turn draws them), by the
  // registry's statement (store/sql/registry.ts `allocatePosts`)
  const rows = await driver.all<{ id: number | string }>(`INSERT INTO post_types (site, id, type) SELECT ?, nextval('${seq}'), ? FROM generate_series(1, ?::int) RETURNING id`, [SITE, "event", n]);
  const ids = rows.map(r => Number(r.id)).sort((x, y) => x - y);
  let done = 0;
  const lane = async (j: number) => {
    const mine = Array.from({ length: n }, (_, k) => from0 + k).filter(i => i % PG_LANES === j);
    for (let b = 0; b < mine.length; b += PG_BATCH) {
      const batch = mine.slice(b, b + PG_BATCH);
      await driver.transaction(async tx => {
        await tx.run("SET LOCAL session_replication_role = replica");
        const drawn = batch.map(i => ids[i - from0]);
        const [{ base }] = await tx.all<{ base: string }>(`SELECT (pg_current_xact_id()::text::bigint * ${FEED_ID_STRIDE})::text AS base`);
        const docs = batch.map(i => eventDoc(i, l, now, created));
        await tx.run(`INSERT INTO events (site, id, doc) VALUES ${batch.map(() => "(?, ?, ?::jsonb)").join(", ")}`, batch.flatMap((_, k) => [SITE, drawn[k], JSON.stringify(docs[k])]));
        await tx.run(`INSERT INTO ${LINK_TABLE} (site, type, field, target, id) SELECT e.site, 'events', f.field, t, e.id FROM events AS e, ` +
          `(VALUES ${LINK_FIELDS.events.map(f => `('${f}')`).join(", ")}) AS f(field), link_targets(e.doc -> f.field) AS t WHERE e.site = ? AND e.id = ANY(?::bigint[]) ON CONFLICT DO NOTHING`, [SITE, `{${drawn.join(",")}}`]);
        // and their link pairs and the pairs' members (their triggers set aside with the rest)
        const these = `r.site = ${SITE} AND r.id = ANY('{${drawn.join(",")}}'::bigint[])`;
        await tx.run(linkPairsFill("postgres", "events", LINK_FIELDS.events, these));
        await tx.run(pairMembersFill("postgres", "events", LINK_FIELDS.events, these));
        const stamp = dbDate(Date.now());
        const entries = batch.flatMap((_, k) => [
          createdEntry(drawn[k], created),
          ...[...(docs[k].categories as number[]), ...(docs[k].tags as number[])].map(t => termEntry(t, taxonomyOf.get(t) === "tag" ? "tag" : "category", stamp))
        ]);
        await tx.run(`INSERT INTO changes (site, id, doc) VALUES ${entries.map(() => "(?, ?::bigint + ?::bigint, ?::jsonb)").join(", ")}`,
          entries.flatMap((e, k) => [SITE, base, k * FEED_ID_STEP, JSON.stringify(e)]));
      }, { unbounded: true });
      done += batch.length;
      progress(done, n, began);
    }
  };
  await Promise.all(Array.from({ length: PG_LANES }, (_, j) => lane(j)));
  await driver.transaction(async tx => {
    for (const sql of recountStatements("postgres")) await tx.run(sql);
    // what the count trigger sets on each term it moves
    await tx.run("UPDATE terms SET doc = jsonb_set(doc, '{modified_utc}', to_jsonb(?::text)) WHERE site = ? AND id = ANY(?::bigint[])", [dbDate(Date.now()), SITE, `{${[...l.categories, ...l.tags].join(",")}}`]);
  }, { unbounded: true });
  // the triggers were set aside: the site's write marks moved on here, so no total kept before is taken for current
  await driver.run(markWrittenStatement("events"), [SITE]);
  await driver.run("VACUUM ANALYZE");
  return ids;
}

/** Events `from0` to `to` − 1 written into the store (their index `i` gives their texts, dates and links); their ids. */
export async function seedEvents(driver: SqlDriver, l: Links, from0: number, to: number, now = Date.now()): Promise<number[]> {
  const created = dbDate(Date.now());
  return driver.dialect === "sqlite" ? seedSqlite(driver, l, from0, to - from0, now, created) : seedPostgres(driver, l, from0, to - from0, now, created);
}
