import { collectionUrl, embeddedTerm, rootsOf, TermDoc, termRecord, termUrl, termUrls } from "../../lib/terms/term-record";

const roots = { site: "http://localhost:3000", ns: "http://localhost:3000/wp-json/calendar/events/v1" };

function doc(over: Partial<TermDoc> = {}): TermDoc {
  return {
    _id: 15, taxonomy: "category", name: "Club nights", name_lc: "club nights", slug: "club-nights", tax_slug: "category:club-nights",
    description: "Small venues", description_lc: "small venues", parent: 12, count: 2, tree_count: 2, lang: "en", modified_utc: "2025-01-01 00:00:00", ...over
  };
}

describe("rootsOf", () => {
  it("uses the request's site and api root", () => {
    expect(rootsOf({ siteUrl: "http://x/fr", apiRoot: "http://x/fr/wp-json" }, { baseUrl: "http://b", restPrefix: "api" }))
      .toEqual({ site: "http://x/fr", ns: "http://x/fr/wp-json/calendar/events/v1" });
  });
  it("falls back to the settings for internal calls", () => {
    expect(rootsOf({}, { baseUrl: "http://b", restPrefix: "api" })).toEqual({ site: "http://b", ns: "http://b/api/calendar/events/v1" });
    expect(rootsOf(undefined, { baseUrl: "http://b", restPrefix: "wp-json" }).ns).toBe("http://b/wp-json/calendar/events/v1");
  });
});

describe("term URLs", () => {
  it("builds category archive URLs with the ancestors, root first", () => {
    expect(termUrl(doc(), ["music"], roots)).toBe("http://localhost:3000/events/category/music/club-nights/");
    expect(termUrl(doc(), ["a", "b"], roots)).toBe("http://localhost:3000/events/category/a/b/club-nights/");
    expect(termUrl(doc({ parent: 0 }), [], roots)).toBe("http://localhost:3000/events/category/club-nights/");
  });
  it("builds tag archive URLs", () => {
    expect(termUrl(doc({ taxonomy: "tag", slug: "outdoor" }), [], roots)).toBe("http://localhost:3000/tag/outdoor/");
  });
  it("adds up only for categories with a parent", () => {
    expect(termUrls(doc(), roots)).toEqual({
      self: `${roots.ns}/categories/15`, collection: `${roots.ns}/categories`, up: `${roots.ns}/categories/12`
    });
    expect(termUrls(doc({ parent: 0 }), roots)).not.toHaveProperty("up");
    expect(termUrls(doc({ taxonomy: "tag", parent: 0, _id: 21 }), roots)).toEqual({ self: `${roots.ns}/tags/21`, collection: `${roots.ns}/tags` });
    expect(collectionUrl("tag", roots)).toBe(`${roots.ns}/tags`);
  });
});

describe("termRecord (docs/records.md#term-fields)", () => {
  it("matches the category example, key order included", () => {
    const record = termRecord(doc(), ["music"], roots);
    expect(record).toEqual({
      id: 15, count: 2, description: "Small venues", name: "Club nights", slug: "club-nights",
      taxonomy: "tribe_events_cat", parent: 12, meta: [],
      url: "http://localhost:3000/events/category/music/club-nights/",
      urls: {
        self: "http://localhost:3000/wp-json/calendar/events/v1/categories/15",
        collection: "http://localhost:3000/wp-json/calendar/events/v1/categories",
        up: "http://localhost:3000/wp-json/calendar/events/v1/categories/12"
      }
    });
    expect(Object.keys(record)).toEqual(["id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls"]);
  });
  it("gives tags no parent key", () => {
    const record = termRecord(doc({ _id: 21, taxonomy: "tag", name: "outdoor", slug: "outdoor", description: "", parent: 0, count: 0 }), [], roots);
    expect(Object.keys(record)).toEqual(["id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls"]);
    expect(record.taxonomy).toBe("post_tag");
    expect(record.url).toBe("http://localhost:3000/tag/outdoor/");
  });
});

describe("embeddedTerm (docs/records.md#embedded-terms)", () => {
  it("has the WordPress term shape with id last but urls", () => {
    const e = embeddedTerm(doc({ _id: 12, name: "Music", slug: "music", description: "Live shows", parent: 0, count: 3 }), roots);
    expect(e).toEqual({
      name: "Music", slug: "music", term_group: 0, term_taxonomy_id: 12, taxonomy: "tribe_events_cat", description: "Live shows",
      parent: 0, count: 3, filter: "raw", id: 12, urls: { self: `${roots.ns}/categories/12`, collection: `${roots.ns}/categories` }
    });
    expect(Object.keys(e)).toEqual(["name", "slug", "term_group", "term_taxonomy_id", "taxonomy", "description", "parent", "count", "filter", "id", "urls"]);
  });
  it("adds up for child categories and keeps parent 0 on tags", () => {
    expect(embeddedTerm(doc(), roots).urls.up).toBe(`${roots.ns}/categories/12`);
    const tag = embeddedTerm(doc({ taxonomy: "tag", parent: 0 }), roots);
    expect(tag.parent).toBe(0);
    expect(tag.taxonomy).toBe("post_tag");
    expect(tag.urls.self).toBe(`${roots.ns}/tags/15`);
  });
});
