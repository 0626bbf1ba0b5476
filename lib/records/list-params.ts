/**
 * A list's parameters declared once: each with its rule and its place among the parameters the list's
 * links carry (D10: list links carry what the caller sent). The params schema takes the rules in the
 * table's order (the order /doc documents them and a 400 reports them); the links take the carried
 * parameters in the order of their places, which is the order they were added in: a new parameter takes
 * the next place, so the links of the pages a caller already holds keep their order.
 */
import type { Rule } from "../http/params";

export interface ListParam {
  rule: Rule;
  /** Its place in the list's links, counted from 1; absent: the links never carry it (it changes what the caller may read, not which page it is). */
  link?: number;
}

/** A group of parameters whose rules come from one place (`nearRules()`, `modifiedRules()`), carried in the links at consecutive places from `first`, in the group's own order. */
export function carriedFrom(rules: Readonly<Record<string, Rule>>, first: number): Record<string, ListParam> {
  return Object.fromEntries(Object.entries(rules).map(([name, rule], i) => [name, { rule, link: first + i }]));
}

/** The rule of each parameter, in the table's order. */
export function listRules(table: Readonly<Record<string, ListParam>>): Record<string, Rule> {
  return Object.fromEntries(Object.entries(table).map(([name, p]) => [name, p.rule]));
}

/** The parameters the links carry, in the order of their places. */
export function linkOrder(table: Readonly<Record<string, ListParam>>): string[] {
  return Object.entries(table)
    .flatMap(([name, p]) => (p.link === undefined ? [] : [[name, p.link] as const]))
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}
