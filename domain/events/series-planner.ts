/**
 * The writes of recurring events (C34: occurrence ids; C51 to C54: the recurrence decisions) as a plain class, built once by the events service
 * (services/events.service.ts) with what it depends on passed in (the events' records, the writer of one
 * event known by its interface, the feed, the term counts' notices). It checks the series' part of a write,
 * starts, changes and ends series, and runs the `this` / `following` / `all` scopes of updates and deletes.
 * A series' occurrences are stored as event rows (lib/events/series.ts); the horizon that stores and plans
 * them is domain/events/series-horizon.ts, the iCalendar answer's view of a series
 * domain/events/series-calendar.ts.
 *
 * Correctness across nodes comes from the store: a series' own fields change by compare-and-set on
 * `series_version`, every row is changed by one atomic update, and an occurrence's `all` update holds only
 * while none of its groups became its own meanwhile.
 */
import type { ChangeInput } from "../../lib/changes/feed";
import { ApiError, ParamReason } from "../../lib/errors";
import { resolveSchedule } from "../../lib/events/event-input";
import type { EventDoc } from "../../lib/events/event-doc";
import { occurrenceAt } from "../../lib/recurrence/expand";
import { reanchor, splitRecurrence, withExdate, withoutExdate } from "../../lib/recurrence/plan";
import { parseRecurrence } from "../../lib/recurrence/rule";
import type { Recurrence } from "../../lib/recurrence/types";
import { wallFromMs, wallMs } from "../../lib/recurrence/lines";
import { settings } from "../../lib/settings";
import { originalLanguage } from "../../lib/i18n/languages";
import { trashedSlug } from "../../lib/text/slug";
import {
  changedGroups, contextOf, firstKey, groupsOfWrite, groupValues, isFirst, isMember, linesOf,
  readRecurrenceParam, recurrenceOf, Scope, scheduleOf, scopeOf, SeriesDoc, seriesKey, seriesOf, templateOf, TEXT_GROUPS
} from "../../lib/events/series";
import type { PostRecords } from "../posts/post-records";
import type { EventWriter } from "./event-writer";
import type { SeriesFeed } from "./event-ports";
import type { TermCountNotices } from "./term-count-notices";
import { REVISE_ATTEMPTS, SeriesRows } from "./series-rows";
import { SeriesHorizon } from "./series-horizon";

/** Write parameters as their schemas left them (lib/events/event-params.ts). */
type Params = Record<string, unknown>;

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

/** Fields of a write that are the series' own business, not an event field. */
function eventParams(p: Params): Params {
  const { recurrence: _r, scope: _s, ...rest } = p;
  return rest;
}

/** `C`: what a write carries from its caller to the writer (the request's context). */
export class SeriesPlanner<C> {
  private readonly records: PostRecords<SeriesDoc>;
  private readonly rows: SeriesRows;
  /** The horizon of the series this planner writes (its scheduled job and the runs before writes). */
  readonly horizon: SeriesHorizon;

  constructor(private readonly deps: SeriesPlannerDeps<C>) {
    this.records = deps.records;
    this.rows = new SeriesRows(deps.records, deps.feed);
    this.horizon = new SeriesHorizon({ rows: this.rows, feed: deps.feed, counts: deps.counts, logger: deps.logger });
  }

  /**
   * Checks of a write that need the series (C51: recurrence fields; C52: the recurrence rules accepted; C53: occurrence identity, exceptions and scope), as 400s collected with the other parameter
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
    if (current) base = member ? templateOf(await this.rows.seriesHead(current)) : current;
    let schedule;
    try {
      // the context the series will have after this write (`this` on an occurrence leaves the series' own)
      const own = member && scopeOf(p.scope, current!) === "this";
      schedule = resolveSchedule(own ? {} : p, base, settings().siteTimezone, this.records.now());
    } catch {
      return bad; // the dates themselves are reported by their own checks
    }
    try {
      readRecurrenceParam(p.recurrence, contextOf(schedule), this.rows.seriesHorizon());
    } catch (err) {
      const e = err as ApiError;
      if (e?.type !== "rest_invalid_param") throw err;
      Object.assign(bad, e.data?.params ?? { recurrence: { key: "param.invalid" } });
    }
    return bad;
  }


  /** Makes an event the first of a series (after its create or update) and materialises the series. */
  async startSeries(ctx: C, first: SeriesDoc, recurrence: Recurrence): Promise<SeriesDoc> {
    const head = await this.records.store.updateOne({ _id: first._id }, {
      $set: {
        series_id: first._id, series_identity: first.start_date, series_key: firstKey(first._id),
        series_overrides: [], series_lines: linesOf(recurrence, first), series_shared: {}, post_parent: 0,
        // behind every horizon until its occurrences are stored: an interrupted start is finished by the job
        // once this write's claim lapses (the job and lists leave a claimed series to its claimant)
        series_horizon: "", series_version: 0, series_claim: this.rows.newSeriesClaim()
      }
    });
    // the first event was written just before, in its record order: it is there to update
    return this.horizon.materialise(head!);
  }

  /** After a create: the event starts a series when the write sent `recurrence` (C51: recurrence fields). */
  async afterCreate(ctx: C, doc: SeriesDoc, p: Params): Promise<SeriesDoc> {
    if (!present(p.recurrence)) return doc;
    const asked = readRecurrenceParam(p.recurrence, contextOf(doc), this.rows.seriesHorizon());
    return asked.action === "set" ? this.startSeries(ctx, doc, asked.recurrence) : doc;
  }

  /** Stores a series' new recurrence and plans its occurrences again. */
  async setRecurrence(head: SeriesDoc, recurrence: Recurrence): Promise<SeriesDoc> {
    const fresh = await this.reviseSeries(head._id, h => ({ series_lines: linesOf(recurrence, templateOf(h)) }));
    return this.horizon.materialise(fresh);
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
      const now = this.rows.nowDb();
      // and its horizon falls behind until `materialise` has planned the new lines (a crash between the two
      // leaves the series to the next job run or list)
      const after = await this.rows.updateRecorded({ _id: headId, series_version: version },
        { $set: { ...change(head), series_version: version + 1, series_horizon: "", series_claim: this.rows.newSeriesClaim(), modified: now, modified_utc: now } });
      if (after) return after;
      if (attempt >= REVISE_ATTEMPTS) throw new ApiError("rest_service_unavailable", 503);
    }
  }

  /** Ends a series (`recurrence: []`, C51: recurrence fields): the other occurrences are removed, the first event stays alone. */
  async endSeries(head: SeriesDoc): Promise<SeriesDoc> {
    const others = (await this.records.store.find({ series_id: head._id })).filter(d => d._id !== head._id);
    const pairs: Array<[EventDoc | null, EventDoc | null]> = [];
    const changes: ChangeInput[] = [];
    const now = this.rows.nowDb();
    for (const d of others) {
      if ((await this.records.store.removeMany({ _id: d._id })) !== 1) continue;
      pairs.push([d, null]);
      changes.push({ type: "event", id: d._id, action: "deleted", modified_utc: now, snapshot: null });
    }
    const after = (await this.rows.updateRecorded({ _id: head._id }, {
      $unset: { series_id: 1, series_identity: 1, series_key: 1, series_overrides: 1, series_lines: 1, series_shared: 1, series_horizon: 1, series_claim: 1 },
      $set: { modified: now, modified_utc: now }
    }))!; // the series' first event, read in its record order: it is there to update
    await this.deps.counts.afterWrites(pairs);
    if (changes.length) await this.deps.feed.recordChanges(changes, { emit: true });
    return after;
  }

  /**
   * An update of a series member (C53: occurrence identity, exceptions and scope). Answers the stored member as the write left it.
   */
  async update(ctx: C, doc: SeriesDoc, p: Params): Promise<SeriesDoc> {
    if (!isMember(doc)) {
      const written = await this.deps.writer.write(ctx, eventParams(p), doc);
      const asked = present(p.recurrence) ? readRecurrenceParam(p.recurrence, contextOf(written), this.rows.seriesHorizon()) : { action: "keep" as const };
      if (asked.action === "set") return this.startSeries(ctx, written, asked.recurrence);
      return written;
    }
    const scope: Scope = scopeOf(p.scope, doc);
    if (scope === "this") return this.updateThis(ctx, doc, p);
    if (scope === "all") {
      await this.updateAll(ctx, await this.rows.seriesHead(doc), p, doc);
      return (await this.records.findById(doc._id)) ?? doc;
    }
    const head = await this.splitAt(ctx, doc);
    if (!head) {
      await this.updateAll(ctx, await this.rows.seriesHead(doc), p, doc);
      return (await this.records.findById(doc._id)) ?? doc;
    }
    await this.updateAll(ctx, head, p, head);
    return (await this.records.findById(doc._id)) ?? doc;
  }

  /** `scope=this`: the occurrence alone; the groups it changes become its own (an exception, C53: occurrence identity, exceptions and scope). */
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
    // trash and restore by status (C13: a due `future` post counts as published; C53: occurrence identity, exceptions and scope): the exclusion follows
    const head = await this.rows.seriesHead(after);
    const enteringTrash = before.status !== "trash" && after.status === "trash";
    const leavingTrash = before.status === "trash" && after.status !== "trash";
    if (enteringTrash || leavingTrash) {
      const identity = doc.series_identity!;
      await this.horizon.materialise(await this.reviseSeries(head._id, h => {
        const recurrence = recurrenceOf(h);
        return { series_lines: linesOf(enteringTrash ? withExdate(recurrence, identity) : withoutExdate(recurrence, identity), templateOf(h)) };
      }));
    }
    if (present(p.recurrence)) {
      const asked = readRecurrenceParam(p.recurrence, contextOf(templateOf(head)), this.rows.seriesHorizon());
      const fresh = (await this.records.findById(head._id))!;
      if (asked.action === "end") await this.endSeries(fresh);
      if (asked.action === "set") await this.setRecurrence(fresh, asked.recurrence);
    }
    return (await this.records.findById(doc._id)) ?? after;
  }

  /**
   * `scope=all` (C53: occurrence identity, exceptions and scope): the write goes to the series (its first event, or the series' own values of what
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
      ? await this.rows.updateRecorded({ _id: head._id }, { $set: { ...restore, series_shared: shared } })
      : await this.records.store.updateOne({ _id: head._id }, { $set: { series_shared: shared } }))!; // the first event, read in its record order
    await this.deps.counts.afterWrites([[written, fresh]]);

    // the other occurrences follow in the groups they did not override
    const moved = changed.includes("schedule");
    const plain = changed.filter(g => g !== "schedule" && g !== "slug");
    const others = (await this.records.store.find({ series_id: head._id })).filter(d => d._id !== head._id);
    const pairs: Array<[EventDoc | null, EventDoc | null]> = [];
    const nowDb = this.rows.nowDb();
    for (const m of others) {
      const done = await this.followSeries(m, template, plain, changed.includes("slug"), nowDb);
      if (done) pairs.push(done);
    }
    await this.deps.counts.afterWrites(pairs);

    // the rule, and the occurrences' times and identities
    const asked = present(p.recurrence) ? readRecurrenceParam(p.recurrence, contextOf(templateOf(fresh)), this.rows.seriesHorizon()) : undefined;
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
      await this.horizon.materialise(fresh, { move: { from: before.start_date, to } });
    }
  }

  /**
   * An occurrence takes the series' new values of the groups it did not override (`all`, C53: occurrence identity, exceptions and scope); answers
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
          set.slug = await this.rows.occurrenceSlugFor({ ...template, status: String(set.status ?? current.status) }, current.series_identity!, current._id);
        }
        if (current.status === "trash") set.prior_status = undefined;
      }
      if (!Object.keys(set).length) return null;
      Object.assign(set, { modified: now, modified_utc: now });
      const after = await this.records.retryOnSlugConflict(() => this.rows.updateRecorded({ _id: current._id, series_overrides: { $nin: groups } }, { $set: set }));
      if (after) return [current, after];
      m = await this.records.findById(current._id);
    }
    return null;
  }

  /**
   * `scope=following` (C53: occurrence identity, exceptions and scope): the series is split at the member, which becomes the first event of a new
   * series holding it and every later occurrence (their ids kept); the old series' rule ends before it.
   * Answers the new series' first event, or null when the member is the first (then `all`).
   */
  async splitAt(ctx: C, doc: SeriesDoc): Promise<SeriesDoc | null> {
    const head = await this.rows.seriesHead(doc);
    const series = seriesOf(head);
    const split = splitRecurrence(series, doc.series_identity!);
    if (!split) return null;
    const template = templateOf(head);
    const at = doc.series_identity!;
    // the new series' own values: the old series' at that occurrence (its overrides stay its own)
    const own = (doc.series_overrides ?? []).filter(g => g !== "slug");
    const shared = { ...groupValues(template, own.filter(g => g !== "schedule")), ...(own.includes("schedule") ? scheduleOf(occurrenceAt(series, at), template) : {}) };
    const later = (await this.records.store.find({ series_id: head._id })).filter(m => m.series_identity! > at);
    const now = this.rows.nowDb();
    await this.rows.updateRecorded({ _id: doc._id }, {
      $set: {
        series_id: doc._id, series_key: firstKey(doc._id), post_parent: 0, series_shared: shared,
        series_lines: linesOf(split.after, { ...template, ...shared }), series_horizon: head.series_horizon ?? "", series_version: 0,
        modified: now, modified_utc: now
      }
    });
    for (const m of later) {
      await this.rows.updateRecorded({ _id: m._id }, {
        $set: { series_id: doc._id, series_key: seriesKey(doc._id, m.series_identity!), post_parent: doc._id, modified: now, modified_utc: now }
      });
    }
    const old = await this.reviseSeries(head._id, h => ({ series_lines: linesOf(splitRecurrence(seriesOf(h), at)?.before ?? split.before, templateOf(h)) }));
    await this.horizon.materialise(old);
    return (await this.records.findById(doc._id))!;
  }

  /** Trashes one member (C13: trash as DELETE does it, slug suffix, counts, feed); answers it trashed. */
  async trashMember(doc: SeriesDoc): Promise<SeriesDoc> {
    const trashed = await this.records.trash(doc);
    await this.deps.counts.afterWrites([[doc, trashed]]);
    await this.deps.feed.announce("deleted", trashed);
    return trashed;
  }

  /**
   * DELETE of a series member (C53: occurrence identity, exceptions and scope): `this` trashes it and adds its EXDATE (the first event keeps the
   * rule); `following` ends the series before it and trashes it and every later occurrence; `all` trashes
   * every occurrence. Answers the member trashed.
   */
  async remove(ctx: C, doc: SeriesDoc, sent: unknown): Promise<SeriesDoc> {
    if (doc.status === "trash") throw new ApiError("event-is-in-trash", 410);
    const scope = scopeOf(sent, doc);
    const head = await this.rows.seriesHead(doc);
    if (scope === "this") {
      const trashed = await this.trashMember(doc);
      const own = [...new Set([...(doc.series_overrides ?? []), "status"])];
      const set: Record<string, unknown> = { series_overrides: own };
      if (isFirst(doc) && !(doc.series_overrides ?? []).includes("status")) set.series_shared = { ...groupValues(doc, ["status"]), ...(doc.series_shared ?? {}) };
      await this.records.store.updateOne({ _id: doc._id }, { $set: set });
      await this.horizon.materialise(await this.reviseSeries(head._id, h => ({ series_lines: linesOf(withExdate(recurrenceOf(h), doc.series_identity!), templateOf(h)) })));
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
      await this.horizon.materialise(await this.reviseSeries(head._id, h => ({ series_lines: linesOf(splitRecurrence(seriesOf(h), at)?.before ?? split.before, templateOf(h)) })));
    }
    return answer;
  }

}
