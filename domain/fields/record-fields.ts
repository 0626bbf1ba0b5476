/**
 * The custom fields of one record kind (events, venues or organizers; docs/records.md#custom-fields), as
 * the record services use them: a write's `meta` checked and turned into what the record stores (its
 * values by field id, the text `search` reads, its tokens as link targets), the answers' `meta`,
 * `custom_fields` and JSON-LD `additionalProperty`, a list's `meta[<key>]` filters, and the removal of a
 * deleted field's values. The definitions come from the service that owns them (the taxonomy service),
 * through `definitions`.
 */
import { ApiError, type ParamReason, throwIfInvalid } from "../../lib/errors";
import type { FieldDef, ObjectType } from "../../lib/fields/definition";
import { additionalProperties, customFieldsOf, mergeMeta, metaOf, storedFields, tokensOf } from "../../lib/fields/values";
import { readFieldFilters } from "../../lib/fields/filter";
import type { Collection, Query } from "../../store/collection";
import { CUSTOM_LINKS } from "../../store/sql/schema";
import type { FieldTokens } from "./field-tokens";

/** What a record stores of its custom fields (lib/fields/values.ts StoredFields, with its tokens). */
export interface FieldsDoc {
  _id: number;
  custom_values?: Record<string, unknown>;
  custom_text?: string;
  custom_links?: number[];
}

/** What a record answers of its custom fields. */
export interface FieldsView {
  meta: Record<string, unknown>;
  custom_fields: Record<string, string> | [];
  /** schema.org PropertyValues (the JSON-LD's `additionalProperty`). */
  additional: Array<Record<string, unknown>>;
}

export interface RecordFieldsDeps<C> {
  objectType: ObjectType;
  /**
   * The site's definitions of this object type, oldest first: `fresh` read from the store (writes, which
   * must never drop the value of a field another node has just made), else as kept in the cache (reads).
   */
  definitions(call: C, fresh: boolean): Promise<FieldDef[]>;
  tokens: FieldTokens;
  /** The language a call is answered in, and the site's default (labels fall back to it). */
  language(call: C): string;
  defaultLanguage(): string;
  /** The current site's records of this kind. */
  records(): Collection<FieldsDoc>;
}

/** Records cleaned per batch when a field is deleted. */
const DROP_BATCH = 200;

export class RecordFields<C> {
  /**
   * The fresh definitions read by a write, kept for that call alone: its check and its write read them
   * once (one more round trip per write otherwise; a definition made between the two is a race either way).
   */
  private readonly freshOfCall = new WeakMap<object, Promise<FieldDef[]>>();

  constructor(private readonly deps: RecordFieldsDeps<C>) {}

  private fresh(call: C): Promise<FieldDef[]> {
    if (typeof call !== "object" || call === null) return this.deps.definitions(call, true);
    let defs = this.freshOfCall.get(call);
    if (!defs) {
      defs = this.deps.definitions(call, true);
      this.freshOfCall.set(call, defs);
      defs.catch(() => this.freshOfCall.delete(call as object));
    }
    return defs;
  }

  /** The reasons a write's `meta` is refused (empty when it is not): for a write's one 400 before any permission check. */
  async check(call: C, input: unknown, current?: FieldsDoc): Promise<Record<string, ParamReason>> {
    if (current && (input === undefined || input === null)) return {};
    return mergeMeta(await this.fresh(call), input, current?.custom_values).bad;
  }

  /**
   * The stored fields a write sets (undefined: nothing to change): `meta` merged over the record's values
   * (`current` undefined for a create, which must give every required field).
   */
  async written(call: C, input: unknown, current?: FieldsDoc): Promise<Record<string, unknown> | undefined> {
    if (current && (input === undefined || input === null)) return undefined;
    const defs = await this.fresh(call);
    if (!current && input === undefined && !defs.some(d => d.required)) return undefined;
    const { values, bad } = mergeMeta(defs, input, current?.custom_values);
    throwIfInvalid(bad);
    const stored = storedFields(defs, values!);
    const tokens = tokensOf(defs, values!);
    const ids = await this.deps.tokens.ensure(tokens.map(token => ({ token, field: Number.parseInt(token, 10) })));
    return { ...stored, [CUSTOM_LINKS]: [...new Set(tokens.map(t => ids.get(t)!))].sort((a, b) => a - b) };
  }

  /** What each record of a page answers of its fields (the definitions read once per page; `fresh`: from the store, not a kept copy). */
  async views(call: C, fresh = false): Promise<(doc: FieldsDoc) => FieldsView> {
    const defs = await this.deps.definitions(call, fresh);
    const language = this.deps.language(call);
    const fallback = this.deps.defaultLanguage();
    return doc => ({
      meta: metaOf(defs, doc.custom_values),
      custom_fields: customFieldsOf(defs, doc.custom_values, language, fallback),
      additional: additionalProperties(defs, doc.custom_values, language, fallback)
    });
  }

  /** A list's `meta[<key>]=<value>` filters as store conditions (each read through the link table), or a 400 naming `meta`. */
  async filters(call: C, param: unknown): Promise<Query[] | undefined> {
    if (param === undefined || param === null) return undefined;
    const { filters, reason } = readFieldFilters(await this.deps.definitions(call, false), param);
    if (reason) throw ApiError.invalidParams({ meta: reason });
    if (!filters!.length) return undefined;
    const ids = await this.deps.tokens.find(filters!.flatMap(f => f.tokens));
    return filters!.map(f => ({ [CUSTOM_LINKS]: { $in: f.tokens.map(t => ids.get(t)).filter((id): id is number => id !== undefined) } }));
  }

  /**
   * A deleted field's values removed from every record of this kind holding one (found through the link
   * table, in batches), then its tokens. The records' answers stopped showing it when the definition
   * went; this leaves no value of it in the store. Not a change of the records (no feed entry).
   */
  async drop(call: C, def: Pick<FieldDef, "_id">): Promise<number> {
    const dead = new Set(await this.deps.tokens.ofField(def._id));
    const records = this.deps.records();
    const defs = await this.deps.definitions(call, true);
    let cleaned = 0;
    if (dead.size) {
      for (;;) {
        const docs = await records.find({ [CUSTOM_LINKS]: { $in: [...dead] } }, { limit: DROP_BATCH, projection: { custom_values: 1, custom_links: 1 } });
        if (!docs.length) break;
        for (const doc of docs) {
          const values = { ...(doc.custom_values ?? {}) };
          delete values[String(def._id)];
          const stored = storedFields(defs, values);
          const links = (doc.custom_links ?? []).filter(id => !dead.has(id));
          await records.updateOne({ _id: doc._id }, { $set: { ...stored, [CUSTOM_LINKS]: links } });
          cleaned++;
        }
      }
    }
    await this.deps.tokens.removeField(def._id);
    return cleaned;
  }
}
