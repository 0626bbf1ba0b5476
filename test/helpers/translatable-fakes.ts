/**
 * Small record services built on the translatable mixin, for tests: one per shape of the real record
 * services (events: any-field search with D34 (search never matches through hidden fields); venues: one-field search, duplicate avoidance by name in
 * the request's language; terms: names resolved in any language, permanent delete). They use the same
 * hooks the real services use (see the i18n integration notes): splitWrite before the store write,
 * localize + applyLanguage when building records, searchQuery / nameQuery in list and lookup queries.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { StoreMixin, type StoreFace } from "../../mixins/store.mixin";
import { TranslatableMixin, TRANSLATION_INDEXES, type TranslatableMethods } from "../../mixins/translatable.mixin";
import type { Ctx } from "../../broker/context";
import type { Doc, Query } from "../../store/collection";
import { containsRegex, SearchTerm, searchTerms } from "../../lib/text/search";
import { mergeValues } from "../../lib/i18n/values";
import { sanitizeSlug } from "../../lib/text/slug";
import { TRANSLATABLE } from "../../lib/i18n/types";

const text = { type: "string", optional: true };

/** The params of the fakes' actions (each action uses some). */
interface FakeParams {
  id: number;
  name: string;
  search: string;
  value: string;
  password?: string;
  all?: boolean;
  [param: string]: unknown;
}
type FakeCtx = Ctx<FakeParams>;
type FakeRecord = Record<string, unknown>;

/** A fake record service: the store and translatable mixins, and the shared methods of `fakeBase`. */
interface FakeSelf extends Service, StoreFace, TranslatableMethods {
  nextId: number;
  records(ctx: Ctx<unknown>, docs: Doc[]): Promise<FakeRecord[]>;
  createRecord(ctx: Ctx<unknown>, input: Record<string, unknown>): Promise<FakeRecord>;
  updateRecord(ctx: Ctx<unknown>, id: number, input: Record<string, unknown>): Promise<FakeRecord>;
}
type FakeSchema = Partial<ServiceSchema<ServiceSettingSchema, Record<string, never>, object, FakeSelf>>;

/** Shared by the three fakes: store, counter ids, get, records built from localized docs. */
function fakeBase(name: string, type: keyof typeof TRANSLATABLE, derived?: Record<string, string>): FakeSchema {
  const fields = TRANSLATABLE[type].fields;
  return {
    name,
    mixins: [StoreMixin({ collection: name, indexes: [{ field: "slug" }, ...TRANSLATION_INDEXES] }), TranslatableMixin({ type, fields, derived })],
    created() {
      // far from the real services' ids: the i18n service keys values by type and id
      this.nextId = 1_000_001;
    },
    methods: {
      /** One page of output records, in the asked language, with the language keys last. */
      async records(this: FakeSelf, ctx: Ctx<unknown>, docs: Doc[]): Promise<FakeRecord[]> {
        const values = await this.localize(ctx, docs);
        return docs.map((doc: Doc) => {
          const shown = mergeValues(doc, values.get(doc._id), fields);
          const record: Record<string, unknown> = { id: doc._id };
          for (const f of fields) record[f] = shown[f] ?? "";
          record.slug = doc.slug;
          return this.applyLanguage(record, doc, ctx);
        });
      },
      async createRecord(this: FakeSelf, ctx: Ctx<unknown>, input: Record<string, unknown>): Promise<FakeRecord> {
        const { inline } = await this.splitWrite(ctx, undefined, input);
        const id = this.nextId++;
        const first = String(input[TRANSLATABLE[type].nameField] ?? "");
        const doc = await this.store.insert({ _id: id, slug: sanitizeSlug(first) || String(id), ...inline });
        return (await this.records(ctx, [doc]))[0];
      },
      async updateRecord(this: FakeSelf, ctx: Ctx<unknown>, id: number, input: Record<string, unknown>): Promise<FakeRecord> {
        const current = await this.store.findOne({ _id: id });
        if (!current) throw new Error(`no ${name} ${id}`);
        const { inline } = await this.splitWrite(ctx, current, input);
        const doc = Object.keys(inline).length ? (await this.store.updateOne({ _id: id }, { $set: inline }))! : current;
        return (await this.records(ctx, [doc]))[0];
      }
    }
  };
}

/** Like events: title/description/excerpt; every search term in one of them; D34 (search never matches through hidden fields) for protected ones. */
export function fakeEvents(name = "fakeevents"): ServiceSchema {
  const base = fakeBase(name, "event");
  const readable = (password?: string): Query => ({ post_password: { $in: ["", ...(password ? [password] : [])] } });
  const original = (terms: SearchTerm[], password: string | undefined, all: boolean): Query => ({
    $and: terms.map(t => {
      const re = containsRegex(t.text);
      const body: Query = { $or: [{ excerpt: re }, { description: re }] };
      const match: Query = { $or: [{ title: re }, all ? body : { $and: [readable(password), body] }] };
      return t.exclude ? { $not: match } : match;
    })
  });
  const schema: FakeSchema = {
    ...base,
    actions: {
      create: {
        params: { title: "string", description: text, excerpt: text, post_password: text },
        handler(ctx: FakeCtx) {
          return this.createRecord(ctx, { title: "", description: "", excerpt: "", post_password: "", ...ctx.params });
        }
      },
      update: {
        params: { id: "number", title: text, description: text, excerpt: text, featured: { type: "boolean", optional: true } },
        handler(ctx: FakeCtx) {
          const { id, ...input } = ctx.params;
          return this.updateRecord(ctx, id, input);
        }
      },
      get: {
        params: { id: "number" },
        async handler(ctx: FakeCtx) {
          return (await this.records(ctx, [(await this.store.findOne({ _id: ctx.params.id }))!]))[0];
        }
      },
      list: {
        params: { search: text, password: text, all: { type: "boolean", optional: true } },
        async handler(ctx: FakeCtx) {
          const { search, password, all } = ctx.params;
          const query = search
            ? await this.searchQuery(ctx, searchTerms(search), (terms: SearchTerm[]) => original(terms, password, !!all), all ? {} : { limited: { fields: ["title"], unless: readable(password) } })
            : {};
          return this.records(ctx, await this.store.find(query, { sort: { _id: 1 } }));
        }
      }
    }
  };
  return schema as unknown as ServiceSchema;
}

/** Like venues: one single field holds every fragment (shared: phone); duplicates by name in the request's language. */
export function fakeVenues(name = "fakevenues"): ServiceSchema {
  const base = fakeBase(name, "venue", { name_key: "name" });
  const oneField = ["name", "description", "address", "city"];
  const condition = (terms: SearchTerm[], fields: string[]): Query | undefined =>
    fields.length ? { $or: fields.map(f => ({ $and: terms.map(t => ({ [f]: containsRegex(t.text) })) })) } : undefined;
  const schema: FakeSchema = {
    ...base,
    actions: {
      /** Like D25 (duplicate venues and organizers): a venue with that name in the request's language is answered instead of a new one. */
      create: {
        params: { name: "string", address: text, city: text, phone: text },
        async handler(ctx: FakeCtx) {
          const key = ctx.params.name.trim().toLowerCase();
          const found = await this.store.findOne(await this.nameQuery(ctx, key, { name_key: key }));
          if (found) return { duplicate: true, ...(await this.records(ctx, [found]))[0] };
          return this.createRecord(ctx, { description: "", address: "", city: "", phone: "", ...ctx.params, name_key: key });
        }
      },
      update: {
        params: { id: "number", name: text, address: text, city: text, phone: text },
        handler(ctx: FakeCtx) {
          const { id, ...input } = ctx.params;
          if (input.name !== undefined) input.name_key = input.name.trim().toLowerCase();
          return this.updateRecord(ctx, id, input);
        }
      },
      list: {
        params: { search: "string" },
        async handler(ctx: FakeCtx) {
          const terms = ctx.params.search.split(/[^a-zA-Z0-9-]+/).filter(Boolean).map((t: string) => ({ text: t, exclude: false }));
          const query = await this.searchQuery(ctx, terms, (ts: SearchTerm[]) => condition(ts, [...oneField, "phone"])!, {
            fields: oneField, mode: "one-field", shared: (ts: SearchTerm[]) => condition(ts, ["phone"])
          });
          return this.records(ctx, await this.store.find(query, { sort: { _id: 1 } }));
        }
      },
      raw: {
        params: { id: "number" },
        handler(ctx: FakeCtx) {
          return this.store.findOne({ _id: ctx.params.id });
        }
      }
    }
  };
  return schema as unknown as ServiceSchema;
}

/** Like taxonomy: names resolve in any language; search is name or slug; permanent delete. */
export function fakeTerms(name = "faketerms"): ServiceSchema {
  const base = fakeBase(name, "term", { name_lc: "name" });
  const schema: FakeSchema = {
    ...base,
    actions: {
      create: {
        params: { name: "string", description: text },
        handler(ctx: FakeCtx) {
          return this.createRecord(ctx, { description: "", ...ctx.params, name_lc: ctx.params.name.toLowerCase() });
        }
      },
      update: {
        params: { id: "number", name: text, description: text },
        handler(ctx: FakeCtx) {
          const { id, ...input } = ctx.params;
          if (input.name !== undefined) input.name_lc = input.name.toLowerCase();
          return this.updateRecord(ctx, id, input);
        }
      },
      /** A name or slug used as a filter: any language. */
      resolve: {
        params: { value: "string" },
        async handler(ctx: FakeCtx) {
          const key = ctx.params.value.toLowerCase();
          const docs = await this.store.find({ $or: [{ slug: sanitizeSlug(key) }, await this.nameQuery(ctx, key, { name_lc: key }, { anyLanguage: true })] }, { sort: { _id: 1 } });
          return docs.map((d: Doc) => d._id);
        }
      },
      list: {
        params: { search: "string" },
        async handler(ctx: FakeCtx) {
          const re = containsRegex(ctx.params.search);
          const query = await this.searchQuery(ctx, [{ text: ctx.params.search, exclude: false }], () => ({ $or: [{ name_lc: re }, { slug: re }] }), {
            fields: ["name"], shared: () => ({ slug: re })
          });
          return this.records(ctx, await this.store.find(query, { sort: { _id: 1 } }));
        }
      },
      remove: {
        params: { id: "number" },
        async handler(ctx: FakeCtx) {
          await this.store.removeMany({ _id: ctx.params.id });
          await this.dropTranslations(ctx, ctx.params.id);
          return true;
        }
      }
    }
  };
  return schema as unknown as ServiceSchema;
}
