/**
 * The horizon of recurring events (C55): a series' occurrences are stored as event rows through the
 * horizon, planned again when the rule or the first start changes (surviving ids kept,
 * lib/recurrence/plan.ts), and moved forward by the events service's scheduled job and before writes.
 *
 * Correctness across nodes comes from the store: each occurrence's `series_key` is unique by constraint
 * (two nodes materialising the same occurrence store it once; the loser's id is simply not used), every
 * row is changed by one atomic update, a removed row is counted (term counts, feed) only by the writer whose
 * delete removed it, a series is planned by whoever holds its claim, and the scheduled job runs under the
 * store-wide lock.
 */
import type { ChangeInput } from "../../lib/changes/feed";
import { isUniqueViolation } from "../../store/errors";
import { ApiError } from "../../lib/errors";
import type { EventDoc } from "../../lib/events/event-doc";
import { expandSeries } from "../../lib/recurrence/expand";
import { planOccurrences } from "../../lib/recurrence/plan";
import { MAX_OCCURRENCES } from "../../lib/recurrence/rule";
import { settings } from "../../lib/settings";
import { boundedEach } from "../../lib/async/bounded-each";
import { previousStartFields } from "../../lib/events/event-status";
import { FLOATING_STATUSES } from "../../lib/posts/publication";
import {
  heldClaim, isFirst, occurrenceRow, recurrenceOf, scheduleOf, SeriesDoc, seriesKey, seriesOf, templateOf, unclaimed, WHOLE_SERIES
} from "../../lib/events/series";
import { REVISE_ATTEMPTS, type SeriesRows } from "./series-rows";
import type { SeriesFeed } from "./event-ports";
import type { TermCountNotices } from "./term-count-notices";

/** The store-wide lock of the horizon job (PostgreSQL advisory lock key; SQLite's write lock is per transaction). */
export const SERIES_JOB_LOCK = 72_410_020;
/**
 * How long a call of the horizon job (`events.materialise`) may take: a batch over every series of a site,
 * waiting its turn for the job's lock, not a request answered within the request timeout (10 s).
 */
export const SERIES_JOB_TIMEOUT_MS = 120_000;
/**
 * Occurrences a materialisation writes at once (lib/async/bounded-each.ts): each is its own statements (an id,
 * its slug, the row with its feed entry), independent of the others'. On PostgreSQL they overlap on the
 * pool's connections (10; some stay for other requests); on SQLite they share group commits. A daily
 * series' 729 occurrences, created through the API on PostgreSQL: 2.4–2.6 s one after another, 0.8–1.2 s
 * four at once with their ids drawn in one statement (docs/recurrence.md#the-horizon).
 */
const OCCURRENCE_WRITES_AT_ONCE = 4;

export interface MaterialiseOptions {
  /** The series' first start moved (the identities of C53 (occurrence identity, exceptions and scope) move with it). */
  move?: { from: string; to: string };
  /** Materialise through this UTC instant (default: the horizon now). */
  horizon?: string;
}

export interface SeriesHorizonDeps {
  rows: SeriesRows;
  feed: SeriesFeed;
  /** What follows writes that moved term counts (domain/events/term-count-notices.ts). */
  counts: TermCountNotices;
  logger: { warn(msg: string): void };
}

export class SeriesHorizon {
  private readonly rows: SeriesRows;
  /** The horizon the last on-demand run left every series at (this process's). */
  private horizonDone?: string;

  constructor(private readonly deps: SeriesHorizonDeps) {
    this.rows = deps.rows;
  }

  /**
   * Plans a series' stored occurrences against its expansion through the horizon (C53: occurrence identity, exceptions and scope; C55): kept ids
   * get their new identity and times (unless an exception set its own), new occurrences are stored with
   * ids from the post sequence, the others are removed. Trashed occurrences stay as they are (an
   * exclusion's trashed occurrence, C53: occurrence identity, exceptions and scope). Counts and the change feed follow every row changed. The
   * series' lines are read from the store; when they change while this runs (another node), it runs
   * again on the new ones, unless that change's writer now holds the series' claim: it plans them itself.
   * The claim `headIn` holds is this run's (the change or the job's claim that made it).
   */
  async materialise(headIn: SeriesDoc, o: MaterialiseOptions = {}): Promise<SeriesDoc> {
    let head = headIn;
    for (let attempt = 1; attempt <= REVISE_ATTEMPTS; attempt++) {
      const done = await this.materialiseOnce(head, attempt === 1 ? o : { horizon: o.horizon });
      if (done) return done;
      const fresh = await this.rows.records.findById(head._id);
      if (!fresh || !isFirst(fresh)) return head;
      const claim = heldClaim(fresh, this.rows.records.now());
      if (claim !== undefined && claim !== headIn.series_claim) return fresh;
      head = fresh;
    }
    throw new ApiError("rest_service_unavailable", 503);
  }

  async materialiseOnce(head: SeriesDoc, o: MaterialiseOptions = {}): Promise<SeriesDoc | null> {
    const recurrence = recurrenceOf(head);
    const template = templateOf(head);
    const series = seriesOf(head, recurrence);
    const horizon = o.horizon ?? this.rows.seriesHorizon();
    const nextAll = expandSeries(series, horizon);
    if (nextAll.length > MAX_OCCURRENCES + 1) throw ApiError.invalidParam("recurrence", "param.invalid", { reason: "too_many_occurrences" });
    const next = nextAll.filter(x => x.identity !== series.start);
    const stored = await this.rows.records.store.find({ series_id: head._id });
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
    const now = this.rows.nowDb();

    // Identities (and dates in slugs) may move onto one another (every occurrence a day later): the moving
    // rows first give up their keys and slugs, then take the new ones, so no constraint sees two at once.
    const moving = plan.keep.filter(k => k.changed);
    await boundedEach(moving, OCCURRENCE_WRITES_AT_ONCE, async k => {
      const before = byId.get(k.id)!;
      const slugMoves = !(before.series_overrides ?? []).includes("slug") && before.series_identity!.slice(0, 10) !== k.occurrence.identity.slice(0, 10);
      await this.rows.records.store.updateOne({ _id: k.id }, { $set: { series_key: `${seriesKey(head._id, before.series_identity!)}~${k.id}`, ...(slugMoves && !FLOATING_STATUSES.has(before.status) ? { slug: "" } : {}) } });
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
        set.slug = await this.rows.occurrenceSlugFor({ ...template, status: before.status }, k.occurrence.identity, k.id);
      }
      await this.rows.records.retryOnSlugConflict(async () => {
        try {
          return await this.rows.updateRecorded({ _id: k.id }, { $set: set });
        } catch (err) {
          if (isUniqueViolation(err) && /slug/.test((err as Error).message) && typeof set.slug === "string") {
            set.slug = await this.rows.occurrenceSlugFor({ ...template, status: before.status }, k.occurrence.identity, k.id);
          }
          throw err;
        }
      });
    });

    await boundedEach(plan.remove, OCCURRENCE_WRITES_AT_ONCE, async d => {
      const before = byId.get(d.id)!;
      // only the writer whose delete removed the row counts it
      if ((await this.rows.records.store.removeMany({ _id: d.id })) !== 1) return;
      pairs.push([before, null]);
      changes.push({ type: "event", id: d.id, action: "deleted", modified_utc: now, snapshot: null });
    });

    // ids drawn first, in one statement and in the occurrences' order (a series' ids ascend with its dates), the rows then written at once
    const ids = await this.rows.records.allocateIds(plan.create.length);
    await boundedEach(plan.create, OCCURRENCE_WRITES_AT_ONCE, async (occ, i) => {
      const id = ids[i];
      const created = await this.rows.records.retryOnSlugConflict(async () => {
        const slug = await this.rows.occurrenceSlugFor(template, occ.identity, id);
        try {
          return await this.rows.insertRecorded(occurrenceRow(template, occ, id, slug, now));
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
    return (await this.rows.records.store.updateOne({ _id: head._id, series_version: head.series_version ?? 0 }, {
      $set: { series_horizon: whole ? WHOLE_SERIES : horizon }, $unset: { series_claim: 1 }
    }));
  }

  /** Moves the horizon of every series that is behind it (C55); answers how many series moved. */
  async extendHorizons(now?: Date, always = false): Promise<number> {
    const at = now ?? this.rows.records.now();
    const horizon = this.rows.seriesHorizon(at);
    // On demand (before a write), only the series behind what today's default window needs wait: a horizon
    // one day old still covers it (the extra day of C55: horizon and ICS), and the job moves the others. The job looks at all
    // (a start another node left unfinished too).
    const needed = always ? horizon : this.rows.seriesHorizon(new Date(at.getTime() - 86_400_000));
    if (!always && this.horizonDone !== undefined && this.horizonDone >= needed) return 0;
    const behind = await this.rows.records.store.find({ series_horizon: { $lt: needed } });
    let moved = 0;
    for (const found of behind) {
      if (!isFirst(found)) continue;
      // a series being started or changed is its writer's to plan (docs/recurrence.md#many-nodes), and
      // one another node's job or list claimed is left to it: each series planned by one at a time
      // (and still behind: one another node planned meanwhile is not planned again)
      const head = (await this.rows.records.store.updateOne({ _id: found._id, series_version: found.series_version ?? 0, series_horizon: { $lt: needed }, $and: [unclaimed(this.rows.records.now())] },
        { $set: { series_claim: this.rows.newSeriesClaim() } }));
      if (!head) continue;
      try {
        // a series trashed whole (its first event trashed, not as an exclusion) gets no new occurrences
        // until it is restored (updateAll plans it again then)
        if (head.status === "trash" && !recurrenceOf(head).exdates.includes(head.series_identity!)) {
          await this.rows.records.store.updateOne({ _id: head._id }, { $set: { series_horizon: horizon }, $unset: { series_claim: 1 } });
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

}
