/**
 * A TEC-type source's custom fields kept by an import (C69: custom fields everywhere their record goes; docs/imports.md#the-events-calendar): The
 * Events Calendar Pro answers an event's additional fields as `custom_fields` `{label: display text}`
 * (this service answers the same shape beside its typed `meta`), so each label becomes a text field of
 * the site's events named by that label, and the display text its value. A field of the site whose label
 * already says that label (in any language) and that holds text is taken as it is; otherwise a new key is
 * made from the label. Pure: the definitions are read and made by the run (domain/imports/import-run.ts).
 */
import { KEY_PATTERN, LABEL_MAX, type Label } from "../fields/definition";
import { TEXT_MAX } from "../fields/values";
import { longerThan } from "../text/text-input";

type Rec = Record<string, unknown>;

/** One value of a source record's `custom_fields`. */
export interface SourceFieldText { label: string; text: string }

/** A definition as the run sees it (the site's, or one it is about to make). */
export interface TextFieldDef { key: string; label: Label; type: string }

/** The definitions to make and the key each label is written under. */
interface TextFieldPlan { keys: Map<string, string>; create: Array<{ key: string; label: string; type: "text" | "textarea" }> }

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#039": "'", "#39": "'" };
/** The label as entered: the plugin answers it through esc_html. */
const unescaped = (s: string): string => s.replace(/&(amp|lt|gt|quot|#0?39);/g, (_, name: string) => ENTITIES[name]);

/** The source record's custom field values: text by label (labels blank or too long, and values not text, left out). */
export function sourceFieldTexts(r: Rec): SourceFieldText[] {
  const given = r.custom_fields;
  if (!given || typeof given !== "object" || Array.isArray(given)) return [];
  const out: SourceFieldText[] = [];
  for (const [raw, value] of Object.entries(given as Rec)) {
    const label = unescaped(raw).trim();
    if (!label || longerThan(label, LABEL_MAX)) continue;
    const text = typeof value === "string" ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
    if (text !== undefined && text !== "") out.push({ label, text });
  }
  return out;
}

/** The texts of a label (one per language, or the one). */
const labelTexts = (label: Label): string[] => (typeof label === "string" ? [label] : Object.values(label));
const holdsText = (type: string) => type === "text" || type === "textarea";

/** A key made from a label: lower-case ASCII letters, digits and `_`, starting with a letter, at most 40. */
export function keyFromLabel(label: string): string {
  const base = label.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^[^a-z]+|_+$/g, "");
  return (base || "field").slice(0, 40).replace(/_+$/, "");
}

/**
 * Where each of `values`' labels is written among the site's event fields `defs`: the text field that has
 * that label, else a new field keyed from the label (`_2`, `_3`… when the key is another field's), a
 * `textarea` when one of its values is longer than a `text` field holds.
 */
export function planTextFields(defs: readonly TextFieldDef[], values: readonly SourceFieldText[]): TextFieldPlan {
  const keys = new Map<string, string>();
  const create: TextFieldPlan["create"] = [];
  const taken = new Set(defs.map(d => d.key));
  for (const { label } of values) {
    if (keys.has(label)) continue;
    const found = defs.find(d => holdsText(d.type) && labelTexts(d.label).includes(label));
    if (found) {
      keys.set(label, found.key);
      continue;
    }
    const base = keyFromLabel(label);
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base.slice(0, 40 - String(n).length - 1)}_${n}`;
    if (!KEY_PATTERN.test(key)) continue;
    taken.add(key);
    keys.set(label, key);
    const long = values.some(v => v.label === label && longerThan(v.text, TEXT_MAX));
    create.push({ key, label, type: long ? "textarea" : "text" });
  }
  return { keys, create };
}

/** The `meta` of a write carrying the record's values under their keys (undefined when it has none). */
export function metaOfTexts(values: readonly SourceFieldText[], keys: ReadonlyMap<string, string>): Rec | undefined {
  const meta: Rec = {};
  for (const v of values) {
    const key = keys.get(v.label);
    if (key) meta[key] = v.text;
  }
  return Object.keys(meta).length ? meta : undefined;
}
