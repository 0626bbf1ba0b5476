import { memoryCollection, TestCollection } from "../helpers/memory-store";
import {
  buildTermQuery, escapeRegExp, MAX_PER_PAGE, paging, pagingHeaders, sortByInclude, termListEnvelope, termOrder
} from "../../lib/terms/term-query";
import type { TermDoc } from "../../lib/terms/term-record";
import type { Json } from "../helpers/json";

const roots = { site: "http://h", ns: "http://h/wp-json/calendar/events/v1" };

function term(_id: number, name: string, over: Partial<TermDoc> = {}): TermDoc {
  const slug = over.slug ?? name.toLowerCase().replace(/\s+/g, "-");
  const taxonomy = over.taxonomy ?? "category";
  return {
    _id, taxonomy, name, name_lc: name.toLowerCase(), slug, tax_slug: `${taxonomy}:${slug}`, description: "", description_lc: "", parent: 0,
    count: 0, tree_count: 0, lang: "en", modified_utc: "2025-01-01 00:00:00", ...over
  };
}

describe("buildTermQuery on the embedded store", () => {
  let db: TestCollection;
  const ids = async (query: Record<string, unknown>): Promise<number[]> =>
    (await db.findAsync(query, { sort: { _id: 1 } })).map(d => Number(d._id));

  beforeAll(async () => {
    db = await memoryCollection("terms");
    await db.insertAsync([
      term(1, "Music", { count: 0, tree_count: 2 }),
      term(2, "Rock", { parent: 1, count: 2, tree_count: 2 }),
      term(3, "Empty"),
      term(4, "Jazz Night", { slug: "late-jazz", count: 1, tree_count: 1 }),
      term(5, "Outdoor", { taxonomy: "tag", count: 1, tree_count: 1 }),
      term(6, "a.b", { slug: "ab" })
    ] as Json);
  });

  it("keeps to the taxonomy and hides empty subtrees by default", async () => {
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: true }))).toEqual([1, 2, 4]);
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false }))).toEqual([1, 2, 3, 4, 6]);
    expect(await ids(buildTermQuery({ taxonomy: "tag", hideEmpty: true }))).toEqual([5]);
  });
  it("searches name or slug, case-insensitively and literally", async () => {
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, search: "JAZZ" }))).toEqual([4]);
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, search: "late-" }))).toEqual([4]);
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, search: "." }))).toEqual([6]);
  });
  it("combines include, exclude and the event's terms", async () => {
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, includeIds: [1, 2, 3], excludeIds: [2] }))).toEqual([1, 3]);
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, includeIds: [1, 2, 3], eventTermIds: [2, 4] }))).toEqual([2]);
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: true, eventTermIds: [2, 3] }))).toEqual([2]);
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, eventTermIds: [] }))).toEqual([]);
  });
  it("filters by parent (categories only) and slug", async () => {
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, parent: 1 }))).toEqual([2]);
    expect(buildTermQuery({ taxonomy: "tag", hideEmpty: false, parent: 1 })).not.toHaveProperty("parent");
    expect(await ids(buildTermQuery({ taxonomy: "category", hideEmpty: false, slug: "late-jazz" }))).toEqual([4]);
  });
  it("escapes regular expression characters", () => {
    expect(escapeRegExp("a.b*(c)")).toBe("a\\.b\\*\\(c\\)");
  });
});

describe("termOrder (docs/lists.md#term-filters-and-order)", () => {
  it("defaults to name ascending with ties by id", () => {
    expect(termOrder(undefined, undefined)).toEqual({ kind: "store", sort: { name_lc: 1, _id: 1 } });
  });
  it("reads asc in any case; anything else is descending", () => {
    expect(termOrder("name", "ASC")).toEqual({ kind: "store", sort: { name_lc: 1, _id: 1 } });
    expect(termOrder("name", "desc")).toEqual({ kind: "store", sort: { name_lc: -1, _id: 1 } });
    expect(termOrder("name", "whatever")).toEqual({ kind: "store", sort: { name_lc: -1, _id: 1 } });
  });
  it.each([
    ["id", { _id: -1 }], ["term_id", { _id: -1 }], ["slug", { slug: -1, _id: 1 }], ["description", { description_lc: -1, _id: 1 }],
    ["count", { count: -1, _id: 1 }], ["parent", { parent: -1, _id: 1 }], ["term_group", { _id: 1 }], ["none", { _id: 1 }],
    ["bogus", { name_lc: -1, _id: 1 }], ["include", { name_lc: -1, _id: 1 }], ["NAME", { name_lc: -1, _id: 1 }]
  ])("orderby=%s desc", (orderby, sort) => {
    expect(termOrder(orderby, "desc")).toEqual({ kind: "store", sort });
  });
  it("orders by the include list when one is given", () => {
    expect(termOrder("include", undefined, [3, 1])).toEqual({ kind: "include", ids: [3, 1], direction: 1 });
    const docs = [{ _id: 1 }, { _id: 2 }, { _id: 3 }];
    expect(sortByInclude(docs, [3, 1, 2], 1).map(d => d._id)).toEqual([3, 1, 2]);
    expect(sortByInclude(docs, [3, 1, 2], -1).map(d => d._id)).toEqual([2, 1, 3]);
  });
});

describe("paging and envelope (docs/lists.md#paging, #term-list-envelope)", () => {
  it("caps per_page at 50 and counts pages", () => {
    expect(paging(undefined, undefined, 0)).toEqual({ page: 1, perPage: 10, total: 0, totalPages: 0, skip: 0 });
    expect(paging(2, 3, 9)).toEqual({ page: 2, perPage: 3, total: 9, totalPages: 3, skip: 3 });
    expect(paging(1, 500, 120).perPage).toBe(MAX_PER_PAGE);
    expect(paging(1, 500, 120).totalPages).toBe(3);
  });

  it("has the key order and bare links of the example", () => {
    const env = termListEnvelope("category", ["x"], paging(2, 3, 9), roots);
    expect(Object.keys(env)).toEqual(["rest_url", "total", "total_pages", "categories", "next_rest_url", "previous_rest_url"]);
    expect(env).toEqual({
      rest_url: `${roots.ns}/categories/`, total: 9, total_pages: 3, categories: ["x"],
      next_rest_url: `${roots.ns}/categories/?page=3`, previous_rest_url: `${roots.ns}/categories/`
    });
  });
  it("links only what exists; previous even past the end", () => {
    expect(Object.keys(termListEnvelope("tag", [], paging(1, 10, 5), roots))).toEqual(["rest_url", "total", "total_pages", "tags"]);
    const past = termListEnvelope("tag", [], paging(7, 10, 5), roots);
    expect(past).not.toHaveProperty("next_rest_url");
    expect(past.previous_rest_url).toBe(`${roots.ns}/tags/?page=6`);
  });
  it("carries i18n_language when the caller sent it (C8: language in built URLs)", () => {
    const env = termListEnvelope("tag", [], paging(3, 1, 5), roots, "fr");
    expect(env.rest_url).toBe(`${roots.ns}/tags/?i18n_language=fr`);
    expect(env.next_rest_url).toBe(`${roots.ns}/tags/?i18n_language=fr&page=4`);
    expect(env.previous_rest_url).toBe(`${roots.ns}/tags/?i18n_language=fr&page=2`);
  });

  it("sends totals and Link headers with the caller's filters", () => {
    const h = pagingHeaders("category", paging(2, 2, 9), roots, { page: 2, per_page: 2, search: "a b", include: ["1", "x"], hide_empty: false });
    expect(h["X-TEC-Total"]).toBe("9");
    expect(h["X-TEC-TotalPages"]).toBe("5");
    expect(h["X-WP-Total"]).toBe("9");
    expect(h["X-WP-TotalPages"]).toBe("5");
    const base = `${roots.ns}/categories?per_page=2&search=a%20b&include=1%2Cx&hide_empty=false`;
    expect(h.Link).toBe(`<${base}&page=1>; rel="prev", <${base}&page=3>; rel="next"`);
  });
  it("sends no Link on a single page and clamps prev past the end", () => {
    expect(pagingHeaders("tag", paging(1, 10, 3), roots, {})).not.toHaveProperty("Link");
    expect(pagingHeaders("tag", paging(9, 10, 25), roots, {}).Link).toBe(`<${roots.ns}/tags?page=3>; rel="prev"`);
  });
});
