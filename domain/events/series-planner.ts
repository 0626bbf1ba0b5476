/**
 * The series planner: recurring events (C34, C51–C55) as a plain class, built once by the events
 * service (services/events.service.ts) with what it depends on passed in (the events' records, the
 * writer of one event known by its interface, the feed, the term counts' notices). A series' occurrences are stored as event rows (lib/events/series.ts),
 * materialised through the horizon and planned again when the rule or the first start changes (surviving
 * ids kept, lib/recurrence/plan.ts); it runs the `this` / `following` / `all` scopes of updates and
 * deletes, moves the horizon forward (for the service's scheduled job and before writes) and answers what the
 * iCalendar answer needs of a series.
 *
 * Correctness across nodes comes from the store: each occurrence's `series_key` is unique by constraint
 * (two nodes materialising the same occurrence store it once; the loser's id is simply not used), every
 * row is changed by one atomic update, a removed row is counted (term counts, feed) only by the writer whose
 * delete removed it, and the scheduled job runs under the store-wide lock.
 */
import { randomBytes } from "crypto";
import type { Query } from "../../store/collection";
import { isUniqueViolation } from "../../store/errors";
import type { ChangeInput } from "../../lib/changes/feed";
import { ApiError, ParamReason } from "../../lib/errors";
import { resolveSchedule } from "../../lib/events/event-input";
import type { EventDoc } from "../../lib/events/event-doc";
import { materialisationHorizon, expandSeries, occurrenceAt } from "../../lib/recurrence/expand";
import { planOccurrences, reanchor, splitRecurrence, withExdate, withoutExdate } from "../../lib/recurrence/plan";
import { MAX_OCCURRENCES, parseRecurrence } from "../../lib/recurrence/rule";
import type { Recurrence } from "../../lib/recurrence/types";
import { wallFromMs, wallMs } from "../../lib/recurrence/lines";
import { inBounds } from "../../lib/events/series-window";
import { buildEventQuery, EventListFilters } from "../../lib/events/event-query";
import { nowDb as dbTime, wallClockToUtc } from "../../lib/dates";
import { globalId } from "../../lib/posts/permalink";
import { settings } from "../../lib/settings";
import { originalLanguage } from "../../lib/i18n/languages";
import { trashedSlug, untrashedSlug } from "../../lib/slug";
import { boundedEach } from "../../lib/bounded-each";
import { previousStartFields } from "../../lib/events/event-status";
import {
  changedGroups, contextOf, firstKey, groupsOfWrite, groupValues, isFirst, isMember, linesOf, occurrenceRow, occurrenceSlug,
  readRecurrenceParam, recurrenceOf, Scope, scheduleOf, scopeOf, SeriesDoc, seriesKey, seriesOf, templateOf, WHOLE_SERIES,
  heldClaim, seriesClaim, unclaimed, TEXT_GROUPS
} from "../../lib/events/series";
import type { PostRecords } from "../posts/post-records";
import type { EventWriter } from "./event-writer";
import type { SeriesFeed } from "./event-ports";
import type { TermCountNotices } from "./term-count-notices";

/** Write parameters as their schemas left them (lib/events/event-params.ts). */
type Params = Record<string, unknown>;

/** The store-wide lock of the horizon job (PostgreSQL advisory lock key; SQLite's write lock is per transaction). */
export const SERIES_JOB_LOCK = 72_410_020;
/**
 * How long a call of the horizon job (`events.materialise`) may take: a batch over every series of a site,
 * waiting its turn for the job's lock, not a request answered within the request timeout (10 s).
 */
export const SERIES_JOB_TIMEOUT_MS = 120_000;
/** Compare-and-set attempts of a series change before giving up (503: nothing changed). */
const REVISE_ATTEMPTS = 20;
/**
 * Occurrences a materialisation writes at once (lib/bounded-each.ts): each is its own statements (an id,
 * its slug, the row with its feed entry), independent of the others'. On PostgreSQL they overlap on the
 * pool's connections (10; some stay for other requests); on SQLite they share group commits. A daily
 * series' 729 occurrences, created through the API on PostgreSQL: 2.4–2.6 s one after another, 0.8–1.2 s
 * four at once with their ids drawn in one statement (docs/recurrence.md#the-horizon).
 */
const OCCURRENCE_WRITES_AT_ONCE = 4;
/** How many exceptions past its records an iCalendar answer fetches (the answer's own cap, C22). */
const ICS_MORE_LIMIT = 1000;
/** How many occurrences of one series an iCalendar answer looks at past the horizon. */
const ICS_EXPANSION_LIMIT = 5000;

const FLOATING = new Set(["draft", "pending", "auto-draft"]);
const present = (v: unknown) => v !== undefined && v !== null;

export interface SeriesPlannerDeps<C> {
  /** The events in the store (domain/posts/post-records.ts). */
  records: PostRecords<SeriesDoc>;
  /** Writes one event from a write's parameters. */
  writer: EventWriter<C>;
  feed: SeriesFeed;
  /** What follows writes that moved term counts (domain/events/term-count-notices.ts). */
  counts: TermCountNotices;
  /** The language a call writes in (i18n). */
  languageOf(call: C): string;
  logger: { warn(msg: string): void };
}

export interface MaterialiseOptions {
  /** The series' first start moved (C53 identities move with it). */
  move?: { from: string; to: string };
  /** Materialise through this UTC instant (default: the horizon now). */
  horizon?: string;
}

/** Fields of a write that are the series' own business, not an event field. */
function eventParams(p: Params): Params {
  const { recurrence: _r, scope: _s, ...rest } = p;
  return rest;
}

/** `C`: what a write carries from its caller to the writer (the request's context). */
export class SeriesPlanner<C> {
  private readonly records: PostRecords<SeriesDoc>;
  /** The horizon the last on-demand run left every series at (this process's). */
  private horizonDone?: string;

  constructor(private readonly deps: SeriesPlannerDeps<C>) {
    this.records = deps.records;
  }

  private nowDb(): string {
    return dbTime(this.records.now());
  }

  seriesHorizon(now?: Date): string {
    return materialisationHorizon(settings().siteTimezone, now ?? this.records.now());
  }

  /** Updates one member with its change-feed entry in the same transaction (C42), and tells the bus. */
  async updateRecorded(query: Query, update: Record<string, unknown>): Promise<SeriesDoc | null> {
    const change = await this.records.store.updateOneChange(query, update, { change: after => this.records.feedEntryOf("updated", after) });
    if (!change) return null;
    const after = change.after;
    this.deps.feed.emit("calendar.event.updated", { id: after._id, status: after.status, modified_utc: after.modified_utc });
    return after;
  }

  /** Stores a new occurrence with its change-feed entry in the same transaction (C42), and tells the bus. */
  async insertRecorded(row: SeriesDoc): Promise<SeriesDoc> {
    const created = await this.records.store.insert(row, { change: this.records.feedEntryOf("created", row) });
    this.deps.feed.emit("calendar.event.created", { id: created._id, status: created.status, modified_utc: created.modified_utc });
    return created;
  }

  /** The first event of a member's series (the member itself when it is the first). */
  async seriesHead(doc: SeriesDoc): Promise<SeriesDoc> {
    if (isFirst(doc)) return doc;
    const head = await this.records.findById(doc.series_id!);
    if (!head) throw new ApiError("rest-event-not-found", 404, { id: doc.series_id ?? 0 });
    return head;
  }

  /**
   * Checks of a write that need the series (C51, C52, C53), as 400s collected with the other parameter
   * checks: `recurrence` read in the context the write leaves, and `post_parent` refused on a series.
   */
  async checkWrite(p: Params, currentId?: number): Promise<Record<string, ParamReason>> {
    const bad: Record<string, ParamReason> = {};
    // a write that sends neither needs no read of the event (one statement fewer per plain update)
    if (!present(p.post_parent) && !present(p.recurrence)) return bad;
    const current = currentId ? await this.records.findById(currentId) : null;
    const member = isMember(current);
    const sendsRule = Array.isArray(p.recurrence) && p.recurrence.length > 0;
    if (present(p.post_parent) && (sendsRule || member)) bad.post_parent = { key: "param.invalid" };
    if (!present(p.recurrence)) return bad;
    let base: SeriesDoc | undefined = undefined;
    if (current) base = member ? templateOf(await this.seriesHead(current)) : current;
    let schedule;
    try {
      // the context the series will have after this write (`this` on an occurrence leaves the series' own)
      const own = member && scopeOf(p.scope, current!) === "this";
      schedule = resolveSchedule(own ? {} : p, base, settings().siteTimezone, this.records.now());
    } catch {
      return bad; // the dates themselves are reported by their own checks
    }
    try {
      readRecurrenceParam(p.recurrence, contextOf(schedule), this.seriesHorizon());
    } catch (err) {
      const e = err as ApiError;
      if (e?.type !== "rest_invalid_param") throw err;
      Object.assign(bad, e.data?.params ?? { recurrence: { key: "param.invalid" } });
    }
    return bad;
  }

  /** A claim on a series' planning for this writer (lib/events/series.ts `seriesClaim`). */
  newSeriesClaim(now?: Date): string {
    return seriesClaim(now ?? this.records.now(), randomBytes(6).toString("hex"));
  }

  /** A free slug `{series slug}-{YYYY-MM-DD}` (then `-2`…, C54); empty while the series is a draft. */
  async occurrenceSlugFor(template: SeriesDoc, identity: string, id: number): Promise<string> {
    const base = occurrenceSlug(untrashedSlug(template.slug ?? ""), identity);
    if (!base || FLOATING.has(template.status)) return base;
    const hold = await this.records.holdSlug(base, id);
    hold.release(); // the store's unique constraint decides; a lost race is retried by the caller
    return template.status === "trash" ? trashedSlug(hold.slug) : hold.slug;
  }

  /** Makes an event the first of a series (after its create or update) and materialises the series. */
  async startSeries(ctx: C, first: SeriesDoc, recurrence: Recurrence): Promise<SeriesDoc> {
    const head = await this.records.store.updateOne({ _id: first._id }, {
      $set: {
        series_id: first._id, series_identity: first.start_date, series_key: firstKey(first._id),
        series_overrides: [], series_lines: linesOf(recurrence, first), series_shared: {}, post_parent: 0,
        // behind every horizon until its occurrences are stored: an interrupted start is finished by the job
        // once this write's claim lapses (the job and lists leave a claimed series to its claimant)
        series_horizon: "", series_version: 0, series_claim: this.newSeriesClaim()
      }
    });
    // the first event was written just before, in its record order: it is there to update
    return this.materialise(head!);
  }

  /** After a create: the event starts a series when the write sent `recurrence` (C51). */
  async afterCreate(ctx: C, doc: SeriesDoc, p: Params): Promise<SeriesDoc> {
    if (!present(p.recurrence)) return doc;
    const asked = readRecurrenceParam(p.recurrence, contextOf(doc), this.seriesHorizon());
    return asked.action === "set" ? this.startSeries(ctx, doc, asked.recurrence) : doc;
  }

  /** Stores a series' new recurrence and plans its occurrences again. */
  async setRecurrence(head: SeriesDoc, recurrence: Recurrence): Promise<SeriesDoc> {
    const fresh = await this.reviseSeries(head._id, h => ({ series_lines: linesOf(recurrence, templateOf(h)) }));
    return this.materialise(fresh);
  }

  /**
   * Changes a series' own fields (its lines, identity) from its current state, by compare-and-set on
   * `series_version`: a concurrent change of the same series (another node's EXDATE, say) is never lost,
   * the loser reads again and recomputes. Answers the first event as it left it.
   */
  async reviseSeries(headId: number, change: (head: SeriesDoc) => Record<string, unknown>): Promise<SeriesDoc> {
    for (let attempt = 1; ; attempt++) {
      const head = await this.records.findById(headId);
      if (!head || !isFirst(head)) throw new ApiError("rest-event-not-found", 404, { id: headId });
      const version = head.series_version ?? 0;
      // the first event's `recurrence` changes with its lines: a change of the record (feed, modified)
      const now = this.nowDb();
      // and its horizon falls behind until `materialise` has planned the new lines (a crash between the two
      // leaves the series to the next job run or list)
      const after = await this.updateRecorded({ _id: headId, series_version: version },
        { $set: { ...change(head), series_version: version + 1, series_horizon: "", series_claim: this.newSeriesClaim(), modified: now, modified_utc: now } });
      if (after) return after;
      if (attempt >= REVISE_ATTEMPTS) throw new ApiError("rest_service_unavailable", 503);
    }
  }

  /**
   * Plans a series' stored occurrences against its expansion through the horizon (C53, C55): kept ids
   * get their new identity and times (unless an exception set its own), new occurrences are stored with
   * ids from the post sequence, the others are removed. Trashed occurrences stay as they are (an
   * exclusion's trashed occurrence, C53). Counts and the change feed follow every row changed. The
   * series' lines are read from the store; when they change while this runs (another node), it runs
   * again on the new ones, unless that change's writer now holds the series' claim: it plans them itself.
   * The claim `headIn` holds is this run's (the change or the job's claim that made it).
   */
  async materialise(headIn: SeriesDoc, o: MaterialiseOptions = {}): Promise<SeriesDoc> {
    let head = headIn;
    for (let attempt = 1; attempt <= REVISE_ATTEMPTS; attempt++) {
      const done = await this.materialiseOnce(head, attempt === 1 ? o : { horizon: o.horizon });
      if (done) return done;
      const fresh = await this.records.findById(head._id);
      if (!fresh || !isFirst(fresh)) return head;
      const claim = heldClaim(fresh, this.records.now());
      if (claim !== undefined && claim !== headIn.series_claim) return fresh;
      head = fresh;
    }
    throw new ApiError("rest_service_unavailable", 503);
  }

  async materialiseOnce(head: SeriesDoc, o: MaterialiseOptions = {}): Promise<SeriesDoc | null> {
    const recurrence = recurrenceOf(head);
    const template = templateOf(head);
    const series = seriesOf(head, recurrence);
    const horizon = o.horizon ?? this.seriesHorizon();
    const nextAll = expandSeries(series, horizon);
    if (nextAll.length > MAX_OCCURRENCES + 1) throw ApiError.invalidParam("recurrence", "param.invalid", { reason: "too_many_occurrences" });
    const next = nextAll.filter(x => x.identity !== series.start);
    const stored = await this.records.store.find({ series_id: head._id });
    const others = stored.filter(d => d._id !== head._id);
    const nextIds = new Set(next.map(x => x.identity));
    const trashedKept = new Set(others.filter(d => d.status === "trash" && nextIds.has(d.series_identity!)).map(d => d.series_identity!));
    const live = others.filter(d => d.status !== "trash");
    // an occurrence with its own times (a `schedule` override) keeps them: only a new identity moves it
    const storedTimes = (d: SeriesDoc) => ((d.series_overrides ?? []).includes("schedule") ? {} : { start: d.start_date, end: d.end_date });
    const plan = planOccurrences(live.map(d => ({ id: d._id, identity: d.series_identity!, ...storedTimes(d) })),
      next.filter(x => !trashedKept.has(x.identity)), o.move ? { move: o.move } : {});
    const byId = new Map(live.map(d => [d._id, d]));
    const changes: ChangeInput[] = [];
    const pairs: Array<[EventDoc | null, EventDoc | null]> = [];
    const now = this.nowDb();

    // Identities (and dates in slugs) may move onto one another (every occurrence a day later): the moving
    // rows first give up their keys and slugs, then take the new ones, so no constraint sees two at once.
    const moving = plan.keep.filter(k => k.changed);
    await boundedEach(moving, OCCURRENCE_WRITES_AT_ONCE, async k => {
      const before = byId.get(k.id)!;
      const slugMoves = !(before.series_overrides ?? []).includes("slug") && before.series_identity!.slice(0, 10) !== k.occurrence.identity.slice(0, 10);
      await this.records.store.updateOne({ _id: k.id }, { $set: { series_key: `${seriesKey(head._id, before.series_identity!)}~${k.id}`, ...(slugMoves && !FLOATING.has(before.status) ? { slug: "" } : {}) } });
    });
    await boundedEach(moving, OCCURRENCE_WRITES_AT_ONCE, async k => {
      const before = byId.get(k.id)!;
      const set: Record<string, unknown> = {
        series_identity: k.occurrence.identity, series_key: seriesKey(head._id, k.occurrence.identity), modified: now, modified_utc: now
      };
      if (!(before.series_overrides ?? []).includes("schedule")) {
        Object.assign(set, scheduleOf(k.occurrence, template));
        // a rescheduled occurrence moved with its series keeps its own start before the move
        Object.assign(set, previousStartFields(before.event_status, before, String(set.utc_start_date), settings().siteTimezone));
      }
      if (!(before.series_overrides ?? []).includes("slug") && before.series_identity!.slice(0, 10) !== k.occurrence.identity.slice(0, 10)) {
        set.slug = await this.occurrenceSlugFor({ ...template, status: before.status }, k.occurrence.identity, k.id);
      }
      await this.records.retryOnSlugConflict(async () => {
        try {
          return await this.updateRecorded({ _id: k.id }, { $set: set });
        } catch (err) {
          if (isUniqueViolation(err) && /slug/.test((err as Error).message) && typeof set.slug === "string") {
            set.slug = await this.occurrenceSlugFor({ ...template, status: before.status }, k.occurrence.identity, k.id);
          }
          throw err;
        }
      });
    });

    await boundedEach(plan.remove, OCCURRENCE_WRITES_AT_ONCE, async d => {
      const before = byId.get(d.id)!;
      // only the writer whose delete removed the row counts it
      if ((await this.records.store.removeMany({ _id: d.id })) !== 1) return;
      pairs.push([before, null]);
      changes.push({ type: "event", id: d.id, action: "deleted", modified_utc: now, snapshot: null });
    });

    // ids drawn first, in one statement and in the occurrences' order (a series' ids ascend with its dates), the rows then written at once
    const ids = await this.records.allocateIds(plan.create.length);
    await boundedEach(plan.create, OCCURRENCE_WRITES_AT_ONCE, async (occ, i) => {
      const id = ids[i];
      const created = await this.records.retryOnSlugConflict(async () => {
        const slug = await this.occurrenceSlugFor(template, occ.identity, id);
        try {
          return await this.insertRecorded(occurrenceRow(template, occ, id, slug, now));
        } catch (err) {
          // another node stored this occurrence first: the store's constraint keeps one (C34)
          if (isUniqueViolation(err) && /series_key/.test((err as Error).message)) return null;
          throw err;
        }
      });
      if (created) pairs.push([null, created]);
    });

    const bounded = recurrence.rule === null || recurrence.rule.count !== undefined || recurrence.rule.until !== undefined;
    const whole = bounded && expandSeries(series, WHOLE_SERIES, { limit: MAX_OCCURRENCES + 1 }).length === nextAll.length;
    await this.deps.counts.afterWrites(pairs);
    if (changes.length) await this.deps.feed.recordChanges(changes, { emit: true });
    // the horizon is the series' as this run read it: a change of the series meanwhile (null) runs again
    return (await this.records.store.updateOne({ _id: head._id, series_version: head.series_version ?? 0 }, {
      $set: { series_horizon: whole ? WHOLE_SERIES : horizon }, $unset: { series_claim: 1 }
    }));
  }

  /** Moves the horizon of every series that is behind it (C55); answers how many series moved. */
  async extendHorizons(now?: Date, always = false): Promise<number> {
    const at = now ?? this.records.now();
    const horizon = this.seriesHorizon(at);
    // On demand (before a write), only the series behind what today's default window needs wait: a horizon
    // one day old still covers it (C55's extra day), and the job moves the others. The job looks at all
    // (a start another node left unfinished too).
    const needed = always ? horizon : this.seriesHorizon(new Date(at.getTime() - 86_400_000));
    if (!always && this.horizonDone !== undefined && this.horizonDone >= needed) return 0;
    const behind = await this.records.store.find({ series_horizon: { $lt: needed } });
    let moved = 0;
    for (const found of behind) {
      if (!isFirst(found)) continue;
      // a series being started or changed is its writer's to plan (docs/recurrence.md#many-nodes), and
      // one another node's job or list claimed is left to it: each series planned by one at a time
      // (and still behind: one another node planned meanwhile is not planned again)
      const head = (await this.records.store.updateOne({ _id: found._id, series_version: found.series_version ?? 0, series_horizon: { $lt: needed }, $and: [unclaimed(this.records.now())] },
        { $set: { series_claim: this.newSeriesClaim() } }));
      if (!head) continue;
      try {
        // a series trashed whole (its first event trashed, not as an exclusion) gets no new occurrences
        // until it is restored (updateAll plans it again then)
        if (head.status === "trash" && !recurrenceOf(head).exdates.includes(head.series_identity!)) {
          await this.records.store.updateOne({ _id: head._id }, { $set: { series_horizon: horizon }, $unset: { series_claim: 1 } });
          continue;
        }
        await this.materialise(head, { horizon });
        moved++;
      } catch (err) {
        // one series' trouble (a write changing it right now) leaves the others to move; the next run retries
        this.deps.logger.warn(`Series ${head._id} not materialised: ${(err as Error).message}`);
      }
    }
    this.horizonDone = needed;
    return moved;
  }

  /** Ends a series (`recurrence: []`, C51): the other occurrences are removed, the first event stays alone. */
  async endSeries(head: SeriesDoc): Promise<SeriesDoc> {
    const others = (await this.records.store.find({ series_id: head._id })).filter(d => d._id !== head._id);
    const pairs: Array<[EventDoc | null, EventDoc | null]> = [];
    const changes: ChangeInput[] = [];
    const now = this.nowDb();
    for (const d of others) {
      if ((await this.records.store.removeMany({ _id: d._id })) !== 1) continue;
      pairs.push([d, null]);
      changes.push({ type: "event", id: d._id, action: "deleted", modified_utc: now, snapshot: null });
    }
    const after = (await this.updateRecorded({ _id: head._id }, {
      $unset: { series_id: 1, series_identity: 1, series_key: 1, series_overrides: 1, series_lines: 1, series_shared: 1, series_horizon: 1, series_claim: 1 },
      $set: { modified: now, modified_utc: now }
    }))!; // the series' first event, read in its record order: it is there to update
    await this.deps.counts.afterWrites(pairs);
    if (changes.length) await this.deps.feed.recordChanges(changes, { emit: true });
    return after;
  }

  /**
   * An update of a series member (C53). Answers the stored member as the write left it.
   */
  async update(ctx: C, doc: SeriesDoc, p: Params): Promise<SeriesDoc> {
    if (!isMember(doc)) {
      const written = await this.deps.writer.write(ctx, eventParams(p), doc);
      const asked = present(p.recurrence) ? readRecurrenceParam(p.recurrence, contextOf(written), this.seriesHorizon()) : { action: "keep" as const };
      if (asked.action === "set") return this.startSeries(ctx, written, asked.recurrence);
      return written;
    }
    const scope: Scope = scopeOf(p.scope, doc);
    if (scope === "this") return this.updateThis(ctx, doc, p);
    if (scope === "all") {
      await this.updateAll(ctx, await this.seriesHead(doc), p, doc);
      return (await this.records.findById(doc._id)) ?? doc;
    }
    const head = await this.splitAt(ctx, doc);
    if (!head) {
      await this.updateAll(ctx, await this.seriesHead(doc), p, doc);
      return (await this.records.findById(doc._id)) ?? doc;
    }
    await this.updateAll(ctx, head, p, head);
    return (await this.records.findById(doc._id)) ?? doc;
  }

  /** `scope=this`: the occurrence alone; the groups it changes become its own (an exception, C53). */
  async updateThis(ctx: C, doc: SeriesDoc, p: Params): Promise<SeriesDoc> {
    const before = doc;
    const first = isFirst(doc);
    const sent = groupsOfWrite(eventParams(p));
    // text written in another language than the original is kept by the i18n service: its own translation
    const translated = TEXT_GROUPS.some(g => g !== "translations" && sent.includes(g)) && this.deps.languageOf(ctx) !== originalLanguage(before, settings().defaultLanguage);
    // The groups this write sends become the occurrence's own before it writes them, by one atomic
    // update: an `all` write of another node from then on leaves them alone (it updates an occurrence only
    // while none of its groups is overridden), and one before it is overwritten by this write.
    const marks = [...sent, ...(translated ? ["translations"] : [])];
    const newly = marks.filter(g => !(before.series_overrides ?? []).includes(g));
    if (newly.length) {
      const update: Record<string, unknown> = { $addToSet: { series_overrides: { $each: newly } } };
      // the series keeps its own values of what its first event now overrides
      if (first) update.$set = { series_shared: { ...groupValues(before, newly), ...(before.series_shared ?? {}) } };
      await this.records.store.updateOne({ _id: doc._id }, update);
    }
    let after = await this.deps.writer.write(ctx, eventParams(p), doc);
    if (before.status !== after.status && !marks.includes("status")) {
      // a status moved by the publication date: the occurrence's own too
      const update: Record<string, unknown> = { $addToSet: { series_overrides: "status" } };
      if (first) update.$set = { series_shared: { ...groupValues(before, ["status"]), ...((await this.records.findById(doc._id))?.series_shared ?? {}) } };
      after = (await this.records.store.updateOne({ _id: doc._id }, update)) ?? after;
    }
    // trash and restore by status (C13, C53): the exclusion follows
    const head = await this.seriesHead(after);
    const enteringTrash = before.status !== "trash" && after.status === "trash";
    const leavingTrash = before.status === "trash" && after.status !== "trash";
    if (enteringTrash || leavingTrash) {
      const identity = doc.series_identity!;
      await this.materialise(await this.reviseSeries(head._id, h => {
        const recurrence = recurrenceOf(h);
        return { series_lines: linesOf(enteringTrash ? withExdate(recurrence, identity) : withoutExdate(recurrence, identity), templateOf(h)) };
      }));
    }
    if (present(p.recurrence)) {
      const asked = readRecurrenceParam(p.recurrence, contextOf(templateOf(head)), this.seriesHorizon());
      const fresh = (await this.records.findById(head._id))!;
      if (asked.action === "end") await this.endSeries(fresh);
      if (asked.action === "set") await this.setRecurrence(fresh, asked.recurrence);
    }
    return (await this.records.findById(doc._id)) ?? after;
  }

  /**
   * `scope=all` (C53): the write goes to the series (its first event, or the series' own values of what
   * the first event overrides) and to every occurrence in the groups it did not override; a change of the
   * first start, zone or rule plans the occurrences again (surviving ids kept). `from` is the member the
   * write was sent to: its time change moves the series by the same wall-clock distance.
   */
  async updateAll(ctx: C, head: SeriesDoc, p: Params, from?: SeriesDoc): Promise<void> {
    const before = templateOf(head);
    const q = eventParams(p);
    if (from && from._id !== head._id && ["start_date", "end_date", "all_day", "timezone"].some(k => present(q[k]))) {
      // the member's new times, as a move of the series' first occurrence by the same distance
      const now = this.records.now();
      const mine = resolveSchedule(q, from, settings().siteTimezone, now);
      const shiftStart = wallMs(mine.start_date) - wallMs(from.start_date);
      const shiftEnd = wallMs(mine.end_date) - wallMs(from.end_date);
      q.start_date = wallFromMs(wallMs(before.start_date) + shiftStart);
      q.end_date = wallFromMs(wallMs(before.end_date) + shiftEnd);
    }
    // the first event takes the write; what it overrides goes to the series' own values instead
    const headOwn = head.series_overrides ?? [];
    const written = await this.deps.writer.write(ctx, q, before);
    const template: SeriesDoc = { ...written, series_shared: undefined };
    const changed = changedGroups(before, written).filter(g => g !== "slug" || present(q.slug));
    // the first event keeps what it overrides; the series' own values take the write there
    const restore: Record<string, unknown> = groupValues(head, headOwn);
    const shared: Record<string, unknown> = { ...(head.series_shared ?? {}) };
    for (const g of changed) if (headOwn.includes(g)) Object.assign(shared, groupValues(written, [g]));
    let fresh = (Object.keys(restore).length
      ? await this.updateRecorded({ _id: head._id }, { $set: { ...restore, series_shared: shared } })
      : await this.records.store.updateOne({ _id: head._id }, { $set: { series_shared: shared } }))!; // the first event, read in its record order
    await this.deps.counts.afterWrites([[written, fresh]]);

    // the other occurrences follow in the groups they did not override
    const moved = changed.includes("schedule");
    const plain = changed.filter(g => g !== "schedule" && g !== "slug");
    const others = (await this.records.store.find({ series_id: head._id })).filter(d => d._id !== head._id);
    const pairs: Array<[EventDoc | null, EventDoc | null]> = [];
    const nowDb = this.nowDb();
    for (const m of others) {
      const done = await this.followSeries(m, template, plain, changed.includes("slug"), nowDb);
      if (done) pairs.push(done);
    }
    await this.deps.counts.afterWrites(pairs);

    // the rule, and the occurrences' times and identities
    const asked = present(p.recurrence) ? readRecurrenceParam(p.recurrence, contextOf(templateOf(fresh)), this.seriesHorizon()) : undefined;
    if (asked?.action === "end") {
      await this.endSeries(fresh);
      return;
    }
    if (moved || asked?.action === "set" || changed.includes("status")) {
      const to = templateOf(fresh).start_date;
      fresh = await this.reviseSeries(head._id, h => {
        // the stored lines were written in the series' context before this write
        let recurrence = asked?.action === "set" ? asked.recurrence : parseRecurrence(h.series_lines ?? [], contextOf(before));
        if (moved && asked?.action !== "set") recurrence = reanchor(recurrence, contextOf(before), contextOf(templateOf(h)));
        return { series_lines: linesOf(recurrence, templateOf(h)), series_identity: to };
      });
      await this.materialise(fresh, { move: { from: before.start_date, to } });
    }
  }

  /**
   * An occurrence takes the series' new values of the groups it did not override (`all`, C53); answers
   * it before and after, or null when nothing changed. The update holds only while none of those groups
   * became its own meanwhile (a `this` write on another node): then it is read again and retried.
   */
  async followSeries(member: SeriesDoc, template: SeriesDoc, plain: string[], slugChanged: boolean, now: string): Promise<[SeriesDoc, SeriesDoc] | null> {
    let m: SeriesDoc | null = member;
    for (let attempt = 1; m && attempt <= REVISE_ATTEMPTS; attempt++) {
      const current: SeriesDoc = m;
      // (an occurrence trashed on its own has `status` among its overrides)
      const groups = plain.filter(g => !(current.series_overrides ?? []).includes(g));
      const set: Record<string, unknown> = groupValues(template, groups);
      const statusChanged = groups.includes("status") && set.status !== current.status;
      if (statusChanged && set.status === "trash") {
        Object.assign(set, { prior_status: current.status, slug: current.slug ? trashedSlug(current.slug) : current.slug });
      } else if (statusChanged || slugChanged) {
        if (!(current.series_overrides ?? []).includes("slug")) {
          set.slug = await this.occurrenceSlugFor({ ...template, status: String(set.status ?? current.status) }, current.series_identity!, current._id);
        }
        if (current.status === "trash") set.prior_status = undefined;
      }
      if (!Object.keys(set).length) return null;
      Object.assign(set, { modified: now, modified_utc: now });
      const after = await this.records.retryOnSlugConflict(() => this.updateRecorded({ _id: current._id, series_overrides: { $nin: groups } }, { $set: set }));
      if (after) return [current, after];
      m = await this.records.findById(current._id);
    }
    return null;
  }

  /**
   * `scope=following` (C53): the series is split at the member, which becomes the first event of a new
   * series holding it and every later occurrence (their ids kept); the old series' rule ends before it.
   * Answers the new series' first event, or null when the member is the first (then `all`).
   */
  async splitAt(ctx: C, doc: SeriesDoc): Promise<SeriesDoc | null> {
    const head = await this.seriesHead(doc);
    const series = seriesOf(head);
    const split = splitRecurrence(series, doc.series_identity!);
    if (!split) return null;
    const template = templateOf(head);
    const at = doc.series_identity!;
    // the new series' own values: the old series' at that occurrence (its overrides stay its own)
    const own = (doc.series_overrides ?? []).filter(g => g !== "slug");
    const shared = { ...groupValues(template, own.filter(g => g !== "schedule")), ...(own.includes("schedule") ? scheduleOf(occurrenceAt(series, at), template) : {}) };
    const later = (await this.records.store.find({ series_id: head._id })).filter(m => m.series_identity! > at);
    const now = this.nowDb();
    await this.updateRecorded({ _id: doc._id }, {
      $set: {
        series_id: doc._id, series_key: firstKey(doc._id), post_parent: 0, series_shared: shared,
        series_lines: linesOf(split.after, { ...template, ...shared }), series_horizon: head.series_horizon ?? "", series_version: 0,
        modified: now, modified_utc: now
      }
    });
    for (const m of later) {
      await this.updateRecorded({ _id: m._id }, {
        $set: { series_id: doc._id, series_key: seriesKey(doc._id, m.series_identity!), post_parent: doc._id, modified: now, modified_utc: now }
      });
    }
    const old = await this.reviseSeries(head._id, h => ({ series_lines: linesOf(splitRecurrence(seriesOf(h), at)?.before ?? split.before, templateOf(h)) }));
    await this.materialise(old);
    return (await this.records.findById(doc._id))!;
  }

  /** Trashes one member (C13 slug suffix, counts, feed); answers it trashed. */
  async trashMember(doc: SeriesDoc): Promise<SeriesDoc> {
    const trashed = await this.records.trash(doc);
    await this.deps.counts.afterWrites([[doc, trashed]]);
    await this.deps.feed.announce("deleted", trashed);
    return trashed;
  }

  /**
   * DELETE of a series member (C53): `this` trashes it and adds its EXDATE (the first event keeps the
   * rule); `following` ends the series before it and trashes it and every later occurrence; `all` trashes
   * every occurrence. Answers the member trashed.
   */
  async remove(ctx: C, doc: SeriesDoc, sent: unknown): Promise<SeriesDoc> {
    if (doc.status === "trash") throw new ApiError("event-is-in-trash", 410);
    const scope = scopeOf(sent, doc);
    const head = await this.seriesHead(doc);
    if (scope === "this") {
      const trashed = await this.trashMember(doc);
      const own = [...new Set([...(doc.series_overrides ?? []), "status"])];
      const set: Record<string, unknown> = { series_overrides: own };
      if (isFirst(doc) && !(doc.series_overrides ?? []).includes("status")) set.series_shared = { ...groupValues(doc, ["status"]), ...(doc.series_shared ?? {}) };
      await this.records.store.updateOne({ _id: doc._id }, { $set: set });
      await this.materialise(await this.reviseSeries(head._id, h => ({ series_lines: linesOf(withExdate(recurrenceOf(h), doc.series_identity!), templateOf(h)) })));
      return trashed;
    }
    const members = await this.records.store.find({ series_id: head._id });
    const at = doc.series_identity!;
    const split = scope === "following" ? splitRecurrence(seriesOf(head), at) : null;
    const targets = split ? members.filter(m => m.series_identity! >= at) : members;
    let answer: SeriesDoc = doc;
    for (const m of targets) {
      if (m.status === "trash") continue;
      const trashed = await this.trashMember(m);
      if (m._id === doc._id) answer = trashed;
    }
    // trashed first: planning the shorter rule then leaves them as they are (trashed occurrences stay)
    if (split) {
      await this.materialise(await this.reviseSeries(head._id, h => ({ series_lines: linesOf(splitRecurrence(seriesOf(h), at)?.before ?? split.before, templateOf(h)) })));
    }
    return answer;
  }

  /**
   * What the iCalendar answer of a list needs of the series its events belong to (C55), for the list's
   * filters: for each listed member its series, identity and whether it is an exception; for each series
   * its first start, end, zone, lines, UID and the identities within the query's window that the query
   * does not match (EXDATEs); and `more`, the exceptions the query matches that the answer's records do
   * not hold yet (past its first 1 000 records). With `whole` (no filters), a first event's own file: the
   * whole series.
   */
  async calendar(ids: number[], filters: EventListFilters | undefined, whole: boolean) {
    const listed: SeriesDoc[] = await this.records.store.findByIds(ids);
    const members: Record<string, { series: number; identity: string; exception: boolean }> = {};
    const seriesIds = new Set<number>();
    for (const d of listed) {
      if (!isMember(d)) continue;
      seriesIds.add(d.series_id!);
      const overrides = (d.series_overrides ?? []).filter(g => g !== "slug");
      members[d._id] = { series: d.series_id!, identity: d.series_identity!, exception: overrides.length > 0 || isFirst(d) && Object.keys(d.series_shared ?? {}).length > 0 };
    }
    const listedIds = new Set(ids);
    const bounds = filters?.bounds ?? {};
    // the members the query matches (the answer's records are its first 1 000 events at most)
    const matching = filters && seriesIds.size
      ? (await this.records.store.find({ $and: [buildEventQuery(filters), { series_id: { $in: [...seriesIds] } }] },
        { projection: { _id: 1, series_id: 1, series_overrides: 1, series_shared: 1 } }))
      : [];
    const matched = new Set([...listedIds, ...matching.map(m => m._id)]);
    const more = matching.filter(m => !listedIds.has(m._id) && ((m.series_overrides ?? []).some(g => g !== "slug") || (isFirst(m) && Object.keys(m.series_shared ?? {}).length > 0)))
      .map(m => m._id).slice(0, ICS_MORE_LIMIT);
    const series: Record<string, unknown> = {};
    for (const id of seriesIds) {
      const head = await this.records.findById(id);
      if (!head || !isFirst(head)) continue;
      const template = templateOf(head);
      const all = await this.records.store.find({ series_id: id }, { projection: { _id: 1, series_identity: 1, start_date: 1, end_date: 1 } });
      const s = seriesOf(head);
      const unlisted = whole ? [] : all.filter(m => {
        if (matched.has(m._id)) return false;
        const rule = occurrenceAt(s, m.series_identity!);
        return inBounds(bounds, m.start_date, m.end_date) || inBounds(bounds, rule.start, rule.end);
      }).map(m => m.series_identity!);
      // a window reaching past the horizon: the rule's occurrences there are not stored, so not listed
      const upper = bounds.end_date ?? bounds.ends_before;
      if (!whole && upper !== undefined && head.series_horizon !== WHOLE_SERIES) {
        const stored = new Set(all.map(m => m.series_identity!));
        const until = wallClockToUtc(upper, settings().siteTimezone);
        for (const o of expandSeries(s, until, { limit: ICS_EXPANSION_LIMIT })) {
          if (!stored.has(o.identity) && inBounds(bounds, o.start, o.end)) unlisted.push(o.identity);
        }
      }
      series[id] = {
        uid: globalId(settings().baseUrl, id), start: template.start_date, end: template.end_date, zone: template.timezone, allDay: !!template.all_day,
        lines: head.series_lines ?? [], exdates: unlisted, utc_start: template.utc_start_date
      };
    }
    return { members, series, more };
  }
}
