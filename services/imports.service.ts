/**
 * The imports service (docs/imports.md, C64: what an import brings; C65: outbound requests): optional, on any number of nodes.
 *
 * - `POST {ns}/imports` (`imports.create`) stores an import `queued` and answers 202 with its `Location`;
 *   `GET {ns}/imports`, `GET|DELETE {ns}/imports/{id}`. A site's administrators only.
 * - Every node polls the store for due imports (queued, repeating and due, or running under a lease that
 *   expired because its node died) and claims one by a compare-and-set on its `claims` counter: one runner
 *   per import on every store, whatever the number of nodes. The runner renews its lease with each
 *   progress write and stops when the claim moved on.
 * - `POST {ns}/imports` with `dry_run` runs the import's reads now, writing nothing, and answers 200 with
 *   the counts a run would have; `POST {ns}/imports/{id}/run` makes an import due now (202);
 *   `GET {ns}/imports/{id}/runs` lists its last 50 runs (one record per finished run, `import_runs`).
 * - A run (domain/imports/import-run.ts) fetches the source under the outbound address rules (net/outbound.ts) and
 *   writes each record through the record services' actions as the administrator who made the import,
 *   so every rule, the change feed and the caches stay right.
 */
import type { BatchReads } from "../lib/imports/batch-reads";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import type { Ctx } from "../broker/context";
import type { Collection } from "../store/collection";
import { ApiError } from "../lib/errors";
import { nowDb } from "../lib/time/dates";
import { settings as serviceSettings, NAMESPACE_PATH } from "../lib/settings";
import { checkOutboundUrl } from "../lib/outbound/addresses";
import { outboundRequest } from "../net/outbound";
import { IMPORT_PARAMS, importSettings, ImportSettings, isDryRun } from "../lib/imports/params";
import { ClaimLost, emptyCounts, FetchAnswer, ImportFailed, ImportPorts, ImportRun, ImportSource, RunCounts } from "../domain/imports/import-run";
import { materialisationHorizon } from "../lib/recurrence/expand";
import { importConfig } from "../domain/imports/import-config";
import type { Caller } from "../lib/access/callers";
import { currentSiteId } from "../lib/sites/scope";
import { answerTotals } from "../lib/http/list-totals";
import { isAdministrator } from "../lib/access/capabilities";

/** An import as stored. */
export interface ImportDoc {
  _id: number;
  settings: ImportSettings;
  owner: Caller;
  state: "queued" | "running" | "done" | "failed";
  deleted: boolean;
  /** Claims taken so far: the compare-and-set of a claim (see the header). */
  claims: number;
  /** The run number (a resumed run keeps its number). */
  run: number;
  counts: RunCounts;
  error?: string;
  created_utc: string;
  started_utc: string | null;
  finished_utc: string | null;
  next_run_utc: string | null;
  /** When a node should look at it next (absent: never). */
  due_utc?: string;
  /**
   * An iCalendar text import: the id of its text in `import_texts` (docs/imports.md#a-run). Kept out of the
   * import's record, which every progress write and every GET reads and writes whole.
   */
  ics_text?: number;
}

/** An import as answered. */
export interface ImportOut extends RunCounts {
  id: number;
  type: string;
  url: string | null;
  state: string;
  status: string | null;
  update: string;
  every_minutes: number | null;
  trash_missing: boolean;
  error: string | null;
  created_utc: string;
  started_utc: string | null;
  finished_utc: string | null;
  next_run_utc: string | null;
}

const MAX_PER_PAGE = 100;
/** The texts of iCalendar text imports, by id (ImportDoc.ics_text). */
const TEXTS = "import_texts";
/**
 * The index that finds an event by its source identity (`import_key`, lib/imports/source.ts): a run looks
 * for one before each create (docs/imports.md#idempotency); without it each look read every event.
 */
const EVENT_SOURCE_INDEX = [{ field: "import_key", sparse: true }];
/** Imports looked at per site and poll. */
const DUE_BATCH = 5;
/** How long one write of a run may take (REQUEST_TIMEOUT is a request's; a series' create writes up to 1 000 occurrences). */
const WRITE_TIMEOUT_MS = 120_000;
/** The runs of an import that are kept (and listed by `GET {ns}/imports/{id}/runs`). */
const RUNS_KEPT = 50;

/** What `POST {ns}/imports` with `dry_run` answers. */
export interface DryRunOut extends RunCounts {
  dry_run: true;
}

/** A finished run as answered by `GET {ns}/imports/{id}/runs`. */
export interface RunOut extends RunCounts {
  started_utc: string | null;
  finished_utc: string | null;
  state: "done" | "failed";
}

function dbAfter(ms: number): string {
  return nowDb(new Date(Date.now() + ms));
}

function importOut(doc: ImportDoc): ImportOut {
  const s = doc.settings;
  const c = { ...emptyCounts(), ...doc.counts };
  return {
    id: doc._id, type: s.type, url: s.url ?? null, state: doc.state, status: s.status ?? null, update: s.update, every_minutes: s.every_minutes ?? null,
    trash_missing: s.trash_missing, created: c.created, updated: c.updated, unchanged: c.unchanged, skipped: c.skipped, failed: c.failed, trashed: c.trashed,
    errors: c.errors, error: doc.error ?? null, created_utc: doc.created_utc, started_utc: doc.started_utc, finished_utc: doc.finished_utc,
    next_run_utc: doc.next_run_utc
  };
}

/** 401 anonymous, 403 known callers who are not the site's administrators (docs/imports.md#routes). */
function ensureAdministrator(ctx: Ctx): Caller {
  const caller = ctx.meta?.caller;
  if (!isAdministrator(caller)) throw ApiError.forbidden(caller === null);
  return caller ?? { id: 1, role: "administrator" }; // a trusted internal call acts as the first administrator
}

const methods = {
  /** The other collections a run uses, with the indexes it needs (made once, at start). */
  async storeConnected(): Promise<void> {
    this.collections = {
      mappings: await this.storeCollection("import_records", [{ field: "key", unique: true }, { field: "feed" }]),
      events: await this.storeCollection("events", EVENT_SOURCE_INDEX),
      texts: await this.storeCollection(TEXTS),
      runs: await this.storeCollection("import_runs", [{ field: "import" }])
    };
  },

  imports(): Collection {
    return this.store;
  },

  async findImport(id: number): Promise<ImportDoc> {
    const doc = await this.store.findOne({ _id: id });
    if (!doc || doc.deleted) throw new ApiError("rest_no_route", 404);
    return doc;
  },

  /** One poll: every site's due imports, one run at a time on this node. */
  async poll(): Promise<void> {
    if (this.busy || this.stopping) return;
    this.busy = true;
    try {
      for (const site of await this.siteIds()) {
        if (this.stopping) break;
        await this.inSite(site, () => this.pollSite(site));
      }
    } catch (err) {
      this.logger.warn(`Imports: a poll failed: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  },

  async pollSite(site: number): Promise<void> {
    const due = await this.store.find({ due_utc: { $lte: nowDb() }, deleted: false }, { sort: { due_utc: 1 }, limit: DUE_BATCH });
    for (const doc of due) {
      if (this.stopping) return;
      const claimed = await this.claim(doc);
      if (claimed) await this.runClaimed(claimed, site);
    }
  },

  /** Takes the import for this node (compare-and-set on `claims`); null when another node took it first. */
  async claim(doc: ImportDoc): Promise<ImportDoc | null> {
    const { leaseMs } = importConfig();
    const resume = doc.state === "running";
    const lease = dbAfter(leaseMs);
    const set: Record<string, unknown> = resume
      ? { due_utc: lease }
      : { state: "running", run: (doc.run ?? 0) + 1, counts: emptyCounts(), started_utc: nowDb(), finished_utc: null, due_utc: lease, error: null };
    return await this.store.updateOne({ _id: doc._id, claims: doc.claims, deleted: false }, { $set: set, $inc: { claims: 1 } });
  },

  async runClaimed(doc: ImportDoc, site: number): Promise<void> {
    const { leaseMs } = importConfig();
    const claims = doc.claims;
    const guard = { _id: doc._id, claims, deleted: false };
    const { texts } = this.collections;
    let settings = doc.settings;
    if (doc.ics_text !== undefined) {
      const text = await texts.findOne({ _id: doc.ics_text });
      settings = { ...settings, ics: typeof text?.ics === "string" ? text.ics : "" };
    }
    const run = new ImportRun({ id: doc._id, run: doc.run, settings },
      this.runPorts(doc.owner, site, async (counts: RunCounts) => !this.stopping && !!(await this.store.updateOne(guard, { $set: { counts, due_utc: dbAfter(leaseMs) } }))),
      { ...emptyCounts(), ...doc.counts });
    let state: "done" | "failed" = "done";
    let error: string | null = null;
    try {
      await run.run();
    } catch (err) {
      if (err instanceof ClaimLost) return;
      state = "failed";
      error = err instanceof ImportFailed ? err.message : `the import stopped: ${(err as Error).message}`;
      if (!(err instanceof ImportFailed)) this.logger.warn(`Import ${doc._id} of site ${site}: ${(err as Error).stack}`);
    }
    const every = doc.settings.every_minutes;
    const next = every ? dbAfter(every * 60_000) : null;
    const counts = run.counts;
    if (error && counts.errors.length < 100) counts.errors.push({ source: doc.settings.url ?? "ics", message: error });
    const finishedUtc = nowDb();
    const finished = await this.store.updateOne(guard, {
      $set: { state, error, counts, finished_utc: finishedUtc, next_run_utc: next, ...(next ? { due_utc: next } : {}) },
      ...(next ? {} : { $unset: { due_utc: 1 } })
    });
    if (finished) await this.keepRun(doc._id, { ...counts, started_utc: finished.started_utc, finished_utc: finishedUtc, state });
  },

  /** What a run reaches outside lib/imports (ImportPorts), as the import's owner in its site. */
  runPorts(owner: Caller, site: number, progress: ImportPorts["progress"]): ImportPorts {
    const { mappings, events } = this.collections;
    const meta = { caller: owner, site };
    const allowPrivate = serviceSettings().outboundAllowPrivate;
    const sql = this.storeHandle?.sql;
    return {
      fetch: async (url: string, headers: Record<string, string>): Promise<FetchAnswer> => {
        const res = await outboundRequest(url, { method: "GET", headers, timeoutMs: 30_000, maxBytes: 10 * 1024 * 1024, followRedirects: 5, allowPrivate });
        return { status: res.status, headers: res.headers as Record<string, unknown>, body: res.body, url: res.url };
      },
      call: <T>(action: string, params: Record<string, unknown>, source?: ImportSource, batch?: BatchReads): Promise<T> =>
        // a series' create writes its occurrences up to the horizon (up to 1 000 rows): more than a request's time
        this.broker.call(action, params, { meta: { ...meta, ...(source ? { importSource: source } : {}), ...(batch ? { batchReads: batch } : {}) }, timeout: WRITE_TIMEOUT_MS }) as Promise<T>,
      mappings,
      findImportedEvent: async (source: ImportSource) => {
        const found = await events.findOne({ import_key: source.key });
        return found ? Number(found._id) : undefined;
      },
      progress,
      // PostgreSQL: a batch of new records in one transaction (store/sql/shared-transaction.ts)
      shared: sql?.shared ? fn => sql.shared!(fn) : undefined,
      sleep: (ms: number) => new Promise(resolve => setTimeout(resolve, ms)),
      horizon: () => ({ utc: materialisationHorizon(serviceSettings().siteTimezone), siteZone: serviceSettings().siteTimezone })
    };
  },

  /**
   * A dry run (docs/imports.md#dry-run): the run's reads (the source, the mapping rows, the events a
   * lost create left) in this request, no write, no import stored; answers what a run would do now.
   */
  async dryRun(owner: Caller, settings: ImportSettings, site: number): Promise<DryRunOut> {
    const run = new ImportRun({ id: 0, run: 0, settings, dryRun: true }, this.runPorts(owner, site, async () => true), emptyCounts());
    try {
      await run.run();
    } catch (err) {
      if (!(err instanceof ImportFailed)) throw err;
      // the source could not be read: the parameter that names it is bad, with why
      throw ApiError.invalidParams({ [settings.url ? "url" : "ics"]: "param.invalid" }, { reason: err.message });
    }
    const c = run.counts;
    return { dry_run: true, created: c.created, updated: c.updated, unchanged: c.unchanged, trashed: c.trashed, skipped: c.skipped, failed: c.failed, errors: c.errors };
  },

  /** Stores a finished run in the import's history; only the last RUNS_KEPT stay. */
  async keepRun(importId: number, out: RunOut): Promise<void> {
    const { runs } = this.collections;
    await runs.append({ import: importId, ...out });
    const older = await runs.find({ import: importId }, { sort: { _id: -1 }, skip: RUNS_KEPT, limit: 100 });
    if (older.length) await runs.removeMany({ _id: { $in: older.map(r => r._id) } });
  }
} satisfies ThisType<ImportsSelf>;

type ImportsMethods = typeof methods;
interface ImportsVars {
  collections: { mappings: Collection; events: Collection; texts: Collection; runs: Collection };
  timer?: NodeJS.Timeout;
  busy: boolean;
  stopping: boolean;
}
interface ImportsSelf extends Service, StoreFace<ImportDoc>, ImportsMethods, ImportsVars {}

const ImportsService: ServiceSchema<ServiceSettingSchema, ImportsMethods, ImportsVars, ImportsSelf> = {
  name: "imports",
  mixins: [StoreMixin({ collection: "imports", indexes: [{ field: "due_utc", sparse: true }] })],

  actions: {
    list: {
      params: IMPORT_PARAMS.list,
      async handler(ctx: Ctx<{ page?: number; per_page?: number }>): Promise<ImportOut[]> {
        ensureAdministrator(ctx);
        const perPage = Math.min(ctx.params.per_page ?? 10, MAX_PER_PAGE);
        const page = ctx.params.page ?? 1;
        const total = await this.store.count({ deleted: false });
        const docs = await this.store.find({ deleted: false }, { sort: { _id: -1 }, skip: (page - 1) * perPage, limit: perPage });
        answerTotals(ctx.meta, total, Math.ceil(total / perPage));
        return docs.map(importOut);
      }
    },

    create: {
      params: IMPORT_PARAMS.create,
      async handler(ctx: Ctx<Record<string, unknown>>): Promise<ImportOut | DryRunOut> {
        const owner = ensureAdministrator(ctx);
        const body: Record<string, unknown> = { ...ctx.params };
        const text = (ctx.meta as { icsBody?: unknown }).icsBody;
        if (typeof text === "string") {
          body.ics = text;
          body.type ??= "ics";
        }
        const dryRun = isDryRun(body);
        const { ics, ...s } = importSettings(body);
        if (s.url) {
          const checked = checkOutboundUrl(s.url, serviceSettings().outboundAllowPrivate);
          if (!checked.ok) throw ApiError.invalidParam("url", "param.url");
        }
        if (dryRun) return this.dryRun(owner, { ...s, ...(ics !== undefined ? { ics } : {}) }, currentSiteId());
        const now = nowDb();
        // the text first: an import is due from the moment it is stored
        const stored = ics !== undefined ? ((await this.collections.texts.append({ ics })) as { _id: number }) : undefined;
        const doc = (await this.store.append({
          ...(stored ? { ics_text: stored._id } : {}),
          settings: s, owner: { id: owner.id, role: owner.role }, state: "queued", deleted: false, claims: 0, run: 0, counts: emptyCounts(),
          created_utc: now, started_utc: null, finished_utc: null, next_run_utc: null, due_utc: now
        }));
        const root = ctx.meta.apiRoot ?? `${serviceSettings().baseUrl}/${serviceSettings().restPrefix}`;
        ctx.meta.$statusCode = 202;
        ctx.meta.$location = `${root}/${NAMESPACE_PATH}/imports/${doc._id}`;
        ctx.meta.$responseHeaders = { Location: ctx.meta.$location };
        setImmediate(() => void this.poll());
        return importOut(doc);
      }
    },

    get: {
      params: IMPORT_PARAMS.get,
      async handler(ctx: Ctx<{ id: number }>): Promise<ImportOut> {
        ensureAdministrator(ctx);
        return importOut(await this.findImport(ctx.params.id));
      }
    },

    run: {
      params: IMPORT_PARAMS.run,
      async handler(ctx: Ctx<{ id: number }>): Promise<ImportOut> {
        ensureAdministrator(ctx);
        const doc = await this.findImport(ctx.params.id);
        // due now: the next poll of any node claims it (a running one is left to finish)
        const after = doc.state === "running" ? doc : (await this.store.updateOne({ _id: doc._id, deleted: false, state: { $ne: "running" } }, { $set: { due_utc: nowDb() } })) ?? doc;
        ctx.meta.$statusCode = 202;
        setImmediate(() => void this.poll());
        return importOut(after);
      }
    },

    runs: {
      params: IMPORT_PARAMS.runs,
      async handler(ctx: Ctx<{ id: number }>): Promise<RunOut[]> {
        ensureAdministrator(ctx);
        const doc = await this.findImport(ctx.params.id);
        const rows = await this.collections.runs.find({ import: doc._id }, { sort: { _id: -1 }, limit: RUNS_KEPT });
        return rows.map(r => {
          const c = { ...emptyCounts(), ...(r as Partial<RunOut>) };
          return {
            started_utc: (r.started_utc as string | null) ?? null, finished_utc: (r.finished_utc as string | null) ?? null, state: r.state as RunOut["state"],
            created: c.created, updated: c.updated, unchanged: c.unchanged, trashed: c.trashed, skipped: c.skipped, failed: c.failed, errors: c.errors
          };
        });
      }
    },

    remove: {
      params: IMPORT_PARAMS.remove,
      async handler(ctx: Ctx<{ id: number }>): Promise<ImportOut> {
        ensureAdministrator(ctx);
        const doc = await this.findImport(ctx.params.id);
        // stops it: no later run, and a running one loses its claim at its next progress write
        const after = await this.store.updateOne({ _id: doc._id }, { $set: { deleted: true, next_run_utc: null }, $unset: { due_utc: 1 } });
        // an iCalendar text is kept for runs asked for later (`run`): it goes with its import
        if (doc.ics_text !== undefined) await this.collections.texts.removeMany({ _id: doc.ics_text });
        return importOut({ ...(after ?? doc), deleted: true });
      }
    }
  },

  methods,

  created() {
    this.busy = false;
    this.stopping = false;
  },

  started() {
    this.timer = setInterval(() => void this.poll(), importConfig().pollMs);
    this.timer.unref?.();
    setImmediate(() => void this.poll());
  },

  async stopped() {
    this.stopping = true;
    clearInterval(this.timer);
    // a run in progress ends at its next record; its lease lets another node resume it
    for (let i = 0; i < 100 && this.busy; i++) await new Promise(resolve => setTimeout(resolve, 50));
  }
};

export default serviceSchema(ImportsService);
