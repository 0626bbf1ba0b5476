/**
 * How a read filtered by link memberships is planned (store/sql/compile.ts): membership of integers in a
 * link field (`{venues: 5}`, `{categories: {$in: [2, 3]}}`) is read from the link table (store/sql/schema.ts
 * LINK_FIELDS), and a list filtered by several reads only the records linked to all: on SQLite the records
 * holding two of them (store/sql/pair-members.ts), the others probed; on PostgreSQL the driving
 * membership's links probed against the others or the intersection of whole sets, chosen in the statement
 * by the driving set's size (the measures: docs/lists.md#event-filters).
 */
import type { Dialect } from "./driver";
import type { Query } from "../../lib/documents/store-query";
import { and, idsIn, isPlain, sqliteList, type Compiled } from "./compiled";
import { pairHeld } from "./link-pairs";
import { PAIR_MEMBERS } from "./pair-members";

/**
 * The table's link fields (store/sql/schema.ts LINK_FIELDS): membership of integers in them is read from
 * the link table, for `site`; `type` is the record table's name. The fields in LINK_FIELDS' order:
 * the filter of the first one asked drives a list filtered by several (`linkedProbed`, `linkedChosen`).
 */
export interface LinkShape {
  table: string;
  type: string;
  fields: ReadonlySet<string>;
  site: number;
  /** Whether the store keeps the table's link pairs (store/sql/link-pairs.ts): a read of several memberships asks them first. */
  pairs?: boolean;
}

/** PostgreSQL: the most links of the driving membership read by probing the others (`linkedChosen`). */
const PROBED_DRIVING_MAX = 500;

/** A membership test of one link field: its integer targets. */
export interface LinkMembership {
  field: string;
  ids: number[];
}

/**
 * The integer targets of `q` when it is only a membership test of one link field (`{venues: 5}`,
 * `{venues: {$in: [5, 6]}}`): what the link table answers alone.
 */
export function linkMembership(q: Query, links: LinkShape | undefined): LinkMembership | undefined {
  const keys = Object.keys(q ?? {}).filter(k => q[k] !== undefined);
  if (keys.length !== 1 || !links?.fields.has(keys[0])) return undefined;
  const v = q[keys[0]];
  const ids = Number.isSafeInteger(v) ? [v as number]
    : isPlain(v) && Object.keys(v).length === 1 && Array.isArray(v.$in) && v.$in.length > 0 && v.$in.every(x => Number.isSafeInteger(x)) ? (v.$in as number[])
    : undefined;
  return ids && { field: keys[0], ids };
}

export class LinkPlans {
  constructor(private readonly dialect: Dialect, private readonly links: LinkShape) {}

  /** The records linked to every one of these memberships (two or more), read from the link tables alone. */
  among(memberships: readonly LinkMembership[]): Compiled {
    const members = this.pairMembers(memberships);
    if (members) return this.dialect === "sqlite" ? { sql: `id IN (${members.sql})`, params: members.params } : { sql: `id = ANY(ARRAY(${members.sql}))`, params: members.params };
    return this.dialect === "sqlite" ? this.linkedProbed(memberships) : this.linkedChosen(memberships);
  }

  /**
   * Where the pairs are kept and two of the memberships are of different fields: the ids of the records
   * holding an element of each (store/sql/pair-members.ts; the first membership in LINK_FIELDS' order and
   * the first other of another field), one range of that table's key, each tested for the other
   * memberships as `probedIds` tests them. Undefined otherwise.
   */
  private pairMembers(memberships: readonly LinkMembership[]): Compiled | undefined {
    if (!this.links.pairs) return undefined;
    const [drive, ...others] = this.drivingFirst(memberships);
    const partner = others.find(m => m.field !== drive.field);
    if (!partner) return undefined;
    const [a, b] = drive.field < partner.field ? [drive, partner] : [partner, drive];
    const as = idsIn(this.dialect, "d.a_target", a.ids);
    const bs = idsIn(this.dialect, "d.b_target", b.ids);
    const checks = others.filter(m => m !== partner).map(m => this.linkRows("p.", m));
    return {
      sql: `SELECT d.id FROM ${PAIR_MEMBERS} d WHERE d.site = ? AND d.type = '${this.links.type}' AND d.a_field = '${a.field}' AND ${as.sql} ` +
        `AND d.b_field = '${b.field}' AND ${bs.sql}${checks.map(c => ` AND ${this.probe(c.sql)}`).join("")}`,
      params: [this.links.site, ...as.params, ...bs.params, ...checks.flatMap(c => c.params)]
    };
  }

  /**
   * Whether the link table holds a row `rows` selects (a condition on `p`) for the record `d.id`: a key
   * lookup. PostgreSQL plans an `EXISTS` as a hash semi-join, which reads the probed set whole, so its probe
   * is a subquery with LIMIT.
   */
  private probe(rows: string): string {
    const table = this.links.table;
    return this.dialect === "sqlite" ? `EXISTS (SELECT 1 FROM ${table} p WHERE ${rows} AND p.id = d.id)` : `(SELECT 1 FROM ${table} p WHERE ${rows} AND p.id = d.id LIMIT 1) IS NOT NULL`;
  }

  /** The ids of the records whose link field holds one of `ids` (a SELECT of the link table's key). */
  linkedIds(field: string, ids: readonly number[]): Compiled {
    const rows = this.linkRows("", { field, ids: [...ids] });
    return { sql: `SELECT id FROM ${this.links.table} WHERE ${rows.sql}`, params: rows.params };
  }

  /** The condition on the link table's rows of one membership, its columns prefixed with `alias`. */
  private linkRows(alias: string, m: LinkMembership): Compiled {
    const links = this.links;
    const on = `${alias}site = ? AND ${alias}type = '${links.type}' AND ${alias}field = '${m.field}'`;
    const targets = idsIn(this.dialect, `${alias}target`, m.ids);
    return { sql: `${on} AND ${targets.sql}`, params: [links.site, ...targets.params] };
  }

  /**
   * The record's id is in every one of these id sets. PostgreSQL: as one array, read through the link
   * table's key before the records are (a plan that holds without the planner's statistics too); SQLite
   * chooses with its statistics.
   */
  idAmong(sets: Compiled[]): Compiled {
    const inner = sets.map(x => x.sql).join(" INTERSECT ");
    const params = sets.flatMap(x => x.params);
    return this.dialect === "sqlite" ? { sql: `id IN (${inner})`, params } : { sql: `id = ANY(ARRAY(${inner}))`, params };
  }

  /**
   * SQLite: the links of one membership, each kept when every other membership holds its record too (a
   * key lookup per link and membership). The membership of the field declared first in LINK_FIELDS drives
   * (store/sql/schema.ts: venues, organizers, then terms; a venue's events are fewer than a category's), since
   * an intersection read both sets whole: a category's links and a venue's took several times as long as the
   * venue's links probed (the measures: docs/lists.md#event-filters).
   */
  private linkedProbed(memberships: readonly LinkMembership[]): Compiled {
    const probed = this.probedIds(memberships);
    return { sql: `id IN (${probed.sql})`, params: probed.params };
  }

  /**
   * The ids of the links of the driving membership (the first in LINK_FIELDS' order) that every other
   * membership holds too, each tested by a key lookup (`probe`).
   */
  private probedIds(memberships: readonly LinkMembership[]): Compiled {
    const [drive, ...others] = this.drivingFirst(memberships);
    const driving = this.dialect === "sqlite" && this.links.pairs ? this.pairedRows("d.", drive, others) : this.linkRows("d.", drive);
    const checks = others.map(m => this.linkRows("p.", m));
    return {
      sql: `SELECT d.id FROM ${this.links.table} d WHERE ${driving.sql}${checks.map(c => ` AND ${this.probe(c.sql)}`).join("")}`,
      params: [...driving.params, ...checks.flatMap(c => c.params)]
    };
  }

  /**
   * SQLite: the rows of the driving membership, its targets only those that every other membership may
   * share a record with (store/sql/link-pairs.ts): the targets are read first, once, so a category and a
   * venue that share no event read none of their links.
   */
  private pairedRows(alias: string, drive: LinkMembership, others: readonly LinkMembership[]): Compiled {
    const links = this.links;
    const gates = others.map(m => {
      const held = pairHeld("sqlite", links.site, links.type, { field: drive.field, column: "t.target" }, m);
      if (m.field !== drive.field) return held;
      const same = sqliteList(m.ids);
      return { sql: `(t.target IN ${same.sql} OR ${held.sql})`, params: [...same.params, ...held.params] };
    });
    const gate = and(gates);
    const kept = `SELECT t.target FROM (SELECT value AS target FROM json_each(?)) AS t WHERE ${gate.sql}`;
    return {
      sql: `${alias}site = ? AND ${alias}type = '${links.type}' AND ${alias}field = '${drive.field}' AND ${alias}target IN (${kept})`,
      params: [links.site, JSON.stringify(drive.ids), ...gate.params]
    };
  }

  /**
   * PostgreSQL: whether every other membership may share a record with the driving one (store/sql/link-pairs.ts);
   * undefined when the pairs are not kept, or one shares a target with it (a record holding that target holds both).
   */
  private pairsHeld(drive: LinkMembership, others: readonly LinkMembership[]): Compiled | undefined {
    const links = this.links;
    if (!links.pairs) return undefined;
    const gates = others.filter(m => m.field !== drive.field || !m.ids.some(id => drive.ids.includes(id)))
      .map(m => pairHeld("postgres", links.site, links.type, drive, m));
    return gates.length ? and(gates) : undefined;
  }

  /** The memberships in LINK_FIELDS' order: the first drives a probed read. */
  private drivingFirst(memberships: readonly LinkMembership[]): LinkMembership[] {
    const rank = [...this.links.fields];
    return [...memberships].sort((a, b) => rank.indexOf(a.field) - rank.indexOf(b.field));
  }

  /**
   * PostgreSQL: the probed read of `linkedProbed` when the driving membership has at most
   * PROBED_DRIVING_MAX links, the intersection of whole sets otherwise, chosen in the statement itself
   * (its count reads at most that many index entries; only the chosen branch runs). PostgreSQL plans an
   * EXISTS as a hash semi-join, which reads the probed set whole, so each probe is a subquery with LIMIT,
   * run per driving link through the link table's key. At 100 000 events a venue's 100 links probed
   * against a category's 5 000 took 0.3 ms where the intersection took 2.0 ms (docs/lists.md#event-filters).
   * A probe costs a few µs where a link read into an intersection costs a fraction of one: a large
   * driving set is intersected.
   */
  private linkedChosen(memberships: readonly LinkMembership[]): Compiled {
    const [drive, ...others] = this.drivingFirst(memberships);
    const counted = this.linkedIds(drive.field, drive.ids);
    const size = `(SELECT count(*) FROM (${counted.sql} LIMIT ${PROBED_DRIVING_MAX + 1}) AS driving)`;
    const probed = this.probedIds(memberships);
    const sets = memberships.map(m => this.linkedIds(m.field, m.ids));
    // no pair held: no record, before any link is read (each branch's subqueries run only when it is taken)
    const held = this.pairsHeld(drive, others);
    const none = held ? `WHEN NOT (${held.sql}) THEN '{}'::bigint[] ` : "";
    return {
      sql: `id = ANY(CASE ${none}WHEN ${size} <= ${PROBED_DRIVING_MAX} THEN ARRAY(${probed.sql}) ELSE ARRAY(${sets.map(x => x.sql).join(" INTERSECT ")}) END)`,
      params: [...(held?.params ?? []), ...counted.params, ...probed.params, ...sets.flatMap(x => x.params)]
    };
  }
}
