/**
 * The SQL schema, as numbered migrations. Each runs once, in order, under the store-wide lock (many
 * nodes may start at once) and is recorded in `schema_migrations`; a database written by an older
 * version is upgraded in place at start. Every record table is keyed by `(site, id)`: a site is one
 * calendar, and its records, ids, keys and feed never mix with another's.
 */
import { IMPORT_TABLES } from "./import-tables";
import type { SqlDriver } from "./driver";
import { markFunctions, writeMarkStatements } from "./write-marks";
import { fieldExpr } from "./compile";
import { FOLD_COLLATIONS, foldFunctionSql } from "./fold-function";
import { feedIdFunction, keptPlanStatements, termCountStatements, termCountTriggersAgain } from "./term-counts";
import { linkPairStatements, linkPairTriggersAgain } from "./link-pairs";
import { pairMemberStatements, pairMemberTriggersAgain } from "./pair-members";
import { renderingAnswerStatements, renderingPlainAnswerStatements, renderingsByRowid, renderingStatements, renderingVariantStatements } from "./renderings";
import { analyzedWithoutSamples } from "./sqlite-statistics";
import { FULL_TEXT_QUEUED, fullTextDrain, fullTextQueueStatements, ftsRow, ftsValues, type FullTextTable } from "./full-text-queue";

/** The record tables (one per collection of the services), each `(site, id, doc)`. */
export const RECORD_TABLES: Record<string, { textId?: boolean }> = {
  events: {},
  venues: {},
  organizers: {},
  terms: {},
  translations: { textId: true },
  changes: {},
  venue_locations: {},
  idempotency_keys: { textId: true },
  // a site's custom field definitions and the dictionary of their values' tokens (migration 21)
  field_definitions: {},
  field_tokens: {},
  deprecation_uses: { textId: true }
};

/**
 * Tables of `(site, id, doc)` in which an optional service keeps a site's data (made by the migrations
 * below, so they exist whatever runs), removed with the site when it is purged (store/sites.ts
 * `purgeChunk`). A feature with tables of its own adds them here.
 */
export const FEATURE_TABLES: readonly string[] = [
  // the webhooks service (store/webhooks.ts)
  "webhooks", "webhook_deliveries", "webhook_payloads", "webhook_cursor"
];

/**
 * The custom field tokens a record carries (lib/fields/values.ts): ids of the site's `field_tokens`
 * dictionary, one per "field F holds value V" and one per field holding any value. As link targets they
 * are rows of `links`, whose key answers a list's `meta[<key>]=<value>` filter (docs/lists.md#custom-field-filters).
 */
export const CUSTOM_LINKS = "custom_links";
/** The text values of a record's custom fields (lib/fields/values.ts `custom_text`), searched with its own texts (migration 21). */
export const CUSTOM_TEXT = "custom_text";
/** Why an event's status changed (lib/events/event-status.ts), searched with its own texts (migration 25). */
export const STATUS_REASON = "event_status_reason";

/**
 * The array fields answered from the link table `links` (docs/lists.md#event-filters): fields whose
 * elements are integer keys of other things — the venues, organizers, categories and tags an event links
 * (recurrence occurrences are event rows, so theirs too), the grid cells a venue's location lies in
 * (lib/geo/cells.ts). The one declaration both the triggers that keep `links` (below) and the query
 * compiler (store/sql/compile.ts, through store/index.ts) read.
 */
export const LINK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  events: ["venues", "organizers", "categories", "tags", CUSTOM_LINKS],
  venue_locations: ["cells"],
  venues: [CUSTOM_LINKS],
  organizers: [CUSTOM_LINKS]
};

/**
 * The record tables whose link pairs are kept (store/sql/link-pairs.ts): those a list filters by two links
 * or more (an event's category and venue, a venue's or organizer's two custom fields).
 */
export const PAIRED_LINKS: readonly string[] = ["events", "venues", "organizers"];

/** The link fields of each paired table. */
const PAIRED_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(PAIRED_LINKS.map(t => [t, LINK_FIELDS[t]]));

/**
 * A typed column generated from a field of the document: `text` holds the field when it is a string
 * (NULL otherwise), `flag` whether it is JSON `true` (never NULL). A condition the column answers exactly
 * is compiled onto it when a list is counted (store/sql/compile.ts, `columns`).
 */
export interface ListColumn {
  field: string;
  kind: "text" | "flag";
}

/** Migration 6's window columns: what every events list selects by — hidden from listings, status, start and end. */
const WINDOW_COLUMNS: readonly ListColumn[] = [
  { field: "hide_from_listings", kind: "flag" },
  { field: "status", kind: "text" },
  { field: "start_date", kind: "text" },
  { field: "end_date", kind: "text" }
];
/** Migration 10's: the password, which tells whose excerpt and description an anonymous search reads (D34: search never matches through hidden fields). */
const PASSWORD_COLUMN: ListColumn = { field: "post_password", kind: "text" };
/**
 * Migration 15's: the publication date, which tells a due `future` event (read as published, C13: a due `future` post counts as published) from one
 * not yet due. Without it a list's status condition (lib/events/due-events.ts) read each document of the
 * window, and its count scanned every event (docs/lists.md#counting-a-list).
 */
const DATE_UTC_COLUMN: ListColumn = { field: "date_utc", kind: "text" };

/**
 * The window columns of a record table (docs/lists.md#counting-a-list), in the order of the covering
 * index `ix_<table>_window` (site, these columns, id). Counting the default two-year window reads that
 * index alone instead of every document in the window, a search's count too.
 */
export const LIST_COLUMNS: Readonly<Record<string, readonly ListColumn[]>> = {
  events: [...WINDOW_COLUMNS, PASSWORD_COLUMN, DATE_UTC_COLUMN]
};

/** The column generated for a field (LIST_COLUMNS). */
export const columnName = (field: string): string => `c_${field}`;
/** The covering index of a table's window columns. */
export const windowIndexName = (table: string): string => `ix_${table}_window`;

/**
 * The index of the window columns keyed by id, `(site, id, columns)`: where a list's links drive (two
 * link filters, store/sql/compile.ts `drivenByLinks`), its events are looked up by id and their window
 * is read from this index instead of computed from each document (SQLite: the columns are VIRTUAL;
 * docs/lists.md#event-filters).
 */
export const idWindowIndexName = (table: string): string => `ix_${table}_id_window`;

/** SQLite: the index of a table's window columns `columns` keyed by id (idWindowIndexName). */
function idWindowIndex(table: string, columns: readonly ListColumn[]): string {
  return `CREATE INDEX IF NOT EXISTS ${idWindowIndexName(table)} ON ${table} (site, id, ${columns.map(c => columnName(c.field)).join(", ")})`;
}

/**
 * SQLite: the columns the index keyed by id (idWindowIndexName) holds beyond the window's, by table: the
 * default order's keys that are not window columns (an event's publication date, its order after the
 * start), so that a page its links drive is sorted from that index alone and only the page's documents are
 * read (store/sql/collection.ts `byColumns`).
 */
export const ID_WINDOW_ORDER: Readonly<Record<string, readonly ListColumn[]>> = {
  events: [{ field: "date", kind: "text" }]
};

/** The statement adding the typed column of one field to a table (LIST_COLUMNS, ID_WINDOW_ORDER). */
function generatedColumn(d: SqlDriver, table: string, { field, kind }: ListColumn): string {
  if (d.dialect === "sqlite") {
    // SQLite adds generated columns as VIRTUAL only: computed from the document when read, kept in the index.
    const expr = kind === "flag"
      ? `INTEGER GENERATED ALWAYS AS (json_type(doc, '$.${field}') IS 'true') VIRTUAL`
      : `TEXT GENERATED ALWAYS AS (CASE WHEN json_type(doc, '$.${field}') = 'text' THEN json_extract(doc, '$.${field}') END) VIRTUAL`;
    return `ALTER TABLE ${table} ADD COLUMN ${columnName(field)} ${expr}`;
  }
  // text in the database's default collation: the one JSON strings compare in, so a range means the same
  const expr = kind === "flag"
    ? `boolean GENERATED ALWAYS AS (COALESCE((doc -> '${field}') = 'true'::jsonb, false)) STORED`
    : `text GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(doc -> '${field}') = 'string' THEN doc ->> '${field}' END) STORED`;
  return `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${columnName(field)} ${expr}`;
}

/** The statements adding `added` to a table's window columns and making their covering index over `all`. */
function windowColumns(d: SqlDriver, table: string, added: readonly ListColumn[], all = added): string[] {
  const add = added.map(c => generatedColumn(d, table, c));
  const indexed = all.map(c => columnName(c.field)).join(", ");
  return [...add, `DROP INDEX IF EXISTS ${windowIndexName(table)}`, `CREATE INDEX ${windowIndexName(table)} ON ${table} (site, ${indexed}, id)`];
}

/**
 * The fields the services compare by range (`$gt` … `$lte`), by table. On PostgreSQL each such condition
 * carries a test of the value's JSON type (store/sql/compile.ts); without statistics of that expression the
 * planner guesses it holds for one row in 200, so a list's window of thousands of events looked like one
 * row and its page was sorted from a scan of every event instead of read in order from its index
 * (docs/lists.md#counting-a-list). Migration 8 gives the planner those statistics.
 */
export const RANGED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  events: ["start_date", "end_date", "date_utc", "modified_utc", "series_horizon"],
  venues: ["modified_utc"],
  organizers: ["modified_utc"],
  terms: ["tree_count"]
};

/** PostgreSQL: the statistics of the type tests of a table's ranged fields, then the table analyzed. */
function typeStatistics(table: string, fields: readonly string[]): string[] {
  return [
    ...fields.map(f => `CREATE STATISTICS IF NOT EXISTS sx_${table}_${f}_type ON (jsonb_typeof(${fieldExpr("postgres", f)})) FROM ${table}`),
    `ANALYZE ${table}`
  ];
}

/** The table that lists, for each record, the integer elements of its link fields. */
export const LINK_TABLE = "links";

export const MIGRATION_LOCK = 72_410_001;

export interface Migration {
  version: number;
  name: string;
  up(driver: SqlDriver): string[];
  /**
   * PostgreSQL: the tables its statements rewrite (a stored column added or made anew). A rewritten table
   * has no visibility map until it is vacuumed, and neither autovacuum nor the store's upkeep
   * (store/sql/upkeep.ts) sees a rewrite as changed rows: until then no count is read from an index alone
   * (the default list's count scanned the table). `migrate` vacuums them once it has applied it.
   */
  rewrites?: readonly string[];
}

const json = (d: SqlDriver) => (d.dialect === "sqlite" ? "BLOB" : "JSONB");
const bigint = (d: SqlDriver) => (d.dialect === "sqlite" ? "INTEGER" : "BIGINT");
const text = (d: SqlDriver) => (d.dialect === "sqlite" ? "TEXT" : 'TEXT COLLATE "C"');

/** The statement making a record table: the record as a JSON document, keyed by its site and id. */
export function recordTable(d: SqlDriver, table: string, o: { textId?: boolean }): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (site INTEGER NOT NULL, id ${o.textId ? text(d) : bigint(d)} NOT NULL, doc ${json(d)} NOT NULL, PRIMARY KEY (site, id))`;
}

/**
 * The texts an events `search` reads (docs/lists.md#search): the events' own, and a translation's in the
 * asked language (`lc`) and its fallback (`fb`). Venue and organizer lists search many short fields of a
 * few records; they are compared as they are listed.
 */
const SEARCHED: Array<[string, string[]]> = ["title", "excerpt", "description", STATUS_REASON].flatMap((f): Array<[string, string[]]> => [
  ["events", [f]], ["translations", ["lc", f]], ["translations", ["fb", f]]
]);

function trigramIndex(table: string, path: string[]): string {
  const text = path.length === 1 ? `(doc ->> '${path[0]}')` : `(doc #>> '{${path.join(",")}}')`;
  return `CREATE INDEX IF NOT EXISTS tx_${table}_${path.join("_")} ON ${table} USING GIN (fold(${text}) gin_trgm_ops)`;
}

/**
 * PostgreSQL: the searched texts of a record table kept folded in stored columns (migration 9), each with
 * its trigram index, by field. A search compares the stored column, so no candidate row's text is folded
 * (unaccent) when it is read: folding was three quarters of a search's count (docs/lists.md#search).
 */
export const FOLDED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  events: ["title", "excerpt", "description", CUSTOM_TEXT, STATUS_REASON]
};
/** The stored folded column of a field (FOLDED_COLUMNS). */
export const foldedName = (field: string): string => `f_${field}`;

/** PostgreSQL: a table's folded columns (one rewrite of the table), their trigram indexes in place of the expressions'. */
function foldedColumns(table: string, fields: readonly string[]): string[] {
  const add = fields.map(f => `ADD COLUMN IF NOT EXISTS ${foldedName(f)} text GENERATED ALWAYS AS (fold(doc ->> '${f}')) STORED`);
  return [
    `ALTER TABLE ${table} ${add.join(", ")}`,
    ...fields.flatMap(f => [
      `DROP INDEX IF EXISTS tx_${table}_${f}`,
      `CREATE INDEX IF NOT EXISTS tx_${table}_${foldedName(f)} ON ${table} USING GIN (${foldedName(f)} gin_trgm_ops)`
    ]),
    `ANALYZE ${table}`
  ];
}

/** SQLite's full-text (trigram) indexes of the searched texts, by record table (docs/lists.md#search). */
export const FTS_TABLES: Record<string, FullTextTable> = {
  events: { table: "events_fts", columns: ["title", "excerpt", "description", CUSTOM_TEXT, STATUS_REASON] }
};

/**
 * The tokenizers of `events_fts`: migration 4's folds case and accents itself; migration 7's takes the
 * already-folded texts as they are, so a phrase of three characters or more matches exactly where the
 * folded field holds it (the compiler then needs no recheck of the document, store/sql/compile.ts).
 */
const TRIGRAM_FOLDING = "trigram remove_diacritics 1";
const TRIGRAM_EXACT = "trigram case_sensitive 1";

/** Every record of `table` into its full-text table. */
const ftsFill = (table: string, fts: FullTextTable): string =>
  `INSERT INTO ${fts.table} (rowid, ${fts.columns.join(", ")}) SELECT ${ftsRow(table)}, ${ftsValues(table, fts)} FROM ${table}`;

function sqliteFullText(table: string, fts: FullTextTable, tokenizer: string): string[] {
  const cols = fts.columns.join(", ");
  return [
    // contentless (the texts stay in the records), folded as the exact comparison folds them
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts.table} USING fts5(${cols}, content='', contentless_delete=1, tokenize='${tokenizer}')`,
    `CREATE TRIGGER IF NOT EXISTS ${fts.table}_ai AFTER INSERT ON ${table} BEGIN INSERT INTO ${fts.table} (rowid, ${cols}) VALUES (${ftsRow("new")}, ${ftsValues("new", fts)}); END`,
    `CREATE TRIGGER IF NOT EXISTS ${fts.table}_au AFTER UPDATE OF doc ON ${table} BEGIN DELETE FROM ${fts.table} WHERE rowid = ${ftsRow("old")}; ` +
      `INSERT INTO ${fts.table} (rowid, ${cols}) VALUES (${ftsRow("new")}, ${ftsValues("new", fts)}); END`,
    `CREATE TRIGGER IF NOT EXISTS ${fts.table}_ad AFTER DELETE ON ${table} BEGIN DELETE FROM ${fts.table} WHERE rowid = ${ftsRow("old")}; END`,
    ftsFill(table, fts)
  ];
}

/**
 * `links (site, type, field, target, id)`: one row per record (`type` its table, `id` its id) and integer
 * element (`target`) of one of its link fields (LINK_FIELDS) — a scalar stored in place of the array
 * counts as its one element, as the JSON comparison reads it. Its primary key is the index a membership
 * filter reads ("records of this type whose field F holds one of these targets": one range per target)
 * and also the one a trigger deletes a record's old rows through (it knows their targets from the old
 * document), so the table needs no second index. One table for every field and table, rather than one per
 * field: one shape, one set of triggers per record table, generated from the declaration.
 *
 * Kept by triggers on the record tables (as the full-text table of migration 4 is), so every writer —
 * any node, any statement — keeps it in the same transaction as the record; an update rewrites a field's
 * rows only when that field changed.
 */
function linkTable(d: SqlDriver): string {
  const pk = d.dialect === "sqlite" ? ") WITHOUT ROWID" : ")";
  return `CREATE TABLE IF NOT EXISTS ${LINK_TABLE} (site INTEGER NOT NULL, type ${text(d)} NOT NULL, field ${text(d)} NOT NULL, target ${bigint(d)} NOT NULL, ` +
    `id ${bigint(d)} NOT NULL, PRIMARY KEY (site, type, field, target, id)${pk}`;
}

/** SQLite: the integer elements of a field of `doc` (a JSON path read as the compiler reads it). */
function sqliteTargets(doc: string, field: string): string {
  return `SELECT DISTINCT j.value FROM json_each(${doc}, '$.${field}') AS j WHERE j.type = 'integer'`;
}

function sqliteLinks(table: string, fields: readonly string[], filled: readonly string[] = fields): string[] {
  const insert = (f: string, when = "") =>
    `INSERT OR IGNORE INTO ${LINK_TABLE} (site, type, field, target, id) SELECT new.site, '${table}', '${f}', t.value, new.id FROM (${sqliteTargets("new.doc", f)}) AS t${when ? ` WHERE ${when}` : ""};`;
  const remove = (f: string, when = "") =>
    `DELETE FROM ${LINK_TABLE} WHERE site = old.site AND type = '${table}' AND field = '${f}' AND target IN (${sqliteTargets("old.doc", f)}) AND id = old.id${when ? ` AND ${when}` : ""};`;
  const changed = (f: string) => `(old.site IS NOT new.site OR old.id IS NOT new.id OR json_extract(old.doc, '$.${f}') IS NOT json_extract(new.doc, '$.${f}'))`;
  const fill = (f: string) =>
    `INSERT OR IGNORE INTO ${LINK_TABLE} (site, type, field, target, id) SELECT r.site, '${table}', '${f}', j.value, r.id FROM ${table} AS r, json_each(r.doc, '$.${f}') AS j WHERE j.type = 'integer'`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${table}_links_ai AFTER INSERT ON ${table} BEGIN ${fields.map(f => insert(f)).join(" ")} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_links_au AFTER UPDATE ON ${table} BEGIN ${fields.map(f => `${remove(f, changed(f))} ${insert(f, changed(f))}`).join(" ")} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_links_ad AFTER DELETE ON ${table} BEGIN ${fields.map(f => remove(f)).join(" ")} END`,
    // a database of an older version: its records' links, from the records
    ...filled.map(fill)
  ];
}

/**
 * PostgreSQL: `link_targets(value)`, the integer elements of a JSON value (an array's, or the value
 * itself), and a trigger function per record table. (No question mark in these texts: the driver numbers
 * each `?` as a parameter.)
 */
function postgresLinks(table: string, fields: readonly string[], filled: readonly string[] = fields): string[] {
  const perField = fields.map(f => {
    const changed = `TG_OP <> 'UPDATE' OR OLD.site <> NEW.site OR OLD.id <> NEW.id OR (OLD.doc -> '${f}') IS DISTINCT FROM (NEW.doc -> '${f}')`;
    return `IF ${changed} THEN
      IF TG_OP <> 'INSERT' THEN
        DELETE FROM ${LINK_TABLE} WHERE site = OLD.site AND type = '${table}' AND field = '${f}' AND target IN (SELECT link_targets(OLD.doc -> '${f}')) AND id = OLD.id;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO ${LINK_TABLE} (site, type, field, target, id) SELECT NEW.site, '${table}', '${f}', t, NEW.id FROM link_targets(NEW.doc -> '${f}') AS t ON CONFLICT DO NOTHING;
      END IF;
    END IF;`;
  });
  return [
    `CREATE OR REPLACE FUNCTION ${table}_links() RETURNS trigger LANGUAGE plpgsql AS $links$ BEGIN
    ${perField.join("\n    ")}
    RETURN NULL;
    END $links$`,
    `DROP TRIGGER IF EXISTS ${table}_links ON ${table}`,
    `CREATE TRIGGER ${table}_links AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_links()`,
    ...filled.map(f => `INSERT INTO ${LINK_TABLE} (site, type, field, target, id) SELECT r.site, '${table}', '${f}', t, r.id FROM ${table} AS r, link_targets(r.doc -> '${f}') AS t ON CONFLICT DO NOTHING`)
  ];
}

const POSTGRES_LINK_TARGETS =
  "CREATE OR REPLACE FUNCTION link_targets(v jsonb) RETURNS SETOF bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $lt$ " +
  "SELECT DISTINCT e::numeric::bigint FROM jsonb_array_elements(CASE WHEN jsonb_typeof(v) = 'array' THEN v ELSE jsonb_build_array(v) END) AS e " +
  "WHERE CASE WHEN jsonb_typeof(e) = 'number' THEN e::numeric = trunc(e::numeric) AND abs(e::numeric) < 9000000000000000000 ELSE false END $lt$";

/** The index name `indexName` (store/sql/collection.ts) gives an array field's index. */
const arrayIndexName = (table: string, field: string) => `ix_${table}_${field.replace(/\./g, "_")}`;

/** The migration from which SQLite's full-text rows are queued (store/sql/full-text-queue.ts). */
const FULL_TEXT_QUEUE_VERSION = 31;

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "record tables, id sequences, post types and images",
    up: d => [
      // fold(): the case- and accent-insensitive form literal patterns compare (SQLite: a function of the connection).
      ...(d.dialect === "postgres"
        ? [
            "CREATE EXTENSION IF NOT EXISTS unaccent",
            "CREATE OR REPLACE FUNCTION fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fold$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, t)) $fold$"
          ]
        : []),
      ...Object.entries(RECORD_TABLES).map(([table, o]) => recordTable(d, table, o)),
      `CREATE TABLE IF NOT EXISTS sequences (site INTEGER NOT NULL, name ${text(d)} NOT NULL, value ${bigint(d)} NOT NULL, PRIMARY KEY (site, name))`,
      `CREATE TABLE IF NOT EXISTS post_types (site INTEGER NOT NULL, id ${bigint(d)} NOT NULL, type ${text(d)} NOT NULL, url ${text(d)}, extension ${text(d)}, PRIMARY KEY (site, id))`,
      "CREATE UNIQUE INDEX IF NOT EXISTS ix_post_types_url ON post_types (site, url)"
    ]
  },
  {
    version: 2,
    name: "sites and their API keys",
    up: d => [
      `CREATE TABLE IF NOT EXISTS sites (id ${bigint(d)} PRIMARY KEY, host ${text(d)} NOT NULL, doc ${json(d)} NOT NULL)`,
      "CREATE UNIQUE INDEX IF NOT EXISTS ix_sites_host ON sites (host)",
      `CREATE TABLE IF NOT EXISTS api_keys (site INTEGER NOT NULL, id ${bigint(d)} NOT NULL, hash ${text(d)} NOT NULL, role ${text(d)} NOT NULL, user_id ${bigint(d)} NOT NULL, PRIMARY KEY (site, id))`,
      "CREATE UNIQUE INDEX IF NOT EXISTS ix_api_keys_hash ON api_keys (hash)"
    ]
  },
  {
    version: 3,
    name: "trigram indexes of the searched texts (PostgreSQL)",
    // `search` compares folded text by substring (C37: search semantics); on PostgreSQL a trigram index of each searched
    // field narrows the rows to those that can hold the term, the exact condition still decides. SQLite
    // compares the rows of the list's other conditions (docs/lists.md#search).
    up: d => (d.dialect === "postgres"
      ? ["CREATE EXTENSION IF NOT EXISTS pg_trgm", ...SEARCHED.map(([table, path]) => trigramIndex(table, path))]
      : [])
  },
  {
    version: 4,
    name: "full-text (trigram) indexes of the searched texts (SQLite)",
    up: d => (d.dialect === "sqlite" ? Object.entries(FTS_TABLES).flatMap(([table, fts]) => sqliteFullText(table, fts, TRIGRAM_FOLDING)) : [])
  },
  {
    version: 5,
    name: "the link table of array links, kept by triggers",
    // Membership in an array field (an event's categories, venues…) is read from `links` through its key
    // (docs/lists.md#event-filters); the JSON indexes the services listed for those fields go.
    up: d => [
      linkTable(d),
      ...(d.dialect === "postgres" ? [POSTGRES_LINK_TARGETS] : []),
      ...Object.entries(LINK_FIELDS).flatMap(([table, fields]) => [
        ...fields.map(f => `DROP INDEX IF EXISTS ${arrayIndexName(table, f)}`),
        ...(d.dialect === "sqlite" ? sqliteLinks(table, fields) : postgresLinks(table, fields))
      ])
    ]
  },
  {
    version: 6,
    name: "window columns of the lists and their covering index",
    // A list's total counted from one index, not from the JSON of every event in its window (docs/lists.md#counting-a-list).
    rewrites: ["events"],
    up: d => windowColumns(d, "events", WINDOW_COLUMNS)
  },
  {
    version: 7,
    name: "exact full-text indexes of the folded searched texts (SQLite)",
    // The index answers `search` alone (docs/lists.md#search): no fold() of each candidate's fields.
    up: d => (d.dialect === "sqlite"
      ? Object.entries(FTS_TABLES).flatMap(([table, fts]) => [
        ...["ai", "au", "ad"].map(t => `DROP TRIGGER IF EXISTS ${fts.table}_${t}`),
        `DROP TABLE IF EXISTS ${fts.table}`,
        ...sqliteFullText(table, fts, TRIGRAM_EXACT)
      ])
      : [])
  },
  {
    version: 8,
    name: "statistics of the type tests of ranged fields (PostgreSQL)",
    // A list's page read in date order from its index, not sorted from a scan of the table (RANGED_FIELDS).
    up: d => (d.dialect === "postgres" ? Object.entries(RANGED_FIELDS).flatMap(([table, fields]) => typeStatistics(table, fields)) : [])
  },
  {
    version: 9,
    name: "the searched texts stored folded, with their trigram indexes (PostgreSQL)",
    // A search compares stored folded text (FOLDED_COLUMNS), not fold() of each candidate's document.
    rewrites: Object.keys(FOLDED_COLUMNS),
    up: d => (d.dialect === "postgres" ? Object.entries(FOLDED_COLUMNS).flatMap(([table, fields]) => foldedColumns(table, fields)) : [])
  },
  {
    version: 10,
    name: "the password among the window columns",
    // An anonymous search's count tells readable events from the window index, reading no document (D34: search never matches through hidden fields).
    rewrites: ["events"],
    up: d => windowColumns(d, "events", [PASSWORD_COLUMN], [...WINDOW_COLUMNS, PASSWORD_COLUMN])
  },
  {
    version: 11,
    name: "the window columns keyed by id (SQLite)",
    // A list filtered by two links tests each linked event's window from an index, not its document
    // (idWindowIndexName). PostgreSQL stores the columns in the row: nothing to compute there.
    up: d => (d.dialect === "sqlite"
      ? [idWindowIndex("events", [...WINDOW_COLUMNS, PASSWORD_COLUMN])]
      : [])
  },
  {
    version: 12,
    name: "one folding of text on every store",
    // A term and the texts it is compared with fold alike on every store (lib/text/fold.ts): SQLite's full-text
    // index is filled again with the new folding; PostgreSQL's fold() is replaced, its stored folded texts
    // computed again (the columns made anew) and the indexes of fold() expressions rebuilt.
    rewrites: Object.keys(FOLDED_COLUMNS),
    up: d => (d.dialect === "sqlite"
      ? Object.entries(FTS_TABLES).flatMap(([table, fts]) => [
        `INSERT INTO ${fts.table} (${fts.table}) VALUES ('delete-all')`,
        ftsFill(table, fts)
      ])
      : [foldFunctionSql(), ...refolding()])
  },
  {
    version: 13,
    name: "fold() lower-cases every script whatever the database's LC_CTYPE (PostgreSQL)",
    // Under an LC_CTYPE of C or POSIX, `lower` left Cyrillic and Greek letters as they were, so folded
    // searches there were case-sensitive where SQLite's are not. Where that is so (and only there: a database
    // whose `lower` folds them keeps its function and its stored texts), fold() lower-cases under the first
    // of FOLD_COLLATIONS the server has, and the stored folded texts and fold() indexes are made again as
    // migration 12 made them. A server with none of them keeps the old function (store/sql/text-order.ts
    // then warns at every opening).
    up: d => (d.dialect === "sqlite" ? [] : [refoldWhereLowerIsAscii()])
  },
  {
    version: 14,
    name: "term counts kept by triggers in the event write's transaction, the feed numbered by transaction (PostgreSQL)",
    // Counts can no longer fall behind their events after a crash (store/sql/term-counts.ts);
    // every count is recomputed once from the events. PostgreSQL's feed entries take their transaction's
    // id (feed_id), so a reader never passes a change still being committed (store/sql/feed.ts, C43: the change feed on PostgreSQL).
    up: d => termCountStatements(d.dialect)
  },
  {
    version: 15,
    name: "the publication date among the window columns",
    // A list's status as C13 (a due `future` post counts as published) reads it (a due `future` event as published) is tested on the window index,
    // and its total counted from that index alone again (DATE_UTC_COLUMN, docs/lists.md#counting-a-list).
    rewrites: ["events"],
    up: d => [
      ...windowColumns(d, "events", [DATE_UTC_COLUMN], LIST_COLUMNS.events),
      ...(d.dialect === "sqlite" ? [`DROP INDEX IF EXISTS ${idWindowIndexName("events")}`, idWindowIndex("events", LIST_COLUMNS.events)] : [])
    ]
  },
  {
    version: 16,
    name: "write marks: what a kept total is checked against",
    // Every write of an event or a translation moves its site's mark on in its own transaction, so a list's
    // total counted with the mark stays exact while the mark reads the same (store/sql/write-marks.ts,
    // docs/lists.md#counting-a-list).
    up: d => writeMarkStatements(d.dialect)
  },
  {
    version: 17,
    name: "the event write's trigger functions keep their plans (PostgreSQL)",
    // Each statement of the triggers was planned again on every row (store/sql/term-counts.ts keptPlanStatements).
    up: d => (d.dialect === "postgres" ? [...keptPlanStatements(Object.keys(LINK_FIELDS)), ...markFunctions().map(f => `ALTER FUNCTION ${f} SET plan_cache_mode = auto`)] : [])
  },
  {
    version: 18,
    name: "the webhooks' tables made by the schema, their deliveries and payloads stamped for retention",
    // A site's purge removes them with it (FEATURE_TABLES); deliveries and payloads carry when they were
    // made (`at`), and those made before are stamped now, so WEBHOOK_RETENTION_DAYS counts from the upgrade.
    up: d => {
      const now = Date.now();
      const stamp = (table: string) => (d.dialect === "postgres"
        ? `UPDATE ${table} SET doc = doc || jsonb_build_object('at', ${now}::bigint) WHERE (doc -> 'at') IS NULL`
        : `UPDATE ${table} SET doc = jsonb_set(doc, '$.at', ${now}) WHERE json_extract(doc, '$.at') IS NULL`);
      return [...FEATURE_TABLES.filter(t => t.startsWith("webhook")).map(t => recordTable(d, t, {})), stamp("webhook_deliveries"), stamp("webhook_payloads")];
    }
  },
  {
    version: 19,
    name: "the imports service's tables, made by the schema",
    // A site's purge removes its import data (store/sites.ts): the tables exist whether or not the service
    // ever ran on this store (store/sql/import-tables.ts).
    up: d => IMPORT_TABLES.map(table => recordTable(d, table, {}))
  },
  {
    version: 21,
    name: "custom fields: definitions, value tokens in the link table, text values searched",
    // A record's custom field tokens are link rows (CUSTOM_LINKS, kept by the link triggers now made on
    // venues and organizers too), its text values one more searched text (CUSTOM_TEXT): SQLite's
    // full-text table made again with it, PostgreSQL's folded column and trigram index added. Idempotent,
    // so a database made after this version's LINK_FIELDS (its migration 5 already doing part of it) is right too.
    rewrites: ["events"],
    up: d => customFieldStatements(d)
  },
  {
    version: 23,
    name: "how often each deprecated thing was used, per site",
    // store/deprecation-uses.ts (docs/api-policy.md#deprecations); a fresh database has it from migration 1.
    up: d => [recordTable(d, "deprecation_uses", RECORD_TABLES.deprecation_uses)]
  },
  {
    version: 25,
    name: "an event's status reason searched with its texts",
    // SQLite's full-text table made again with the reason's column (filled from the records);
    // PostgreSQL's folded column and trigram index added, and the translations' reason indexed as their
    // other searched texts are. Idempotent, as migration 21.
    rewrites: ["events"],
    up: d => statusReasonStatements(d)
  },
  {
    version: 26,
    name: "stored renderings: each record's answer kept beside it, removed by every write of it",
    // store/sql/renderings.ts; empty at first: a record's renderings are kept by the reads that make them
    up: d => renderingStatements(d.dialect)
  },
  {
    version: 27,
    name: "room for 1 024 change-feed entries in one transaction",
    // PostgreSQL's feed_id places a transaction's entries 64 apart instead of 1 024 (store/sql/term-counts.ts
    // FEED_ID_STEP): a batch of records in one transaction overflowed the 64 a transaction had room for.
    up: d => (d.dialect === "postgres" ? [feedIdFunction()] : [])
  },
  {
    version: 29,
    name: "stored renderings on SQLite kept by rowid",
    // store/sql/renderings.ts renderingsByRowid: a lookup by key no longer reads each compared answer whole
    up: d => renderingsByRowid(d.dialect)
  },
  {
    version: 30,
    name: "stored renderings: when each variant was last read",
    // store/sql/renderings.ts forgetUnread: the renderings of addresses or languages nobody reads any more are removed
    up: d => renderingVariantStatements(d.dialect)
  },
  {
    version: FULL_TEXT_QUEUE_VERSION,
    name: "SQLite: the full-text index written once per transaction",
    // store/sql/full-text-queue.ts: the triggers queue the rows written; the driver indexes them before the commit
    up: d => (d.dialect === "sqlite" ? Object.entries(FTS_TABLES).flatMap(([table, fts]) => fullTextQueueStatements(table, fts)) : [])
  },
  {
    version: 32,
    name: "link pairs: how many records hold each two links together",
    // store/sql/link-pairs.ts: a list filtered by a category and a venue that share no event reads none of their links
    up: d => linkPairStatements(d.dialect, PAIRED_FIELDS)
  },
  {
    version: 33,
    name: "SQLite: the order's publication date in the index keyed by id",
    // ID_WINDOW_ORDER: a page its links drive is sorted from that index, and only its own documents are read
    up: d => (d.dialect === "sqlite" ? [
      ...ID_WINDOW_ORDER.events.map(c => generatedColumn(d, "events", c)),
      `DROP INDEX IF EXISTS ${idWindowIndexName("events")}`,
      idWindowIndex("events", [...LIST_COLUMNS.events, ...ID_WINDOW_ORDER.events])
    ] : [])
  },
  {
    version: 34,
    name: "the records holding each two links together",
    // store/sql/pair-members.ts: a list filtered by a category and a venue reads the events holding both, not either one's links
    up: d => pairMemberStatements(d.dialect, PAIRED_FIELDS),
    rewrites: ["link_pair_members"]
  },
  {
    version: 35,
    name: "stored renderings: a record's whole answer composed from them",
    // store/sql/renderings.ts renderingAnswerStatements: an event read whole answers its composed text while
    // every rendering it was composed from is still the one stored
    up: d => renderingAnswerStatements(d.dialect)
  },
  {
    version: 36,
    name: "stored renderings: a record's answer without its JSON-LD composed too",
    // store/sql/renderings.ts renderingPlainAnswerStatements: a list page is sent as its events' composed texts
    up: () => renderingPlainAnswerStatements()
  },
  {
    version: 37,
    name: "an event write's triggers: a record's link pairs read from its document once, a term's own counts moved in one update",
    // store/sql/link-pairs.ts sqlitePairs, store/sql/term-counts.ts: the same rows kept, with less work in each write
    up: d => [...linkPairTriggersAgain(d.dialect, PAIRED_FIELDS), ...pairMemberTriggersAgain(d.dialect, PAIRED_FIELDS), ...termCountTriggersAgain(d.dialect)]
  }
];

/** SQLite: the queued full-text rows written, before each commit, once the store queues them. */
async function drainFullTextQueue(driver: SqlDriver): Promise<void> {
  if (driver.dialect !== "sqlite" || !(await appliedVersions(driver)).includes(FULL_TEXT_QUEUE_VERSION)) return;
  driver.beforeCommit = { when: FULL_TEXT_QUEUED, run: Object.entries(FTS_TABLES).flatMap(([table, fts]) => fullTextDrain(table, fts)) };
  // a commit now indexes what a writer without the drain left queued (an earlier migration's rewrite of records)
  await driver.unit!(() => undefined);
}

/** Migration 25's statements (see there). */
function statusReasonStatements(d: SqlDriver): string[] {
  if (d.dialect === "sqlite") {
    const fts = FTS_TABLES.events;
    return [
      ...["ai", "au", "ad"].map(x => `DROP TRIGGER IF EXISTS ${fts.table}_${x}`),
      `DROP TABLE IF EXISTS ${fts.table}`,
      ...sqliteFullText("events", fts, TRIGRAM_EXACT)
    ];
  }
  return [...foldedColumns("events", [STATUS_REASON]), trigramIndex("translations", ["lc", STATUS_REASON]), trigramIndex("translations", ["fb", STATUS_REASON])];
}

/** Migration 21's statements (see there). */
function customFieldStatements(d: SqlDriver): string[] {
  const tables = ["field_definitions", "field_tokens"].map(t => recordTable(d, t, RECORD_TABLES[t]));
  const linked = ["venues", "organizers"];
  if (d.dialect === "sqlite") {
    const fts = FTS_TABLES.events;
    return [
      ...tables,
      ...["events", ...linked].flatMap(t => ["ai", "au", "ad"].map(x => `DROP TRIGGER IF EXISTS ${t}_links_${x}`)),
      ...sqliteLinks("events", LINK_FIELDS.events, [CUSTOM_LINKS]),
      ...linked.flatMap(t => sqliteLinks(t, LINK_FIELDS[t])),
      ...["ai", "au", "ad"].map(x => `DROP TRIGGER IF EXISTS ${fts.table}_${x}`),
      `DROP TABLE IF EXISTS ${fts.table}`,
      ...sqliteFullText("events", fts, TRIGRAM_EXACT)
    ];
  }
  return [
    ...tables,
    ...postgresLinks("events", LINK_FIELDS.events, [CUSTOM_LINKS]),
    ...linked.flatMap(t => postgresLinks(t, LINK_FIELDS[t])),
    ...keptPlanStatements(["events", ...linked]),
    ...foldedColumns("events", [CUSTOM_TEXT])
  ];
}

/** PostgreSQL: the stored folded texts computed again (the columns made anew) and the indexes of fold() expressions rebuilt. */
function refolding(): string[] {
  return [
    ...Object.entries(FOLDED_COLUMNS).flatMap(([table, fields]) => [
      `ALTER TABLE ${table} ${fields.map(f => `DROP COLUMN IF EXISTS ${foldedName(f)}`).join(", ")}`,
      ...foldedColumns(table, fields)
    ]),
    ...[...new Set(SEARCHED.filter(([table]) => !FOLDED_COLUMNS[table]).map(([table]) => table))].map(table => `REINDEX TABLE ${table}`)
  ];
}

/** Migration 13 as one block: whether `lower` folds beyond ASCII here is known only in the database. */
function refoldWhereLowerIsAscii(): string {
  const quoted = (tag: string, sql: string) => `$${tag}$${sql}$${tag}$`;
  const choices = FOLD_COLLATIONS.map((c, i) =>
    `${i === 0 ? "IF" : "ELSIF"} EXISTS (SELECT 1 FROM pg_collation WHERE collname = ${quoted("name", c)}) THEN EXECUTE ${quoted(`fold${i}`, foldFunctionSql(c))};`);
  return [
    "DO $migration$ BEGIN",
    "IF lower('ДЖАЗ') = 'джаз' THEN RETURN; END IF;",
    ...choices,
    "ELSE RETURN; END IF;",
    ...refolding().map(sql => `EXECUTE ${quoted("step", sql)};`),
    "END $migration$"
  ].join("\n");
}

/**
 * The planner's statistics, made when the store opens (after the migrations): they let it choose between
 * a list's indexes — its date range or the link table (docs/lists.md#event-filters). SQLite: for the
 * tables that have none or grew or shrank much since (the driver refreshes them hourly too). PostgreSQL:
 * for the tables never analyzed, or changed since by more rows than half of what they hold — a table
 * analyzed empty when it was made and filled since, too (autovacuum, where it runs, keeps them afterwards).
 */
export async function refreshStatistics(driver: SqlDriver): Promise<void> {
  try {
    if (driver.dialect === "sqlite") {
      await analyzedWithoutSamples(driver, "PRAGMA optimize=0x10002");
      return;
    }
    const stale = await driver.all<{ relname: string }>(
      "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND n_live_tup > 0 " +
      "AND ((last_analyze IS NULL AND last_autoanalyze IS NULL) OR n_mod_since_analyze * 2 > n_live_tup)");
    for (const { relname } of stale) if (/^[a-z_][a-z0-9_]*$/.test(relname)) await driver.run(`ANALYZE ${relname}`);
  } catch {
    // Statistics only speed plans up: a store that cannot make them now still answers the same.
  }
}

export async function appliedVersions(driver: SqlDriver): Promise<number[]> {
  await driver.run(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name ${text(driver)} NOT NULL, applied_at ${text(driver)} NOT NULL)`);
  return (await driver.all<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map(r => Number(r.version));
}

/** Brings the schema up to `upTo` (all migrations by default); answers the versions it applied. */
export async function migrate(driver: SqlDriver, upTo = Infinity, onWait?: () => void): Promise<number[]> {
  // a node starting while another migrates waits for it, however long its migration takes (`onWait` told)
  const applied = await driver.withLock(MIGRATION_LOCK, async () => {
    const done = new Set(await appliedVersions(driver));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version > upTo || done.has(m.version)) continue;
      await driver.transaction(async tx => {
        // Another node may have applied it since (SQLite has no lock outside a transaction).
        if ((await tx.all("SELECT version FROM schema_migrations WHERE version = ?", [m.version])).length) return;
        for (const statement of m.up(driver)) await tx.run(statement);
        await tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [m.version, m.name, new Date().toISOString()]);
      }, { unbounded: true });
      applied.push(m.version);
    }
    return applied;
  }, { unbounded: true, onWait });
  await vacuumRewritten(driver, applied);
  await drainFullTextQueue(driver);
  return applied;
}

/** PostgreSQL: the tables the `applied` migrations rewrote, vacuumed (Migration `rewrites`; VACUUM runs outside a transaction). */
async function vacuumRewritten(driver: SqlDriver, applied: readonly number[]): Promise<void> {
  if (driver.dialect !== "postgres") return;
  const tables = new Set(MIGRATIONS.filter(m => applied.includes(m.version)).flatMap(m => m.rewrites ?? []));
  for (const table of tables) {
    try {
      await driver.run(`VACUUM (ANALYZE) ${table}`);
    } catch {
      // a vacuum only speeds counts up (the store's upkeep or autovacuum may do it later): the store answers the same
    }
  }
}
