/**
 * Custom fields on a record service (events, venues, organizers; docs/records.md#custom-fields): builds the
 * kind's RecordFields (domain/fields/record-fields.ts) with its ports — the definitions asked of the
 * taxonomy service, the site's token dictionary in this service's store, the request's language — and the
 * internal action `dropFieldValues` the taxonomy service calls when a field of this kind is deleted.
 * Needs the store and translatable mixins.
 */
import { batchReadsOf, readOnce } from "../lib/imports/batch-reads";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import type { Ctx } from "../broker/context";
import { settings } from "../lib/settings";
import type { FieldDef, ObjectType } from "../lib/fields/definition";
import { RecordFields, type FieldsDoc } from "../domain/fields/record-fields";
import { FieldTokens, FIELD_TOKENS, FIELD_TOKEN_INDEXES } from "../domain/fields/field-tokens";
import { recordsOf, type Collection } from "../store/collection";
import type { Companions, StoreFace } from "./store.mixin";
import type { TranslatableMethods } from "./translatable.mixin";

/** The service's face of this mixin. */
export interface RecordFieldsFace {
  recordFields: RecordFields<Ctx>;
}

interface Self extends Service, RecordFieldsFace, Pick<StoreFace, "storeCollection" | "store" | "storeHandle" | "cleanCaches">, Pick<TranslatableMethods, "languageOf"> {
  tokenCollection?: Promise<Collection>;
}

/** The collections this mixin opens on first use, for the store mixin to make at start (StoreOptions `companions`). */
export const RECORD_FIELDS_COLLECTIONS: Companions = { [FIELD_TOKENS]: FIELD_TOKEN_INDEXES };

export function RecordFieldsMixin(objectType: ObjectType): ServiceSchema {
  const schema: ServiceSchema<ServiceSettingSchema, object, object, Self> = {
    name: "record-fields",
    created(this: Self) {
      // opened on first use; an opening that failed is tried again by the next use, not kept
      const tokens = new FieldTokens(() => (this.tokenCollection ??= this.storeCollection(FIELD_TOKENS, FIELD_TOKEN_INDEXES).catch((err: unknown) => {
        this.tokenCollection = undefined;
        throw err;
      })));
      this.recordFields = new RecordFields<Ctx>({
        objectType,
        definitions: (ctx, fresh) => {
          const read = () => ctx.call("taxonomy.fields.definitions", { object_type: objectType, fresh }) as Promise<FieldDef[]>;
          // a batch's writes read the fresh definitions once (lib/imports/batch-reads.ts)
          return fresh ? readOnce(batchReadsOf(ctx.meta), `fields|${objectType}`, read) : read();
        },
        tokens,
        language: ctx => this.languageOf(ctx),
        defaultLanguage: () => settings().defaultLanguage,
        records: () => recordsOf<FieldsDoc>(this.store)
      });
    },
    actions: {
      /** Internal: a deleted field's values removed from every record of this kind (domain/fields/record-fields.ts `drop`). */
      dropFieldValues: {
        params: { field: "number" },
        async handler(this: Self, ctx: Ctx<{ field: number }>) {
          const cleaned = await this.recordFields.drop(ctx, { _id: ctx.params.field });
          // the records' stored values changed (their answers did already): nothing kept may show the old ones
          await this.cleanCaches();
          return { cleaned };
        }
      }
    }
  };
  return serviceSchema(schema);
}
