/**
 * One run of an import (docs/imports.md#a-run): reads the source and writes each of its records through
 * the record services, once. What it needs from outside comes through `ImportPorts` (the source fetch
 * under the outbound address rules, the record services' actions, the store), so it is tested without a
 * broker.
 *
 * Idempotency (docs/imports.md#idempotency): every source record has one mapping row in the store, keyed
 * `{source}|{kind}|{source id}` by a unique index (the source: a TEC site's namespace address, or `ics`
 * for iCalendar, whose UIDs are global), holding our record's id, the digest of what was last written
 * from it, and the run that last saw it: any import of the same source, again or anew, finds it. The row
 * is stored after the record's write; an event created by a run that died before storing its row carries
 * its source identity (`import_source`), so the next run finds it instead of creating it again. Venues,
 * organizers and terms are found again by name as every create finds them (D25: duplicate venues and organizers; `term_exists`).
 */
import { createHash } from "crypto";
import type { Collection, Doc } from "../../store/collection";
import { IcsEvent, IcsFormatError, readIcs } from "../../lib/imports/ics-reader";
import { boundedEach } from "../../lib/async/bounded-each";
import type { BatchReads } from "../../lib/imports/batch-reads";
import { seriesToHorizon } from "../../lib/imports/series-to-horizon";
import type { ImportAuth, ImportSettings } from "../../lib/imports/params";
import {
  defaultRestRoot, eventInput, IdMaps, isLaterOccurrence, listUrl, organizerInput, pageRecords, parentsFirst, restRootFromLink, TecList, termInput, TEC_NAMESPACES,
  totalPagesOf, venueInput
} from "../../lib/imports/tec";
import { metaOfTexts, planTextFields, sourceFieldTexts, type SourceFieldText, type TextFieldDef } from "../../lib/imports/tec-fields";

type Rec = Record<string, unknown>;

export interface FetchAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: Buffer;
  url: string;
}

/** The source identity stored with an imported record (C64: what an import brings); `key` names the source and the record in it. */
export interface ImportSource {
  import: number;
  source_id: string;
  key: string;
}

export interface ImportPorts {
  /** A GET of the source under the outbound rules (redirects followed, each checked); throws when there is no answer. */
  fetch(url: string, headers: Record<string, string>): Promise<FetchAnswer>;
  /**
   * A record service's action, called as the site's administrator; `source` is stored with a created record;
   * `batch`: the reads the writes of one batch share (lib/imports/batch-reads.ts), carried on the call's meta.
   */
  call<T = Rec>(action: string, params: Rec, source?: ImportSource, batch?: BatchReads): Promise<T>;
  /** The mapping rows of the site (see the header). */
  mappings: Collection;
  /** Our event carrying this source identity, if one exists (a create whose row was never completed). */
  findImportedEvent(source: ImportSource): Promise<number | undefined>;
  /** Stores the progress; answers false when this runner lost its claim (the run stops). */
  progress(counts: RunCounts): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /**
   * One transaction shared by a batch of writes (the store's, on PostgreSQL; absent elsewhere): commits
   * everything `fn` writes at once, or, when `fn` throws or one of its statements failed, nothing of it.
   */
  shared?<T>(fn: () => Promise<T>): Promise<T>;
  /** How far a series is materialised now (UTC `YYYY-MM-DD HH:MM:SS`) and the site's zone: an imported series is kept to it. */
  horizon(): { utc: string; siteZone: string };
}

export interface RunCounts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
  trashed: number;
  errors: Array<{ source: string; message: string }>;
}

export const emptyCounts = (): RunCounts => ({ created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, trashed: 0, errors: [] });

/** The most per-record errors kept on an import. */
const MAX_ERRORS = 100;
/** Progress is stored (and the claim renewed) after this many records at most. */
const PROGRESS_EVERY = 20;
/** Tries of one page answered 429/503 before the run fails. */
const BUSY_TRIES = 6;

/** The run's failure: the import ends `failed` with this message. */
export class ImportFailed extends Error {}
/** The runner lost its claim (another node took the import over): it stops without a word. */
export class ClaimLost extends Error {}

export interface RunJob {
  id: number;
  run: number;
  settings: ImportSettings;
  /** A dry run (docs/imports.md#dry-run): every read, no write; the counts say what a run would do. */
  dryRun?: boolean;
}

/** Records of a page or a feed written at once (each its own writes, several in flight on the store's pool). */
const WRITE_WIDTH = 8;
/** How long a run waits for another run that reserved a source record to write it before taking it over. */
const RESERVATION_WAIT_MS = 30_000;
/** The most occurrences an imported unbounded series keeps up to the horizon (the cap of C52 (the recurrence rules accepted), with room for the horizon's move). */
const SERIES_KEPT = 990;
/** Feed events whose rows are read in one query. */
const TEC_PER_PAGE_AHEAD = 50;

/** A stable digest of a write's input. */
export function digestOf(input: unknown): string {
  return createHash("sha1").update(JSON.stringify(input)).digest("hex");
}

function authHeader(auth: ImportAuth | undefined): Record<string, string> {
  if (!auth) return {};
  if ("bearer" in auth) return { authorization: `Bearer ${auth.bearer}` };
  return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
}

function errorText(err: unknown): string {
  const e = err as { message?: string; data?: unknown };
  const data = e?.data as { params?: unknown } | Array<{ field?: string; message?: string }> | undefined;
  // a validation error lists its fields (an array), an ApiError names its parameters
  const detail = Array.isArray(data) ? data.map(d => d.message ?? d.field).join("; ")
    : data?.params && typeof data.params === "object" ? Object.keys(data.params as object).join(", ") : "";
  return `${e?.message ?? String(err)}${detail ? ` (${detail})` : ""}`;
}

/** A record's name as answered (HTML entities of the five characters WordPress escapes read back), trimmed, lower case. */
function plainName(value: unknown): string {
  const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", "#039": "'", "#39": "'" };
  return String(value ?? "").replace(/&(amp|lt|gt|quot|#0?39);/g, (_, e: string) => entities[e]).trim().toLowerCase();
}

const isUnique = (err: unknown): boolean => (err as { name?: string })?.name === "UniqueViolation" || /unique/i.test(String((err as Error)?.message));

export class ImportRun {
  private readonly headers: Record<string, string>;
  private sinceProgress = 0;
  /** The source's name in mapping keys (see the header). */
  private source = "ics";
  /**
   * The feed whose records `trash_missing` looks at: a TEC site, an iCalendar URL, or an iCalendar text by
   * its calendar's name (a text has no address); rows hold the feed that last listed their record.
   */
  private feed = "";
  /** What a mapping row's `run` holds once this run saw its record. */
  private readonly token: string;
  /** The venues, organizers and categories of iCalendar events resolved by this run, by kind and name (withLinkedIds). */
  private readonly linked = new Map<string, Promise<number>>();
  /** The keys of the source records this run saw (a dry run stores no mark: trash_missing reads these). */
  private readonly seenKeys = new Set<string>();
  /** Rows read ahead for the records about to be written, by key (one query for a page or a slice of a feed). */
  private readonly rowsAhead = new Map<string, Doc | null>();
  /** The reads shared by the writes of the batch being written in one transaction (writeAll), while it runs. */
  private batchReads?: BatchReads;
  /** The mapping rows of the batch's new records, stored together at its end (storeBatchRows), by key. */
  private readonly batchRows = new Map<string, Doc>();
  /** The progress write in flight (writes in parallel share it). */
  private flushing: Promise<void> | null = null;
  /** The site's event field definitions (read once a run, with what it makes), for a TEC source's custom fields. */
  private eventFields?: TextFieldDef[];
  /** Label → key the run writes a TEC source's custom field texts under. */
  private readonly fieldKeys = new Map<string, string>();

  constructor(private readonly job: RunJob, private readonly ports: ImportPorts, readonly counts: RunCounts) {
    this.headers = authHeader(job.settings.auth);
    this.token = `${job.id}:${job.run}`;
  }

  /** Runs the import to its end; throws ImportFailed (the source) or ClaimLost. */
  async run(): Promise<RunCounts> {
    if (this.job.settings.type === "ics") await this.runIcs();
    else await this.runTec();
    if (this.job.settings.trash_missing) await this.trashMissing();
    await this.flush(true);
    return this.counts;
  }

  // -- the source ---------------------------------------------------------------------------------------

  private async get(url: string, accept: string): Promise<FetchAnswer> {
    for (let attempt = 1; ; attempt++) {
      let res: FetchAnswer;
      try {
        res = await this.ports.fetch(url, { accept, ...this.headers });
      } catch (err) {
        throw new ImportFailed(`GET ${url}: ${(err as Error).message}`);
      }
      if ((res.status === 429 || res.status === 503) && attempt < BUSY_TRIES) {
        // polite to a busy source: its Retry-After (seconds, at most 30), else a growing pause
        const after = Number(res.headers["retry-after"]);
        await this.ports.sleep(Number.isFinite(after) && after >= 0 ? Math.min(after, 30) * 1000 : 500 * 2 ** attempt);
        continue;
      }
      return res;
    }
  }

  private async getJson(url: string): Promise<{ body: unknown; headers: Record<string, unknown> }> {
    const res = await this.get(url, "application/json");
    if (res.status !== 200) throw new ImportFailed(`GET ${url} answered ${res.status}`);
    try {
      return { body: JSON.parse(res.body.toString("utf8")), headers: res.headers };
    } catch {
      throw new ImportFailed(`GET ${url} did not answer JSON`);
    }
  }

  /** The namespace root of the TEC API the site serves (WordPress discovery, then each namespace). */
  async discover(site: string): Promise<string> {
    const home = await this.get(site, "application/json, text/html");
    const roots: string[] = [];
    const linked = restRootFromLink(home.headers.link as string | string[] | undefined);
    if (linked) roots.push(new URL(linked, home.url).toString());
    roots.push(defaultRestRoot(home.url));
    if (home.status !== 200 && !linked) throw new ImportFailed(`GET ${site} answered ${home.status}`);
    for (const root of [...new Set(roots)]) {
      for (const ns of TEC_NAMESPACES) {
        const url = `${root}${ns}`;
        let res: FetchAnswer;
        try {
          res = await this.get(url, "application/json");
        } catch {
          continue; // a root the site names but that does not answer (a wrong site address setting): the next one
        }
        if (res.status !== 200) continue;
        try {
          const index = JSON.parse(res.body.toString("utf8")) as Rec;
          if (index && (index.namespace === ns || (index.routes && typeof index.routes === "object"))) return url;
        } catch {
          /* not this one */
        }
      }
    }
    throw new ImportFailed(`${site} does not serve The Events Calendar's REST API (no ${TEC_NAMESPACES.join(" or ")} found)`);
  }

  /** Every record of a list, page by page, one page at a time. */
  private async *pages(ns: string, list: TecList): AsyncGenerator<Rec[]> {
    // a source that refuses the list of statuses (a plugin version without it) is asked for its default ones
    let statuses = true;
    for (let page = 1, pages = 1; page <= pages; page++) {
      if (statuses && page === 1 && (list === "venues" || list === "organizers" || list === "events")) {
        const probe = await this.get(listUrl(ns, list, 1), "application/json");
        if (probe.status === 400) statuses = false;
      }
      const { body, headers } = await this.getJson(listUrl(ns, list, page, statuses));
      const records = pageRecords(list, body);
      if (!records) throw new ImportFailed(`${listUrl(ns, list, page, statuses)} is not a list of ${list}`);
      pages = totalPagesOf(body, headers, page);
      yield records;
      if (records.length === 0) break;
    }
  }

  // -- TEC ------------------------------------------------------------------------------------------------

  private async runTec(): Promise<void> {
    const ns = await this.discover(this.job.settings.url!);
    this.source = ns.replace(/^https?:\/\//i, "").replace(/\/+$/, "").toLowerCase();
    this.feed = this.source;
    const status = this.job.settings.status;
    const maps: IdMaps = { categories: new Map(), tags: new Map(), venues: new Map(), organizers: new Map() };
    for (const [list, taxonomy] of [["categories", "categories"], ["tags", "tags"]] as const) {
      const all: Rec[] = [];
      for await (const page of this.pages(ns, list)) all.push(...page);
      for (const term of taxonomy === "categories" ? parentsFirst(all) : all) {
        const parent = taxonomy === "categories" ? (Number(term.parent) > 0 ? maps.categories.get(Number(term.parent)) ?? 0 : 0) : undefined;
        const input = termInput(term, parent);
        const id = await this.upsert(list, String(term.id), input, {
          create: async source => this.createTerm(taxonomy, input, source),
          update: async local => { await this.call(`taxonomy.${taxonomy}.update`, { id: local, ...input }); }
        });
        if (id !== undefined) maps[list].set(Number(term.id), id);
      }
    }
    for (const [list, kind] of [["venues", "venues"], ["organizers", "organizers"]] as const) {
      for await (const page of this.pages(ns, list)) {
        await this.readRowsAhead(list, page.map(r => String(r.id)));
        await boundedEach(page, WRITE_WIDTH, async r => {
          const input = kind === "venues" ? venueInput(r, status) : organizerInput(r, status);
          const id = await this.upsert(list, String(r.id), input, {
            create: async source => Number((await this.call<Rec>(`${kind}.create`, input, source)).id),
            update: async local => { await this.call(`${kind}.update`, { id: local, ...input }); }
          });
          if (id !== undefined) maps[list].set(Number(r.id), id);
        });
      }
    }
    const series = new Set<number>();
    for await (const page of this.pages(ns, "events")) {
      const wanted: Rec[] = [];
      for (const r of page) {
        if (Array.isArray(r.recurrence) && r.recurrence.length) series.add(Number(r.id));
        if (!isLaterOccurrence(r, series)) wanted.push(r);
      }
      await this.readRowsAhead("events", wanted.map(r => String(r.id)));
      // the source's custom fields (TEC Pro's, or another deployment's) as text fields named by their labels (C69: custom fields everywhere their record goes)
      const texts = wanted.map(sourceFieldTexts);
      await this.textFields(texts.flat());
      await this.writeAll(wanted.map((r, k) => ({
        key: this.keyOf("events", String(r.id)),
        write: async () => {
          const input = eventInput(r, maps, status);
          const meta = metaOfTexts(texts[k], this.fieldKeys);
          if (meta) input.meta = meta;
          await this.upsertEvent(String(r.id), input);
        }
      })));
    }
  }

  /**
   * The keys of `values`' labels, the text fields a label has none of made first (a dry run makes none and
   * counts as if it had). A create that fails because another run made the same field at once (or took its
   * key) is planned again from the definitions as they are then.
   */
  private async textFields(values: SourceFieldText[]): Promise<void> {
    const missing = values.filter(v => !this.fieldKeys.has(v.label));
    if (!missing.length) return;
    const read = async () => this.call<TextFieldDef[]>("taxonomy.fields.definitions", { object_type: "event", fresh: true });
    this.eventFields ??= await read();
    for (let attempt = 1; ; attempt++) {
      const plan = planTextFields(this.eventFields, missing);
      try {
        for (const made of plan.create) {
          if (!this.job.dryRun) await this.call("taxonomy.fields.create", { ...made, object_type: "event" });
          this.eventFields.push(made);
        }
        for (const [label, key] of plan.keys) this.fieldKeys.set(label, key);
        return;
      } catch (err) {
        this.eventFields = await read();
        if (attempt < 3) continue;
        // a field the site cannot take (its limit reached): its values are left out, the events still written
        for (const [label, key] of planTextFields(this.eventFields, missing).keys) {
          if (this.eventFields.some(d => d.key === key)) this.fieldKeys.set(label, key);
          else this.fail(`custom field ${label}`, errorText(err), false);
        }
        return;
      }
    }
  }

  /** A term's create; one that exists already (same name and parent, or slug) is taken as it is. */
  private async createTerm(taxonomy: string, input: Rec, source?: ImportSource): Promise<number> {
    try {
      return Number((await this.call<Rec>(`taxonomy.${taxonomy}.create`, input, source)).id);
    } catch (err) {
      const e = err as { type?: string; data?: { term_id?: unknown } };
      if (e?.type === "term_exists" && Number(e.data?.term_id) > 0) return Number(e.data!.term_id);
      throw err;
    }
  }

  // -- iCalendar ----------------------------------------------------------------------------------------

  private async runIcs(): Promise<void> {
    let text = this.job.settings.ics;
    if (text === undefined) {
      const res = await this.get(this.job.settings.url!, "text/calendar, */*");
      if (res.status !== 200) throw new ImportFailed(`GET ${this.job.settings.url} answered ${res.status}`);
      text = res.body.toString("utf8");
    }
    let feed;
    try {
      feed = readIcs(text, this.job.settings.status ?? "publish");
    } catch (err) {
      if (err instanceof IcsFormatError) throw new ImportFailed(err.message);
      throw err;
    }
    this.feed = this.job.settings.url ? `ics:${this.job.settings.url}` : `ics-text:${feed.name}`;
    for (const e of feed.warnings) this.fail(e.source, e.message, false);
    for (const e of feed.errors) {
      this.fail(e.source, e.message, true);
      // present but unreadable: not missing (C66: what `trash_missing` trashes), its record left as it is
      if (!e.source.startsWith("VEVENT #")) await this.markSeen("events", e.source);
    }
    this.counts.skipped += feed.skipped;
    for (let at = 0; at < feed.events.length; at += TEC_PER_PAGE_AHEAD) {
      const slice = feed.events.slice(at, at + TEC_PER_PAGE_AHEAD);
      await this.readRowsAhead("events", slice.map(e => e.sourceId));
      // venues, organizers and categories resolved in the feed's order: the first event naming one gives
      // its data (its name's case), as when the events were written one after another
      if (!this.job.dryRun) for (const event of slice) this.primeLinked(event.input);
      await this.writeAll(slice.map(event => ({ key: this.keyOf("events", event.sourceId), write: () => this.writeIcsEvent(event) })));
    }
  }

  /** One event of a feed and its changed occurrences. */
  private async writeIcsEvent(event: IcsEvent): Promise<void> {
    const local = await this.upsertEvent(event.sourceId, event.input);
    if (local === undefined) return;
    for (const ex of event.exceptions) {
      await this.upsert("occurrences", ex.sourceId, ex.input, {
        create: async () => {
          const id = await this.occurrenceAt(local, ex.identity);
          if (id === undefined) throw new Error(`no occurrence of the series starts at ${ex.identity}`);
          await this.call("events.update", { id, scope: "this", ...ex.input });
          return id;
        },
        update: async id => { await this.call("events.update", { id, scope: "this", ...ex.input }); }
      });
    }
  }

  /** The occurrence of a series whose start is `identity` (its original local start, C53: occurrence identity, exceptions and scope). */
  private async occurrenceAt(series: number, identity: string): Promise<number | undefined> {
    const day = identity.slice(0, 10);
    for (let page = 1; page <= 40; page++) {
      const list = await this.call<Rec>("events.occurrences", { id: series, page, per_page: 50, start_date: `${day} 00:00:00`, end_date: `${day} 23:59:59`, status: "publish,future,draft,pending,private" });
      const events = Array.isArray(list.events) ? (list.events as Rec[]) : [];
      const hit = events.find(e => e.start_date === identity);
      if (hit) return Number(hit.id);
      if (page >= Number(list.total_pages ?? 1)) break;
    }
    return undefined;
  }

  // -- writing ----------------------------------------------------------------------------------------

  /** A record service's action (ImportPorts.call), with the reads of the batch being written, if any. */
  private call<T = Rec>(action: string, params: Rec, source?: ImportSource): Promise<T> {
    return this.ports.call<T>(action, params, source, this.batchReads);
  }

  /** The mapping key of a source record (see the header). */
  private keyOf(kind: string, sourceId: string): string {
    return `${this.source}|${kind}|${sourceId}`;
  }

  /**
   * The writes of a page or a slice of a feed. Where the store shares a transaction among writes
   * (`ports.shared`), the records this import never wrote (no mapping row read ahead) are written in one
   * transaction, one after another: one commit for them all instead of several each (docs/imports.md#measured).
   * When that transaction fails (a statement of it failed: another run reserved one of the records at the
   * same moment, say), nothing of it was written, and each of those records is written again on its own,
   * as the other records (updates, unchanged ones) are: several at once.
   */
  private async writeAll(items: Array<{ key: string; write: () => Promise<void> }>): Promise<void> {
    const shared = this.job.dryRun ? undefined : this.ports.shared;
    const fresh = shared ? items.filter(i => this.rowsAhead.has(i.key) && this.rowsAhead.get(i.key) === null) : [];
    let alone = items;
    if (shared && fresh.length > 1) {
      alone = items.filter(i => !fresh.includes(i));
      const before = this.countsNow();
      try {
        this.batchReads = new Map();
        await shared(async () => {
          for (const item of fresh) await item.write();
          await this.storeBatchRows();
        });
      } catch (err) {
        if (err instanceof ClaimLost || err instanceof ImportFailed) throw err;
        // rolled back: counted again as each record is written on its own
        this.restoreCounts(before);
        for (const item of fresh) this.rowsAhead.delete(item.key);
        alone = items;
      } finally {
        this.batchReads = undefined;
        this.batchRows.clear();
      }
    }
    await boundedEach(alone, WRITE_WIDTH, item => item.write());
  }

  /**
   * The batch's new rows in one statement (appendAll), in its transaction: a key another run stored
   * meanwhile fails it, and with it the batch (see upsert).
   */
  private async storeBatchRows(): Promise<void> {
    const rows = [...this.batchRows.values()];
    this.batchRows.clear();
    if (!rows.length) return;
    const { mappings } = this.ports;
    if (mappings.appendAll) await mappings.appendAll(rows);
    else for (const row of rows) await mappings.append(row);
  }

  /** The counts and how many keys were seen so far, to go back to when writes were undone. */
  private countsNow(): { counts: RunCounts; seen: number } {
    return { counts: { ...this.counts, errors: [...this.counts.errors] }, seen: this.seenKeys.size };
  }

  private restoreCounts(to: { counts: RunCounts; seen: number }): void {
    Object.assign(this.counts, to.counts);
    // a set keeps the order keys were first added in: those past the count were seen since
    let k = 0;
    for (const key of this.seenKeys) if (k++ >= to.seen) this.seenKeys.delete(key);
  }

  private upsertEvent(sourceId: string, input: Rec): Promise<number | undefined> {
    const source: ImportSource = { import: this.job.id, source_id: sourceId, key: `${this.source}|${sourceId}` };
    // the digest is of the input as the source gave it (venue and organizers by name, the series as the
    // source wrote it), written with their ids and the series kept to the horizon
    const written = async (): Promise<Rec> => {
      const horizon = this.ports.horizon();
      return this.withLinkedIds(seriesToHorizon(input, horizon.utc, horizon.siteZone, SERIES_KEPT));
    };
    return this.upsert("events", sourceId, input, {
      create: async () => Number((await this.call<Rec>("events.create", await written(), source)).id),
      update: async local => { await this.call("events.update", { id: local, ...(await written()), ...(input.recurrence ? { scope: "all" } : {}) }); },
      reconcile: () => this.ports.findImportedEvent(source)
    });
  }

  /**
   * An iCalendar event's venue and organizers (data: a name, an address, a position) as the ids of the
   * records of those names (C64: what an import brings). Each name is resolved once per run (resolveLinked), not by every event
   * naming it: a create of an existing name writes its fields onto it (D25: duplicate venues and organizers), and every write of a venue or
   * organizer records a change of each event it links, so one write per event made the run's cost grow
   * with the number of events at the venue (docs/imports.md#measured).
   */
  private async withLinkedIds(input: Rec): Promise<Rec> {
    const out = { ...input };
    if (input.venue && typeof input.venue === "object" && !Array.isArray(input.venue)) out.venue = await this.linkedIdOf("venues", "venue", input.venue as Rec);
    if (Array.isArray(input.organizer)) {
      const ids: unknown[] = [];
      for (const o of input.organizer) ids.push(o && typeof o === "object" ? await this.linkedIdOf("organizers", "organizer", o as Rec) : o);
      out.organizer = ids;
    }
    // categories by name, each resolved once per run: events written in parallel never race to make one
    if (Array.isArray(input.categories) && input.categories.some(c => typeof c === "string")) {
      const ids: unknown[] = [];
      for (const c of input.categories) ids.push(typeof c === "string" ? await this.categoryIdOf(c) : c);
      out.categories = ids;
    }
    return out;
  }

  /** A category by name, made once whatever the runs at once (a reserved row, as resolveLinked). */
  private async resolveCategory(name: string): Promise<number> {
    const key = `${this.source}|categories|name:${name.toLowerCase()}`;
    const { row, reserved } = await this.reserve(key, "categories", `name:${name.toLowerCase()}`, await this.ports.mappings.findOne({ key }));
    if (typeof row.local_id === "number") {
      const current = await this.call<Rec>("taxonomy.categories.get", { id: row.local_id }).catch(() => undefined);
      if (current && plainName(current.name) === name.toLowerCase()) return row.local_id;
    }
    try {
      const id = await this.createTerm("categories", { name });
      await this.mark(row, { local_id: id, run: this.token, feed: this.feed, gone: false, pending: false, digest: null });
      return id;
    } catch (err) {
      if (reserved && typeof row.local_id !== "number") await this.ports.mappings.removeMany({ _id: row._id }).catch(() => undefined);
      throw err;
    }
  }

  /** Starts resolving an event's venue, organizers and categories by name (withLinkedIds awaits them). */
  private primeLinked(input: Rec): void {
    if (input.venue && typeof input.venue === "object" && !Array.isArray(input.venue)) void this.linkedIdOf("venues", "venue", input.venue as Rec).catch(() => undefined);
    if (Array.isArray(input.organizer)) for (const o of input.organizer) if (o && typeof o === "object") void this.linkedIdOf("organizers", "organizer", o as Rec).catch(() => undefined);
    if (Array.isArray(input.categories)) for (const c of input.categories) if (typeof c === "string") void this.categoryIdOf(c).catch(() => undefined);
  }

  private categoryIdOf(name: string): Promise<number> {
    const cacheKey = `categories|${name.trim().toLowerCase()}`;
    let id = this.linked.get(cacheKey);
    if (!id) {
      id = this.resolveCategory(name.trim());
      this.linked.set(cacheKey, id);
      id.catch(() => this.linked.delete(cacheKey));
    }
    return id;
  }

  private linkedIdOf(kind: "venues" | "organizers", nameField: string, data: Rec): Promise<number> {
    const name = String(data[nameField] ?? "").trim().toLowerCase();
    const cacheKey = `${kind}|${name}`;
    let id = this.linked.get(cacheKey);
    if (!id) {
      id = this.resolveLinked(kind, nameField, name, data);
      this.linked.set(cacheKey, id);
      // a failure is not kept: the next event naming it tries again
      id.catch(() => this.linked.delete(cacheKey));
    }
    return id;
  }

  /**
   * The venue or organizer of that name: the one the row `{source}|{kind}|name:{name}` holds while it
   * still has that name and the data written from this source did not change (a read, no write), else
   * the create's (the record of that exact name, case aside, D25: duplicate venues and organizers; or a new one), the row updated.
   */
  private async resolveLinked(kind: "venues" | "organizers", nameField: string, name: string, data: Rec): Promise<number> {
    const key = `${this.source}|${kind}|name:${name}`;
    const digest = digestOf(data);
    let row = await this.ports.mappings.findOne({ key });
    // another run making this name now (two nodes at once): its record is waited for, not made again
    let reserved = false;
    const waited = !row || typeof row.local_id !== "number";
    if (waited) ({ row, reserved } = await this.reserve(key, kind, `name:${name}`, row));
    if (row && typeof row.local_id === "number" && (row.digest === digest || (waited && !reserved))) {
      const current = await this.call<Rec>(`${kind}.get`, { id: row.local_id, context: "edit" }).catch(() => undefined);
      if (current && current.status !== "trash" && plainName(current[nameField]) === name) return row.local_id;
    }
    try {
      const id = Number((await this.call<Rec>(`${kind}.create`, data)).id);
      await this.storeRow(row, key, kind, `name:${name}`, { local_id: id, digest, run: this.token, feed: this.feed, gone: false, pending: false });
      return id;
    } catch (err) {
      if (reserved && row && typeof row.local_id !== "number") await this.ports.mappings.removeMany({ _id: row._id }).catch(() => undefined);
      throw err;
    }
  }

  /**
   * One source record: created when the import never wrote it, updated when it changed since (overwrite)
   * or when the import had trashed it and it came back (C66: what `trash_missing` trashes), left alone otherwise; answers our id
   * (undefined when it failed). See the header for the mapping row, and `reserve` for two runs at once.
   * A dry run reads the same and counts the same, and writes nothing.
   */
  private async upsert(kind: string, sourceId: string, input: Rec, ops: {
    create(source?: ImportSource): Promise<number>;
    update(local: number): Promise<void>;
    reconcile?(): Promise<number | undefined>;
  }): Promise<number | undefined> {
    const key = `${this.source}|${kind}|${sourceId}`;
    const digest = digestOf(input);
    const run = this.token;
    const source = `${kind} ${sourceId}`;
    const dry = this.job.dryRun === true;
    const seenThisRun = this.seenKeys.has(key);
    this.seenKeys.add(key);
    let row: Doc | null = null;
    let reserved = false;
    try {
      row = await this.rowOf(key);
      const countedBefore = seenThisRun || row?.run === run;
      // Inside a batch's transaction a record with no row is created first and its row stored once,
      // complete, with the batch's other new rows at its end (no reservation to fill in): the row's key is
      // unique in the store, so of two runs creating it at once, the second's rows wait for the first's
      // transaction and then fail, which undoes the second's whole batch (its records are then written
      // one by one, and find the row).
      const rowAfter = !dry && !row && this.batchReads !== undefined;
      if (!dry && !rowAfter && (!row || typeof row.local_id !== "number")) ({ row, reserved } = await this.reserve(key, kind, sourceId, row));
      let local: number | null = row && typeof row.local_id === "number" ? row.local_id : null;
      // a row this run reserved a moment ago has no earlier create; any other without an id may (a run
      // that died between the create and storing its id): found by its source identity
      if (local === null && ops.reconcile && !rowAfter && !(reserved && row?.fresh === true)) local = (await ops.reconcile()) ?? null;
      let outcome: "created" | "updated" | "unchanged";
      const stored = { digest, run, feed: this.feed, gone: false, pending: false };
      if (local === null) {
        outcome = "created";
        if (!dry) {
          local = await ops.create({ import: this.job.id, source_id: sourceId, key });
          if (rowAfter) this.batchRows.set(key, { key, source: this.source, import: this.job.id, kind, source_id: sourceId, local_id: local, ...stored });
          else await this.mark(row!, { ...stored, local_id: local });
        }
      } else if (row?.gone === true) {
        // trashed by this import and back at the source: published again (the import's status), same id
        outcome = "updated";
        if (!dry) {
          await ops.update(local);
          await this.mark(row, { ...stored, local_id: local });
        }
      } else if (row && row.digest !== null && row.digest !== undefined && (row.digest === digest || this.job.settings.update === "new-only")) {
        outcome = "unchanged";
        if (!dry && (row.run !== run || row.local_id !== local || row.feed !== this.feed || row.pending)) await this.mark(row, { local_id: local, run, feed: this.feed, gone: false, pending: false });
      } else {
        // changed at the source, or created by a run that died before storing what it wrote: written again
        outcome = "updated";
        if (!dry) {
          await ops.update(local);
          await this.mark(row!, { ...stored, local_id: local });
        }
      }
      // a record a resumed run had already counted before the crash is not counted twice
      if (!countedBefore) this.counts[outcome] += 1;
      await this.tick();
      return local ?? -1;
    } catch (err) {
      if (err instanceof ClaimLost || err instanceof ImportFailed) throw err;
      this.fail(source, errorText(err));
      if (!dry && row) {
        // a reservation of a record that could not be made is let go (the next run tries again at once);
        // a record that exists stays as it was, seen by this run (C66: present, not missing)
        if (reserved && typeof row.local_id !== "number") await this.ports.mappings.removeMany({ _id: row._id }).catch(() => undefined);
        else if (row.run !== run) await this.mark(row, { run, feed: this.feed }).catch(() => undefined);
      }
      await this.tick();
      return undefined;
    }
  }

  /** The row of a key: read ahead with its page (readRowsAhead), else read now. */
  private async rowOf(key: string): Promise<Doc | null> {
    // a key the batch wrote already (a source listing one record twice): its row stored first, then read
    if (this.batchRows.has(key)) await this.storeBatchRows();
    if (this.rowsAhead.has(key)) {
      const row = this.rowsAhead.get(key)!;
      this.rowsAhead.delete(key);
      return row;
    }
    return this.ports.mappings.findOne({ key });
  }

  /** The rows of a page's records in one query, for upsert to take (a record with no row: null). */
  private async readRowsAhead(kind: string, sourceIds: string[]): Promise<void> {
    this.rowsAhead.clear();
    const keys = [...new Set(sourceIds.map(id => `${this.source}|${kind}|${id}`))];
    if (!keys.length) return;
    const rows = await this.ports.mappings.find({ key: { $in: keys } });
    for (const k of keys) this.rowsAhead.set(k, null);
    for (const r of rows) this.rowsAhead.set(String(r.key), r);
  }

  /**
   * The row of a source record that has no id yet, reserved for this run. The row's key is unique in the
   * store: of two runs importing one source at once (two nodes, two imports of one feed), one inserts the
   * reservation and creates the record; the other re-reads the row until the id is there, so each
   * source record is created once. A reservation left by a run that died is taken over (compare-and-set
   * on its `run`) after RESERVATION_WAIT_MS; the record it may have made is then found by its identity.
   * Answers the row (`fresh`: inserted just now by this call) and whether this run holds it.
   */
  private async reserve(key: string, kind: string, sourceId: string, known: Doc | null): Promise<{ row: Doc; reserved: boolean }> {
    const started = Date.now();
    let row = known;
    for (;;) {
      if (row && typeof row.local_id === "number") return { row, reserved: false };
      if (row && row.run === this.token) return { row, reserved: true };
      if (!row) {
        try {
          const made = await this.ports.mappings.append({
            key, source: this.source, import: this.job.id, kind, source_id: sourceId, local_id: null, digest: null, run: this.token, feed: this.feed, gone: false, pending: true
          });
          return { row: { ...made, fresh: true }, reserved: true };
        } catch (err) {
          if (!isUnique(err)) throw err;
        }
      } else if (Date.now() - started >= RESERVATION_WAIT_MS) {
        const taken = await this.ports.mappings.updateOne({ _id: row._id, run: row.run, pending: true }, { $set: { run: this.token } });
        if (taken) return { row: taken, reserved: true };
      } else {
        await this.ports.sleep(50);
      }
      row = await this.ports.mappings.findOne({ key });
    }
  }

  /** Marks a source record's row seen by this run without writing it (an entry present but unreadable, C66: what `trash_missing` trashes). */
  private async markSeen(kind: string, sourceId: string): Promise<void> {
    const key = `${this.source}|${kind}|${sourceId}`;
    this.seenKeys.add(key);
    if (this.job.dryRun) return;
    const row = await this.ports.mappings.findOne({ key });
    if (row && row.run !== this.token) await this.mark(row, { run: this.token, feed: this.feed });
  }

  /**
   * A row stored outside upsert (a venue or organizer of a feed, by name): inserted, or updated when a
   * racing run stored it first (two imports of one feed at once).
   */
  private async storeRow(row: Doc | null, key: string, kind: string, sourceId: string, set: Rec): Promise<void> {
    if (row) return this.mark(row, set);
    try {
      await this.ports.mappings.append({ key, source: this.source, import: this.job.id, kind, source_id: sourceId, ...set });
    } catch (err) {
      if (!isUnique(err)) throw err;
      await this.ports.mappings.updateOne({ key }, { $set: set });
    }
  }

  private async mark(row: Doc, set: Rec): Promise<void> {
    // the row as read (or as reserved) stands for the store's copy: no read before the write while it still holds
    const { fresh: _fresh, ...stored } = row;
    await this.ports.mappings.updateOne({ _id: row._id }, { $set: set }, { expected: stored });
  }

  private fail(source: string, message: string, counted = true): void {
    if (counted) this.counts.failed += 1;
    if (this.counts.errors.length < MAX_ERRORS) this.counts.errors.push({ source, message });
  }

  /**
   * Events imported before that this run did not see: trashed (trash_missing). Only after a complete run:
   * a run that could not read its source throws before this (C66: what `trash_missing` trashes).
   */
  private async trashMissing(): Promise<void> {
    const rows = await this.ports.mappings.find({ feed: this.feed, kind: "events" });
    for (const row of rows) {
      if (row.run === this.token || this.seenKeys.has(String(row.key)) || row.gone || typeof row.local_id !== "number") continue;
      if (this.job.dryRun) {
        this.counts.trashed += 1;
        continue;
      }
      try {
        await this.call("events.remove", { id: row.local_id, scope: "all" });
        this.counts.trashed += 1;
      } catch (err) {
        const status = (err as { code?: number }).code;
        // gone already (deleted or trashed here): nothing to trash
        if (status !== 404 && status !== 410) this.fail(`events ${row.source_id}`, errorText(err));
      }
      await this.mark(row, { gone: true });
      await this.tick();
    }
  }

  private async tick(): Promise<void> {
    this.sinceProgress += 1;
    if (this.sinceProgress >= PROGRESS_EVERY) await this.flush(false);
  }

  private async flush(final: boolean): Promise<void> {
    this.sinceProgress = 0;
    if (this.job.dryRun) return;
    // writes in parallel wait for the one progress write in flight instead of each sending their own
    if (this.flushing && !final) return this.flushing;
    const write = (async () => {
      if (!(await this.ports.progress(this.counts)) && !final) throw new ClaimLost("claim lost");
    })();
    this.flushing = write;
    try {
      await write;
    } finally {
      if (this.flushing === write) this.flushing = null;
    }
  }
}
