/**
 * The changes service: the stored change feed and the idempotency keys of safe retries.
 *
 * - `GET {ns}/changes?since=<token>&per_page=<n>` (`changes.list`, C20): every change to events, venues,
 *   organizers, categories and tags in commit order, as this caller may see it (lib/changes/feed.ts),
 *   resumable from any token on any node.
 * - `changes.record({ changes })` (internal): changes recorded apart from a record's own write (a term
 *   updated with nothing to change, counts, derived changes of embedding events). A record write stores its
 *   entry itself, in the write's transaction (store/collection.ts `InsertOptions.change`, C42: one transaction per write); every entry is
 *   numbered in that transaction (SQLite: the site's last number plus one, writers taking turns; PostgreSQL:
 *   the writing transaction's id and rank, store/sql/feed.ts; MongoDB: a counter document,
 *   store/mongo/collection.ts) and carries the state its record had before it (store/collection.ts `FEED_CARRY`).
 * - `changes.claimKey|settleKey|releaseKey` (internal): the gateway's `Idempotency-Key` records
 *   (lib/http/idempotency.ts), in a collection beside the feed (store/key-store.ts).
 *
 * Like the record services it keeps its data in the configured store (SQLite, PostgreSQL or MongoDB), per
 * site; any number of nodes may run it: a reader stops at a sequence number still being written
 * (lib/changes/feed.ts `contiguousPrefix`).
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import type { Ctx } from "../broker/context";
import { openKeyStore, KeyStore } from "../store/key-store";
import { FEED_CARRY } from "../store/collection";
import { nowDb } from "../lib/time/dates";
import { CHANGES_PARAMS } from "../lib/changes/params";
import {
  ChangeDoc, ChangeInput, ChangeOut, CHANGE_TYPES, feedEntry, contiguousPrefix, decide, Decision, decodeToken, encodeToken, feedPageSize,
  GAP_GRACE_MS, ownerOf
} from "../lib/changes/feed";
import { ClaimResult, KEEP_MS, StoredAnswer } from "../lib/http/idempotency";
import { addUses, DEPRECATION_USES_COLLECTION, readUses } from "../store/deprecation-uses";
import { feedPatterns } from "../cache/staleness";
import { currentSiteId } from "../lib/sites/scope";
import { cleanEverywhere } from "../mixins/cache.mixin";
import { feedHorizon } from "../store/sql/feed";
import type { Store } from "../store";

/** Entries read per store query while filling a page. */
const SCAN_BATCH = 200;
/** A page stops after scanning this many entries (all hidden from the caller), with `has_more`. */
const SCAN_LIMIT = 5000;
/** Expired idempotency records are dropped this often. */
const SWEEP_MS = 10 * 60 * 1000;

export interface FeedAnswer {
  changes: ChangeOut[];
  next_token: string;
  has_more: boolean;
}

const methods = {
    /** No clean per stored entry: `recordBatch` cleans the feed's pages once for all of a write's entries. */
    async cleanCaches(_patterns?: string[]): Promise<void> {
      /* see recordBatch */
    },

    /**
     * The changes of one write, stored in their order. They move the feed on: its kept pages go
     * (docs/caching.md, `F`), nothing else (what the changes are about, their writer cleaned). A term
     * updated with nothing to change is recorded here alone, and its caller's next read of the feed,
     * through any gateway, must show it.
     */
    async recordBatch(changes: ChangeInput[]): Promise<number> {
      const store = this.store;
      for (const c of changes) {
        // numbered by the store as it is stored; `before` is the record's newest entry's `after`, read in
        // the same statement (store/collection.ts `append`)
        await store.append(feedEntry(c), FEED_CARRY);
      }
      await cleanEverywhere(this.broker, feedPatterns(currentSiteId()));
      return changes.length;
    },

    /** One page of the feed for this caller. */
    async readFeed(ctx: Ctx<{ since?: string; per_page?: number }>): Promise<FeedAnswer> {
      const store = this.store;
      const start = ctx.params.since !== undefined ? decodeToken(ctx.params.since) ?? 0 : 0;
      const perPage = feedPageSize(ctx.params.per_page);
      const who = ctx.meta?.caller;
      const now = nowDb();
      const nowMs = Date.now();
      const picked: Array<{ doc: ChangeDoc; decision: Exclude<Decision, "skip"> }> = [];
      let cursor = start;
      let scanned = 0;
      // PostgreSQL: entries up to the oldest transaction still running (store/sql/feed.ts), its gaps final
      const sql = this.storeHandle?.sql;
      const horizon = sql?.dialect === "postgres" ? await feedHorizon(sql) : undefined;
      const within = (after: number) => (horizon === undefined ? { $gt: after } : { $gt: after, $lt: horizon });
      scan: while (picked.length < perPage && scanned < SCAN_LIMIT) {
        const batch = await store.find({ _id: within(cursor) }, { sort: { _id: 1 }, limit: SCAN_BATCH });
        const { entries, blocked } = horizon === undefined ? contiguousPrefix(cursor, batch, nowMs, this.gapGraceMs()) : { entries: batch, blocked: false };
        for (const doc of entries) {
          cursor = doc._id;
          scanned += 1;
          const decision = decide(who, doc, now);
          if (decision !== "skip") picked.push({ doc, decision });
          if (picked.length >= perPage) break scan;
        }
        if (blocked || batch.length < SCAN_BATCH) break;
      }
      const rendered = await this.renderRecords(ctx, picked.filter(p => p.decision === "record").map(p => p.doc));
      const changes: ChangeOut[] = [];
      for (const { doc, decision } of picked) {
        const head = { type: doc.type, id: doc.id };
        if (decision === "tombstone") {
          changes.push({ ...head, action: "deleted", modified_utc: doc.modified_utc });
          continue;
        }
        const record = rendered.get(`${ownerOf(doc.type)}:${doc.id}`);
        // Not readable any more: a later entry says so.
        if (!record) continue;
        changes.push({ ...head, action: doc.action === "deleted" ? "updated" : doc.action, modified_utc: doc.modified_utc, record });
      }
      const more = (await store.find({ _id: { $gt: cursor } }, { sort: { _id: 1 }, limit: 1 })).length > 0;
      // a page held back at the horizon changes when that transaction ends, which may be no write of this
      // deployment's services (no clean follows): never kept (services/api.service.ts keepResponse)
      if (horizon !== undefined && more) ctx.meta.$notKept = true;
      return { changes, next_token: encodeToken(cursor), has_more: more };
    },

    /**
     * MongoDB: how long a reader waits at a gap in the sequence: a number is drawn before its entry is
     * stored, and writers (of this process or of other nodes) store theirs concurrently, so a gap may be an
     * entry still being written; one still open after the grace is a number drawn and never used. SQLite
     * has no gaps a reader could see (its writers number under the database's lock, one after another);
     * PostgreSQL reads up to the horizon instead (store/sql/feed.ts).
     */
    gapGraceMs(): number {
      return GAP_GRACE_MS;
    },

    /** The records of a page's changes, as the caller's lists show them now, one call per owning service. */
    async renderRecords(ctx: Ctx, docs: ChangeDoc[]): Promise<Map<string, Record<string, unknown>>> {
      const byOwner = new Map<string, Set<number>>();
      for (const doc of docs) {
        const owner = ownerOf(doc.type);
        if (!byOwner.has(owner)) byOwner.set(owner, new Set());
        byOwner.get(owner)!.add(doc.id);
      }
      const out = new Map<string, Record<string, unknown>>();
      await Promise.all([...byOwner].map(async ([owner, ids]) => {
        const records: Record<string, Record<string, unknown>> = await ctx.call(`${owner}.changeRecords`, { ids: [...ids] });
        for (const [id, record] of Object.entries(records ?? {})) out.set(`${owner}:${id}`, record);
      }));
      return out;
    },

    /** The idempotency key store, opened on first use (with the index its sweep reads by). */
    keys(): Promise<KeyStore> {
      if (!this.keyStore) {
        this.keyStore = this.storeCollection("idempotency_keys", [{ field: "expires_at" }]).then(openKeyStore).catch((err: unknown) => {
          this.keyStore = undefined;
          throw err;
        });
      }
      return this.keyStore;
    }
  } satisfies ThisType<ChangesSelf>;

type ChangesMethods = typeof methods;
interface ChangesVars {
  /** The process's store (store mixin). */
  storeHandle?: Store;
  /** The idempotency key store, once opened. */
  keyStore?: Promise<KeyStore>;
  sweepTimer?: NodeJS.Timeout;
}
interface ChangesSelf extends Service, StoreFace<ChangeDoc>, ChangesMethods, ChangesVars {}

const ChangesService: ServiceSchema<ServiceSettingSchema, ChangesMethods, ChangesVars, ChangesSelf> = {
  name: "changes",
  mixins: [StoreMixin({ collection: "changes", indexes: [{ field: "key", thenById: true }] })],

  actions: {
    list: {
      params: CHANGES_PARAMS.list,
      handler(ctx: Ctx<{ since?: string; per_page?: number }>): Promise<FeedAnswer> {
        return this.readFeed(ctx);
      }
    },

    record: {
      visibility: "public",
      params: {
        changes: {
          type: "array",
          items: {
            type: "object",
            props: {
              type: { type: "enum", values: [...CHANGE_TYPES] },
              id: { type: "number", integer: true, positive: true },
              action: { type: "enum", values: ["created", "updated", "deleted"] },
              modified_utc: "string",
              snapshot: { type: "object", nullable: true, optional: true },
              // the record's document as the write left it (lib/changes/feed.ts ChangeInput.doc)
              doc: { type: "object", optional: true }
            }
          }
        }
      },
      async handler(ctx: Ctx<{ changes: ChangeInput[] }>): Promise<number> {
        if (!ctx.params.changes.length) return 0;
        return this.recordBatch(ctx.params.changes);
      }
    },

    claimKey: {
      visibility: "public",
      params: { id: "string", fingerprint: "string", leaseMs: { type: "number", positive: true } },
      async handler(ctx: Ctx<{ id: string; fingerprint: string; leaseMs: number }>): Promise<ClaimResult> {
        const keys: KeyStore = await this.keys();
        return keys.claim(ctx.params.id, ctx.params.fingerprint, ctx.params.leaseMs, KEEP_MS);
      }
    },
    settleKey: {
      visibility: "public",
      params: { id: "string", fingerprint: "string", answer: { type: "object" } },
      async handler(ctx: Ctx<{ id: string; fingerprint: string; answer: StoredAnswer }>): Promise<true> {
        await (await this.keys() as KeyStore).settle(ctx.params.id, ctx.params.fingerprint, ctx.params.answer, KEEP_MS);
        return true;
      }
    },
    /** Adds a gateway's counted uses of deprecated things to the site's counts (docs/api-policy.md#deprecations). */
    countDeprecations: {
      visibility: "public",
      params: { uses: { type: "object" } },
      async handler(ctx: Ctx<{ uses: Record<string, number> }>): Promise<true> {
        await addUses(await this.storeCollection(DEPRECATION_USES_COLLECTION), ctx.params.uses, nowDb());
        return true;
      }
    },
    /** The site's counts of uses of deprecated things, by deprecation id. */
    deprecationUses: {
      visibility: "public",
      async handler() {
        return readUses(await this.storeCollection(DEPRECATION_USES_COLLECTION));
      }
    },
    releaseKey: {
      visibility: "public",
      params: { id: "string", fingerprint: "string" },
      async handler(ctx: Ctx<{ id: string; fingerprint: string }>): Promise<true> {
        await (await this.keys() as KeyStore).release(ctx.params.id, ctx.params.fingerprint);
        return true;
      }
    }
  },

  methods,

  started() {
    // Each site keeps its own keys (docs/sites.md): the sweep visits every site.
    this.sweepTimer = setInterval(() => {
      this.keys()
        .then(async (k: KeyStore) => {
          for (const id of await this.siteIds()) await this.inSite(id, () => k.sweep());
        })
        .catch((err: Error) => this.logger.warn(`Sweeping idempotency keys failed: ${err.message}`));
    }, SWEEP_MS);
    this.sweepTimer.unref?.();
  },

  stopped() {
    clearInterval(this.sweepTimer);
  }
};

export default serviceSchema(ChangesService);
