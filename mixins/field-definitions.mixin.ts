/**
 * A site's custom field definitions as actions of the service that mixes this in (the taxonomy service:
 * README "Custom fields" says why): the routes `{ns}/fields` (create, list, read, update, delete; a site's
 * administrators only) and `fields.definitions`, which the record services ask on every read and write.
 * The definitions themselves are domain/fields/field-definitions.ts's; a read of them is kept in the
 * action cache under the site's key, and every change of them cleans all the site's kept answers (records
 * show their fields), on every node.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import type { Ctx } from "../broker/context";
import { ApiError } from "../lib/errors";
import { settings, NAMESPACE_PATH } from "../lib/settings";
import { currentSiteId } from "../lib/sites/scope";
import { FIELD_PARAMS, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../lib/fields/params";
import { type FieldDef, type ObjectType, presentDefinition } from "../lib/fields/definition";
import { FieldDefinitions, FIELD_DEFINITIONS, FIELD_DEFINITION_INDEXES, objectTypeFilter } from "../domain/fields/field-definitions";
import { keyPrefix } from "../cache/staleness";
import { keptOrComputed, type CleanLog } from "../cache/clean-mark";
import type { Collection } from "../store/collection";
import type { Companions, StoreFace } from "./store.mixin";
import { answerTotals } from "../lib/http/list-totals";
import { isAdministrator } from "../lib/access/capabilities";

/** The record service holding each object type's records (whose values a deleted field leaves). */
const OWNER: Record<ObjectType, string> = { event: "events", venue: "venues", organizer: "organizers" };

interface FieldsSelf extends Service, Pick<StoreFace, "storeCollection" | "cleanCaches" | "store" | "storeHandle">, FieldsMethods {
  fieldDefinitions: FieldDefinitions;
  fieldCollection?: Promise<Collection>;
  cleanLog: CleanLog | undefined;
}

const methods = {
  /** Administrators only (the trusted internal caller too): 401 anonymous, 403 other roles. */
  mayManageFields(ctx: Ctx<object>): void {
    const who = ctx.meta.caller;
    if (!isAdministrator(who)) throw ApiError.forbidden(who === null);
  }
} satisfies ThisType<FieldsSelf>;
type FieldsMethods = typeof methods;

/** The collection this mixin opens on first use, for the store mixin to make at start (StoreOptions `companions`). */
export const FIELD_DEFINITIONS_COLLECTIONS: Companions = { [FIELD_DEFINITIONS]: FIELD_DEFINITION_INDEXES };

export function FieldDefinitionsMixin(): ServiceSchema {
  const schema: ServiceSchema<ServiceSettingSchema, FieldsMethods, object, FieldsSelf> = {
    name: "field-definitions",
    methods,
    created(this: FieldsSelf) {
      this.fieldDefinitions = new FieldDefinitions({
        // opened once, on first use (the store is the store mixin's, opened when the service starts); an
        // opening that failed is tried again by the next use, not kept
        col: () => (this.fieldCollection ??= this.storeCollection(FIELD_DEFINITIONS, FIELD_DEFINITION_INDEXES).catch((err: unknown) => {
          this.fieldCollection = undefined;
          throw err;
        })),
        limit: () => settings().customFieldsMax,
        dropValues: def => this.broker.call(`${OWNER[def.object_type]}.dropFieldValues`, { field: def._id }),
        changed: () => this.cleanCaches()
      });
    },
    actions: {
      "fields.list": {
        params: FIELD_PARAMS.list,
        async handler(this: FieldsSelf, ctx: Ctx<{ object_type?: string; page?: number; per_page?: number }>) {
          this.mayManageFields(ctx);
          const perPage = Math.min(ctx.params.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
          const page = ctx.params.page ?? 1;
          const { docs, total } = await this.fieldDefinitions.page(objectTypeFilter(ctx.params.object_type), (page - 1) * perPage, perPage);
          const pages = Math.max(1, Math.ceil(total / perPage));
          answerTotals(ctx.meta, total, pages);
          return docs.map(presentDefinition);
        }
      },
      "fields.create": {
        params: FIELD_PARAMS.create,
        async handler(this: FieldsSelf, ctx: Ctx<Record<string, unknown>>) {
          this.mayManageFields(ctx);
          const def = await this.fieldDefinitions.create(ctx.params);
          const s = settings();
          const location = `${ctx.meta.apiRoot ?? `${s.baseUrl}/${s.restPrefix}`}/${NAMESPACE_PATH}/fields/${def._id}`;
          ctx.meta.$statusCode = 201;
          ctx.meta.$location = location;
          return presentDefinition(def);
        }
      },
      "fields.get": {
        params: FIELD_PARAMS.get,
        async handler(this: FieldsSelf, ctx: Ctx<{ id: number }>) {
          this.mayManageFields(ctx);
          return presentDefinition(await this.fieldDefinitions.byId(ctx.params.id));
        }
      },
      "fields.update": {
        params: FIELD_PARAMS.update,
        async handler(this: FieldsSelf, ctx: Ctx<Record<string, unknown> & { id: number }>) {
          this.mayManageFields(ctx);
          return presentDefinition(await this.fieldDefinitions.update(ctx.params.id, ctx.params));
        }
      },
      "fields.remove": {
        params: FIELD_PARAMS.remove,
        async handler(this: FieldsSelf, ctx: Ctx<{ id: number }>) {
          this.mayManageFields(ctx);
          return { ...presentDefinition(await this.fieldDefinitions.remove(ctx.params.id)), deleted: true };
        }
      },
      /** Internal: the site's definitions (of one object type, or all), oldest first; `fresh` reads the store, else the cache may answer. */
      "fields.definitions": {
        params: { object_type: { type: "string", optional: true }, fresh: { type: "boolean", optional: true } },
        async handler(this: FieldsSelf, ctx: Ctx<{ object_type?: string; fresh?: boolean }>): Promise<FieldDef[]> {
          const type = objectTypeFilter(ctx.params.object_type);
          const read = () => this.fieldDefinitions.all(type);
          const cacher = this.broker.cacher;
          if (ctx.params.fresh || !cacher) return read();
          // under the site's key: every change of the site's definitions (or any clean of the site) cleans it
          return keptOrComputed(cacher, this.cleanLog, `${keyPrefix("ACT", currentSiteId(), { kind: "site" })}fields:${type ?? "all"}`, read);
        }
      }
    }
  };
  return serviceSchema(schema);
}
