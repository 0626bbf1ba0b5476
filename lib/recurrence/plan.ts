/**
 * What a change to a series does to its stored occurrences (C53: occurrence identity, exceptions and scope), and the recurrence edits of the scopes:
 * splitting a series for `scope=following`, and the EXDATE a `scope=this` delete adds (and a restore
 * removes). Pure: the caller reads and writes the store.
 *
 * Identity (C53: occurrence identity, exceptions and scope): an occurrence is its original local start. A rule or time change keeps the id of each
 * stored occurrence whose identity survives. When the series' start moves, identities move with it, so
 * stored occurrences are matched to the new expansion in three passes, each over what is still unmatched:
 *   1. the same identity;
 *   2. the identity moved by the series' own move (old first start → new first start, wall clock), when
 *      the caller gives it: "every occurrence one hour later" or "every occurrence a day later";
 *   3. the same local date, in time order within the day: a change of time on the same days.
 * What is left over is removed (stored) or created (new).
 */
import { ApiError } from "../errors";
import { ruleWalls } from "./expand";
import { wallFromMs, wallMs } from "./lines";
import { Occurrence, Recurrence, RuleParts, Series, SeriesContext } from "./types";

export interface StoredOccurrence<Id> {
  id: Id;
  /** Its identity (original local start) as stored. */
  identity: string;
  /** Its local start and end as stored, when the caller wants `changed` to compare times too. */
  start?: string;
  end?: string;
}

export interface KeptOccurrence<Id> {
  id: Id;
  /** The identity it had. */
  previous: string;
  /** Its occurrence in the new expansion (identity and times to store). */
  occurrence: Occurrence;
  /** Whether its identity or (when the stored times were given) its start or end changes. */
  changed: boolean;
}

export interface OccurrencePlan<Id> {
  create: Occurrence[];
  keep: KeptOccurrence<Id>[];
  remove: StoredOccurrence<Id>[];
}

export interface PlanOptions {
  /** The series' first start before and after the change, when it moved. */
  move?: { from: string; to: string };
}

/** Shifts a wall clock by the wall-clock distance from `from` to `to`. */
function shifted(wall: string, from: string, to: string): string {
  return wallFromMs(wallMs(wall) + wallMs(to) - wallMs(from));
}

/**
 * Matches stored occurrences (identity → id) to a new expansion. Every stored one is kept or removed,
 * every new one is kept (matched) or created. `keep` is in the new expansion's order.
 */
export function planOccurrences<Id>(
  stored: readonly StoredOccurrence<Id>[], next: readonly Occurrence[], opts: PlanOptions = {},
): OccurrencePlan<Id> {
  const unmatchedNew = new Map<string, Occurrence>(next.map(o => [o.identity, o]));
  const unmatchedStored = [...stored].sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
  const kept = new Map<string, KeptOccurrence<Id>>();
  const pass = (target: (s: StoredOccurrence<Id>) => string | undefined) => {
    for (let i = 0; i < unmatchedStored.length;) {
      const s = unmatchedStored[i];
      const key = target(s);
      const o = key === undefined ? undefined : unmatchedNew.get(key);
      if (o) {
        const changed = s.identity !== o.identity || (s.start !== undefined && s.start !== o.start) || (s.end !== undefined && s.end !== o.end);
        kept.set(o.identity, { id: s.id, previous: s.identity, occurrence: o, changed });
        unmatchedNew.delete(o.identity);
        unmatchedStored.splice(i, 1);
      } else {
        i++;
      }
    }
  };
  pass(s => s.identity);
  const move = opts.move;
  if (move && move.from !== move.to) pass(s => shifted(s.identity, move.from, move.to));
  // Same local date: the k-th unmatched new occurrence of a day takes the k-th unmatched stored one.
  const byDay = new Map<string, Occurrence[]>();
  for (const o of unmatchedNew.values()) {
    const day = o.identity.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), o]);
  }
  for (const list of byDay.values()) list.sort((a, b) => (a.identity < b.identity ? -1 : 1));
  pass(s => byDay.get(s.identity.slice(0, 10))?.shift()?.identity);

  return {
    create: next.filter(o => unmatchedNew.has(o.identity)),
    keep: next.flatMap(o => kept.get(o.identity) ?? []),
    remove: unmatchedStored,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Scope edits
// ---------------------------------------------------------------------------------------------------------

/** The recurrence with `identity` excluded (a `scope=this` delete, C53: occurrence identity, exceptions and scope). */
export function withExdate(recurrence: Recurrence, identity: string): Recurrence {
  return { ...recurrence, exdates: [...new Set([...recurrence.exdates, identity])].sort() };
}

/** The recurrence without that exclusion (the trashed occurrence restored, C53: occurrence identity, exceptions and scope). */
export function withoutExdate(recurrence: Recurrence, identity: string): Recurrence {
  return { ...recurrence, exdates: recurrence.exdates.filter(d => d !== identity) };
}

/**
 * The recurrence of a series whose first start moved from `from` to `to`: its RDATEs and EXDATEs move
 * by the same wall-clock distance, so they still name the same occurrences (pass 2 of the plan).
 */
export function moveDates(recurrence: Recurrence, from: string, to: string): Recurrence {
  if (from === to) return recurrence;
  const move = (walls: readonly string[]) => walls.map(w => shifted(w, from, to)).sort();
  return { ...recurrence, rdates: move(recurrence.rdates), exdates: move(recurrence.exdates) };
}

/**
 * The recurrence of a series whose first start, zone or all-day flag changed (an update with scope
 * `all`): RDATEs and EXDATEs move with the start (moveDates); UNTIL keeps its last day when the series
 * becomes all-day or stops being it. Wall clocks stay wall clocks in a new zone (the lines are then
 * written with the new TZID by formatRecurrence).
 */
export function reanchor(recurrence: Recurrence, from: SeriesContext, to: SeriesContext): Recurrence {
  const moved = moveDates(recurrence, from.start, to.start);
  const until = recurrence.rule?.until;
  if (!recurrence.rule || until === undefined || from.allDay === to.allDay) return moved;
  const day = until.slice(0, 10);
  return { ...moved, rule: { ...recurrence.rule, until: to.allDay ? `${day} 00:00:00` : `${day} 23:59:59` } };
}

export interface Split {
  /** The old series' recurrence, ending before `at` (it may be left without rule or RDATE: one event). */
  before: Recurrence;
  /** The new series' recurrence, starting at `at` (which becomes its first start). */
  after: Recurrence;
}

/** The wall clock one step before `at`: a second for timed series, a day for all-day ones. */
function justBefore(at: string, allDay: boolean): string {
  return wallFromMs(wallMs(at) - (allDay ? 86_400_000 : 1000));
}

/**
 * Splits a series at the occurrence `at` (an identity after the first start) for `scope=following`. The
 * old rule ends just before it (UNTIL, its COUNT dropped); the new one runs from it with the same parts,
 * its COUNT reduced by the rule's occurrences before `at` (C53: `following` on the first occurrence is
 * `all`, so null is returned for `at` at or before the first start). RDATEs and EXDATEs go to the side
 * their date falls on; `at` itself is the new series' first start, so it is no RDATE there.
 * A rule takes its phase, weekday and time of day from its start, so when `at` is an added date (RDATE)
 * that the rule does not give and the rule goes on after it, no rule starting at `at` gives the same
 * occurrences: that split is refused with a 400 naming `scope` (reason `following_on_added_date`).
 */
export function splitRecurrence(series: Series, at: string): Split | null {
  if (at <= series.start) return null;
  const { rule, rdates, exdates } = series.recurrence;
  let beforeRule: RuleParts | null = null;
  let afterRule: RuleParts | null = null;
  if (rule) {
    const { count: _count, ...rest } = rule;
    const until = justBefore(at, series.allDay);
    beforeRule = { ...rest, until: rule.until !== undefined && rule.until < until ? rule.until : until };
    if (rule.count !== undefined) {
      // COUNT counts what the rule gives (lib/recurrence/expand.ts); the new rule gets what is left.
      const left = rule.count - ruleWalls(rule, series.start, w => w < at).length;
      afterRule = left > 0 ? { ...rule, count: left } : null;
    } else {
      afterRule = rule.until !== undefined && rule.until < at ? null : { ...rule };
    }
    if (afterRule) {
      const upTo = ruleWalls(rule, series.start, w => w <= at);
      const givesAt = upTo[upTo.length - 1] === at;
      const goesOn = ruleWalls(rule, series.start, () => true, upTo.length + 1).length > upTo.length;
      if (!givesAt && goesOn) throw ApiError.invalidParam("scope", "param.invalid", { reason: "following_on_added_date" });
    }
  }
  return {
    before: { rule: beforeRule, rdates: rdates.filter(d => d < at), exdates: exdates.filter(d => d < at) },
    after: { rule: afterRule, rdates: rdates.filter(d => d > at), exdates: exdates.filter(d => d > at) },
  };
}
