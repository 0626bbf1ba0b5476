/**
 * A site's custom field definitions (docs/records.md#custom-fields): create, list, read, update, delete.
 * Each guarantee is the store's: a key is unique per site and object type by the unique index on `ident`,
 * and a site holds at most `limit` definitions by the unique index on `slot` (a place among 1…limit):
 * two creates racing for the last place cannot both store theirs. Deleting a field removes its values
 * from every record (the record service's `dropFieldValues`) and its tokens, before it is answered.
 */
import { ApiError, throwIfInvalid } from "../../lib/errors";
import { checkDefinitionUpdate, checkNewDefinition, FieldDef, ObjectType, OBJECT_TYPES } from "../../lib/fields/definition";
import type { Collection } from "../../store/collection";
import type { IndexSpec } from "../../store";
import { isUniqueViolation } from "../../store/errors";

export const FIELD_DEFINITIONS = "field_definitions";
export const FIELD_DEFINITION_INDEXES: IndexSpec[] = [{ field: "ident", unique: true }, { field: "slot", unique: true }, { field: "object_type" }];

/** Tries of a create whose place another create took meanwhile. */
const SLOT_TRIES = 5;

export interface FieldDefinitionsDeps {
  /** The current site's definitions. */
  col(): Promise<Collection>;
  /** The most definitions a site may have (all object types together). */
  limit(): number;
  /** Removes a deleted field's values from every record of its type (the record service's work). */
  dropValues(def: FieldDef): Promise<void>;
  /** What a change of definitions made stale: every kept answer of the site (records show their fields). */
  changed(): Promise<void>;
}

export class FieldDefinitions {
  constructor(private readonly deps: FieldDefinitionsDeps) {}

  /** The site's definitions (of one object type, or all), oldest first. */
  async all(objectType?: ObjectType): Promise<FieldDef[]> {
    const col = await this.deps.col();
    return (await col.find(objectType ? { object_type: objectType } : {}, { sort: { _id: 1 } })) as FieldDef[];
  }

  async page(objectType: ObjectType | undefined, skip: number, limit: number): Promise<{ docs: FieldDef[]; total: number }> {
    const col = await this.deps.col();
    const query = objectType ? { object_type: objectType } : {};
    const [docs, total] = await Promise.all([col.find(query, { sort: { _id: 1 }, skip, limit }), col.count(query)]);
    return { docs: docs as FieldDef[], total };
  }

  /** One definition, 404 `rest_no_route` when the site has none of that id (as webhooks and imports answer). */
  async byId(id: number): Promise<FieldDef> {
    const doc = await (await this.deps.col()).findOne({ _id: id });
    if (!doc) throw ApiError.noRoute();
    return doc as FieldDef;
  }

  async create(p: Record<string, unknown>): Promise<FieldDef> {
    const { def, bad } = checkNewDefinition(p);
    throwIfInvalid(bad);
    const col = await this.deps.col();
    const limit = this.deps.limit();
    for (let attempt = 1; ; attempt++) {
      if (await col.findOne({ ident: def!.ident })) throw new ApiError("rest_field_exists", 409, { key: def!.key });
      const taken = new Set((await col.find({}, { projection: { slot: 1 } })).map(d => Number(d.slot)));
      let slot = 1;
      while (taken.has(slot)) slot++;
      if (slot > limit) throw new ApiError("rest_field_limit", 400, { max: limit });
      try {
        const made = (await col.append({ ...def!, slot })) as FieldDef;
        await this.deps.changed();
        return made;
      } catch (err) {
        // the key taken meanwhile is a 409 at the next look; a place taken meanwhile, another place
        if (!isUniqueViolation(err) || attempt >= SLOT_TRIES) throw err;
      }
    }
  }

  async update(id: number, p: Record<string, unknown>): Promise<FieldDef> {
    const current = await this.byId(id);
    const { set, bad } = checkDefinitionUpdate(current, p);
    throwIfInvalid(bad);
    if (!Object.keys(set).length) return current;
    const updated = await (await this.deps.col()).updateOne({ _id: id }, { $set: set });
    if (!updated) throw ApiError.noRoute();
    await this.deps.changed();
    return updated as FieldDef;
  }

  /** Deletes the definition (no record answers it from then on), then its values and tokens; answers it as it was. */
  async remove(id: number): Promise<FieldDef> {
    const current = await this.byId(id);
    await (await this.deps.col()).removeMany({ _id: id });
    await this.deps.changed();
    await this.deps.dropValues(current);
    return current;
  }
}

/** An `object_type` filter as given: one of the three, or undefined when absent. */
export function objectTypeFilter(v: unknown): ObjectType | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (!(OBJECT_TYPES as readonly unknown[]).includes(v)) throw ApiError.invalidParam("object_type");
  return v as ObjectType;
}
