/**
 * A record kind's fields declared once (in the spirit of @moleculer/database's `settings.fields`): one
 * entry per field says how it is written, stored, answered and documented. The params schemas, the /doc
 * record schema, the record's keys and their order, the password-protected keys, the translatable fields
 * and the staleness sets are read from the tables by the functions below; no other list names the fields
 * (test/unit/field-tables.test.ts compares every derived place with its table).
 */
import type { Rule } from "../http/params";
import type { JsonSchema } from "./schema-parts";

/** The request contexts an answer field appears in. */
export type AnswerContext = "view" | "edit";

/** A record kind whose change a field shows (an embedded record): its writes make this record's pages stale. */
export type LinkedKind = "venue" | "organizer" | "term";

export interface AnswerPart<S> {
  /** The field's /doc schema. */
  schema: JsonSchema;
  /**
   * Its value in the answer, from what the record's shaper gathered (`S`). Absent: another step adds the
   * field, named in `addedBy` (JSON-LD, a series' lines, the language keys, a geolocation search…).
   */
  shape?: (s: S) => unknown;
  addedBy?: string;
  /** The contexts it answers in (both when absent). */
  contexts?: readonly AnswerContext[];
  /** Password protection: the value a caller who may not read the record gets instead. */
  blank?: unknown;
  /** Keys inside the field's value blanked the same way (a value that nests protected data). */
  blankInside?: Readonly<Record<string, unknown>>;
  /** The linked record it embeds, whose change the answer shows. */
  embeds?: LinkedKind;
}

export interface FieldEntry<S> {
  /** How it is answered; absent: never answered (written or stored only). */
  answer?: AnswerPart<S>;
  /** Its write rule (fastest-validator, `required` on a create where the field is required); absent: read-only. */
  write?: (required: boolean) => Rule;
  /** Its values are kept per language. */
  translatable?: true;
  /**
   * Stored under its name, and what a change of the stored value moves: `membership` (which records a
   * plain list page shows, their order or total) or `presentation` (only how the records it shows read).
   * Absent: not stored under its name (a stored field absent from the table counts as membership).
   */
  stored?: "membership" | "presentation";
  /**
   * The list parameter that filters by it: its name, its rule (the list's params schema takes it, in the
   * list's own parameter order) and whether a page filtered by it is a plain page (cache/staleness.ts).
   */
  listFilter?: { param: string; plain: boolean; rule: () => Rule };
  /** Written only by this variant of the kind (a category's `parent`: tags are flat); absent: by every variant. */
  writtenOnlyBy?: string;
  /** A list's `search` looks in it (venues and organizers: besides their name and description, docs/lists.md#venue-and-organizer-filters). */
  searched?: true;
  /**
   * How an import from another calendar (lib/imports/tec.ts) takes it from the source's record: `value` as
   * the source answers it (a string, a number or a boolean; an empty string too), `text` when the source
   * answers a non-empty string, `flag` read as a boolean (`true`, `"1"`, `0`…), `own` by a step of the
   * import's own (the source's ids mapped to ours, the cost as it was entered, a draft's unset dates left
   * out). Absent: an import never sets it.
   */
  imported?: ImportWay;
}

/** The ways an import takes a field from the source's record (`FieldEntry.imported`). */
export type ImportWay = "value" | "text" | "flag" | "own";

/** A record kind's table, in answer order, with the order its write parameters are documented and validated in. */
export interface FieldTable<S> {
  fields: Readonly<Record<string, FieldEntry<S>>>;
  /** Every written field once: the order of the params schema (/doc's request bodies, a 400's parameters). */
  writeOrder: readonly string[];
}

const entries = <S>(table: FieldTable<S>) => Object.entries(table.fields);

/** The params schema of a write: each written field's rule, in the write order. */
export function writeRules<S>(table: FieldTable<S>, required: boolean): Record<string, Rule> {
  const out: Record<string, Rule> = {};
  for (const name of table.writeOrder) {
    const write = table.fields[name]?.write;
    if (write) out[name] = write(required);
  }
  return out;
}

/** The /doc schema of each answered field, in answer order. */
export function answerSchemas<S>(table: FieldTable<S>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, entry] of entries(table)) if (entry.answer) out[name] = entry.answer.schema;
  return out;
}

/** The fields the record's shaper answers, in answer order, with how. */
export function shapedFields<S>(table: FieldTable<S>): ReadonlyArray<readonly [string, (s: S) => unknown]> {
  const out: Array<readonly [string, (s: S) => unknown]> = [];
  for (const [name, entry] of entries(table)) if (entry.answer?.shape) out.push([name, entry.answer.shape]);
  return out;
}

/** The record built by the shaped fields, in answer order. */
export function shapeRecord<S>(shaped: ReadonlyArray<readonly [string, (s: S) => unknown]>, s: S): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, shape] of shaped) out[name] = shape(s);
  return out;
}

/** The password-protected keys with their blank values, nested keys included (lib/posts/password.ts). */
export function protectedBlanks<S>(table: FieldTable<S>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, entry] of entries(table)) {
    if (!entry.answer) continue;
    if ("blank" in entry.answer) out[name] = entry.answer.blank;
    Object.assign(out, entry.answer.blankInside);
  }
  return out;
}

/** The translatable fields, in table order. */
export function translatableFields<S>(table: FieldTable<S>): string[] {
  return entries(table).filter(([, e]) => e.translatable).map(([name]) => name);
}

/** The stored fields whose change moves only presentation. */
export function presentationFields<S>(table: FieldTable<S>): string[] {
  return entries(table).filter(([, e]) => e.stored === "presentation").map(([name]) => name);
}

/** The list parameters that filter by a field and keep a page plain. */
export function plainFilterParams<S>(table: FieldTable<S>): string[] {
  return entries(table).flatMap(([, e]) => (e.listFilter?.plain ? [e.listFilter.param] : []));
}

/** The rule of each list parameter that filters by a field, by parameter. */
export function listFilterRules<S>(table: FieldTable<S>): Record<string, Rule> {
  return Object.fromEntries(entries(table).flatMap(([, e]) => (e.listFilter ? [[e.listFilter.param, e.listFilter.rule()]] : [])));
}

/** The linked kinds the record embeds. */
export function embeddedKinds<S>(table: FieldTable<S>): LinkedKind[] {
  return [...new Set(entries(table).flatMap(([, e]) => (e.answer?.embeds ? [e.answer.embeds] : [])))];
}

/** The fields that answer in the edit context alone. */
export function editOnlyFields<S>(table: FieldTable<S>): string[] {
  return entries(table).filter(([, e]) => e.answer?.contexts && !e.answer.contexts.includes("view")).map(([name]) => name);
}

/** The written fields only this variant of the kind writes, in write order. */
export function writtenOnlyBy<S>(table: FieldTable<S>, variant: string): string[] {
  return table.writeOrder.filter(name => table.fields[name]?.writtenOnlyBy === variant);
}

/** The fields a list's `search` looks in, in table order. */
export function searchedFields<S>(table: FieldTable<S>): string[] {
  return entries(table).filter(([, e]) => e.searched).map(([name]) => name);
}

/** The fields an import takes the given way (every way when absent), in table order. */
export function importedFields<S>(table: FieldTable<S>, way?: ImportWay): string[] {
  return entries(table).filter(([, e]) => e.imported && (way === undefined || e.imported === way)).map(([name]) => name);
}
