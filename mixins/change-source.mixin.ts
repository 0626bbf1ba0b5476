/**
 * What a service that owns records gives the change feed (the sync issue, C20):
 *
 * - `recordChanges(changes, opts)`: stores its changes in the feed (the `changes` service, before the write
 *   is answered) and, with `emit`, tells the bus (`calendar.<type>.<action>`; events, venues and organizers
 *   already do for their own writes in `announce`). With `derive`, a change of a venue, organizer or term
 *   also records an `updated` change for every event that embeds it (its answer changed with it).
 * - the action `changeRecords({ ids })`: the records as this caller's lists show them (rights, password
 *   blanking, language), for those it may read now; the feed renders its pages with it. `renderDocs({ docs })`
 *   renders given stored documents (a feed entry's `doc`: the record as of that change, for the webhooks). The owning
 *   service hands the mixin its `recordRenderer` (a RecordRenderer) in its created().
 * - on the events service, `linkingChanges({ field, ids })`: the events that link those records.
 *
 * A deployment without the `changes` service (a partial test setup) records nothing, with one warning.
 */
import type { Service, ServiceSchema } from "moleculer";
import type { Doc } from "../store/collection";
import type { StoreFace } from "./store.mixin";
import type { Ctx } from "../broker/context";
import { nowDb } from "../lib/time/dates";
import { changeOf } from "../lib/changes/change-of";
import { ChangeAction, ChangeInput, ChangeType, snapshotOf, visibleTo } from "../lib/changes/feed";
import { withDescendants } from "../lib/terms/term-tree";
import { actionAvailable } from "../broker/bus";
import type { TermDoc } from "../lib/terms/term-record";

export type SourceKind = "event" | "venue" | "organizer" | "term";


export interface RecordOptions {
  /** Emit `calendar.<type>.<action>` for each change (writers whose `announce` does not). */
  emit?: boolean;
  /** Also record the events that embed a changed venue, organizer or term. */
  derive?: boolean;
}


/** The event field that links records of a type. */
const LINK_FIELD: Partial<Record<ChangeType, string>> = { venue: "venues", organizer: "organizers", category: "categories", tag: "tags" };
const LINK_FIELDS = ["venues", "organizers", "categories", "tags"];

/** A term doc's change type. */
export const termType = (doc: Doc): ChangeType => (doc.taxonomy === "tag" ? "tag" : "category");


const changeSourceMethods = {
  changeOf(type: ChangeType, action: ChangeAction, doc: Doc): ChangeInput {
    return changeOf(type, action, doc);
  },


  /** Events service: the events whose `field` links one of `ids`, as `updated` changes. */
  async eventsLinking(field: string, ids: number[]): Promise<ChangeInput[]> {
    if (!ids.length) return [];
    // whole documents: each entry keeps its record as it stands now (the record as of that change, C63: what a webhook says)
    const docs: Doc[] = await this.store.find({ [field]: { $in: ids } }, { sort: { _id: 1 } });
    return docs.map(d => this.changeOf("event", "updated", d));
  },

  async recordChanges(changes: ChangeInput[], ro: RecordOptions = {}): Promise<void> {
    if (!changes.length) return;
    let all = changes;
    if (actionAvailable(this.broker, "changes.record")) {
      if (ro.derive) all = [...changes, ...(await this.embeddingEventChanges(changes))];
      await this.broker.call("changes.record", { changes: all });
    } else if (!this.warnedNoFeed) {
      this.warnedNoFeed = true;
      this.logger.warn("No `changes` service runs: writes are not recorded in the change feed.");
    }
    if (ro.emit) {
      for (const c of all) this.broker.emit(`calendar.${c.type}.${c.action}`, { id: c.id, ...(c.snapshot?.status ? { status: c.snapshot.status } : {}), modified_utc: c.modified_utc });
    } else if (all.length > changes.length) {
      for (const c of all.slice(changes.length)) this.broker.emit(`calendar.${c.type}.${c.action}`, { id: c.id, status: c.snapshot?.status, modified_utc: c.modified_utc });
    }
  },

  /** What follows from changes a write recorded itself: `updated` changes of the events embedding them. */
  async recordDerivedChanges(changes: ChangeInput[]): Promise<void> {
    const derived = await this.embeddingEventChanges(changes);
    if (derived.length) await this.recordChanges(derived, { emit: true });
  },

  /** Taxonomy: a term update, and its descendants when its path moved. */
  async recordTermUpdate(before: Doc, after: Doc): Promise<void> {
    // Recorded even when nothing changed (harmless), as a write in another language changes the record elsewhere.
    const moved = after.taxonomy === "category" && (after.slug !== before.slug || after.parent !== before.parent);
    const below: Doc[] = moved ? await this.termDescendants(after) : [];
    await this.recordChanges([this.changeOf(termType(after), "updated", after)], { emit: true, derive: true });
    if (below.length) await this.recordChanges(below.map(d => this.changeOf("category", "updated", d)), { emit: true });
  },
  /** Taxonomy: the categories below a category (their parent or path changes with it). */
  async termDescendants(doc: Doc): Promise<Doc[]> {
    if (doc.taxonomy !== "category") return [];
    const ids: number[] = await withDescendants([doc._id], parents => this.store.find({ taxonomy: "category", parent: { $in: parents } }) as Promise<TermDoc[]>);
    const below = ids.filter(id => id !== doc._id);
    return below.length ? this.store.find({ _id: { $in: below } }, { sort: { _id: 1 } }) : [];
  },
  /** Taxonomy: a deleted term and its re-parented descendants. */
  async recordTermDelete(doc: Doc, descendants: Doc[]): Promise<void> {
    const fresh: Doc[] = descendants.length ? await this.store.find({ _id: { $in: descendants.map(d => d._id) } }, { sort: { _id: 1 } }) : [];
    await this.recordChanges([this.changeOf(termType(doc), "deleted", { ...doc, modified_utc: nowDb() }), ...fresh.map(d => this.changeOf("category", "updated", d))], { emit: true });
  },
  /** Taxonomy: terms whose count moved (answers the counts, for chaining). */
  async recordCountChanges<T extends Record<string, number>>(counts: T): Promise<T> {
    const ids = Object.keys(counts).map(Number);
    if (ids.length) {
      const docs: Doc[] = await this.store.find({ _id: { $in: ids } }, { sort: { _id: 1 } });
      // Counts are part of the term records; the events embedding them are not recorded for a count (it moves with every publication).
      await this.recordChanges(docs.map(d => this.changeOf(termType(d), "updated", d)), { emit: true });
    }
    return counts;
  },

  /** The events embedding the changed venues, organizers or terms, as `updated` changes (each once). */
  async embeddingEventChanges(changes: ChangeInput[]): Promise<ChangeInput[]> {
    const byField = new Map<string, number[]>();
    for (const c of changes) {
      const field = LINK_FIELD[c.type];
      if (field) byField.set(field, [...(byField.get(field) ?? []), c.id]);
    }
    if (!byField.size || !actionAvailable(this.broker, "events.linkingChanges")) return [];
    const found: ChangeInput[][] = await Promise.all([...byField].map(([field, ids]) => this.broker.call<ChangeInput[], { field: string; ids: number[] }>("events.linkingChanges", { field, ids })));
    const seen = new Set<number>();
    return found.flat().filter(c => !seen.has(c.id) && seen.add(c.id));
  }
} satisfies ThisType<ChangeSourceSelf>;

/**
 * What the owning service gives the `changeRecords` action, set in its created(): its records as this
 * caller's lists show them (events and venues/organizers: the records the caller may see, already chosen
 * here; terms: every record asked for), in the order given.
 */
export interface RecordRenderer {
  render(ctx: Ctx, docs: Doc[]): Promise<readonly unknown[]>;
}

/** What a service with the change-source mixin holds besides its methods. */
export interface RecordRendererHolder {
  recordRenderer: RecordRenderer;
}

interface ChangeSourceSelf extends Service, ChangeSourceFace, Pick<StoreFace, "store"> {
  warnedNoFeed?: boolean;
}

export type ChangeSourceFace = typeof changeSourceMethods & RecordRendererHolder;

export function ChangeSourceMixin(opts: { kind: SourceKind }): ServiceSchema {
  /** The actions' handlers, typed on the service (moleculer binds them to it). */
  const handlers = {
    async changeRecords(ctx: Ctx<{ ids: number[]; anyStatus?: boolean }>): Promise<Record<string, unknown>> {
      const ids = [...new Set(ctx.params.ids)];
      if (!ids.length) return {};
      const docs: Doc[] = await this.store.find({ _id: { $in: ids } });
      const now = nowDb();
      const who = ctx.meta?.caller;
      const shown: Doc[] = opts.kind === "term" || (ctx.params.anyStatus && who === undefined) ? docs
        : docs.filter(d => visibleTo(who, opts.kind as ChangeType, snapshotOf(opts.kind as ChangeType, d), now));
      const records = shown.length || opts.kind === "term" ? await this.recordRenderer.render(ctx, shown) : [];
      return Object.fromEntries(shown.map((d, i) => [String(d._id), records[i]]));
    },
    /**
     * Records rendered from the stored documents given (trusted callers: the webhooks' fan-out renders each
     * change's record from the document its feed entry kept, C63: what a webhook says), in the order given, whatever their status.
     */
    async renderDocs(ctx: Ctx<{ docs: Doc[] }>): Promise<readonly unknown[]> {
      if (!ctx.params.docs.length) return [];
      return this.recordRenderer.render(ctx, ctx.params.docs);
    },
    linkingChanges(ctx: Ctx<{ field: string; ids: number[] }>): Promise<ChangeInput[]> {
      return this.eventsLinking(ctx.params.field, ctx.params.ids);
    },
    /** A service that did not hand its renderer over in created() stops its start here, saying so. */
    started(): void {
      if (!this.recordRenderer) throw new Error(`${this.name}: the change-source mixin needs the service's recordRenderer, set in its created()`);
    }
  } satisfies ThisType<ChangeSourceSelf>;
  const actions: NonNullable<ServiceSchema["actions"]> = {
    changeRecords: {
      visibility: "public",
      // `anyStatus` (trusted callers: the webhooks' fan-out, docs/webhooks.md#payload): records of every status, trashed ones too
      params: { ids: { type: "array", items: { type: "number", integer: true, convert: true } }, anyStatus: { type: "boolean", optional: true } },
      handler: handlers.changeRecords
    },
    renderDocs: {
      visibility: "public",
      params: { docs: { type: "array", items: { type: "object" } } },
      handler: handlers.renderDocs
    }
  };
  if (opts.kind === "event") {
    actions.linkingChanges = {
      visibility: "public",
      params: { field: { type: "enum", values: LINK_FIELDS }, ids: { type: "array", items: { type: "number", integer: true, convert: true } } },
      handler: handlers.linkingChanges
    };
  }

  return { name: "change-source", actions, methods: changeSourceMethods, started: handlers.started };
}
