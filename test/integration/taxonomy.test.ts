/**
 * The taxonomy service through HTTP (categories and tags: docs/records.md#categories-and-tags, docs/lists.md#category-and-tag-lists, docs/errors.md#term-errors, docs/authorization.md#term-capabilities)
 * and its internal actions through the bus. A small fake `events` service answers `events.links` and
 * records `events.unlinkTerm` where a test needs it.
 */
import { startService, Running, KeyName } from "../helpers/harness";
import type { Json } from "../helpers/json";
import type { Store } from "../../store";

type Tax = "categories" | "tags";
interface Links { categories: number[]; tags: number[] }

const expectError = (res: { status: number; body: Json }, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.body.data.status).toBe(status);
  expect(typeof res.body.message).toBe("string");
};
const expectInvalid = (res: { status: number; body: Json }, ...params: string[]) => {
  expectError(res, 400, "rest_invalid_param");
  expect(Object.keys(res.body.data.params).sort()).toEqual([...params].sort());
};

/** A running stack plus helpers; `fakeEvents` registers the fake events service. */
async function boot(fakeEvents: boolean) {
  const svc = await startService({ SERVICES: "api,taxonomy,i18n" });
  const links = new Map<number, Links>();
  const unlinked: Array<{ taxonomy: string; id: number }> = [];
  if (fakeEvents) {
    svc.broker.createService({
      name: "events",
      actions: {
        links: { params: { id: "number" }, handler: (ctx: Json) => links.get(ctx.params.id) ?? null },
        unlinkTerm: { handler: (ctx: Json) => { unlinked.push(ctx.params); return true; } }
      }
    });
    await svc.broker.waitForServices(["events"]);
  }
  const create = async (tax: Tax, body: Record<string, unknown>, as: KeyName = "admin") => {
    const res = await svc.request("POST", `/${tax}`, { as, body });
    if (res.status !== 201) throw new Error(`create ${tax} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    return res.body;
  };
  // Counts follow the published event rows carrying a term, moved by the store with each row's write
  // (store/sql/term-counts.ts): event rows written straight into the store here, as the events service writes them.
  let nextEvent = 900_000;
  const events = () => ((svc.broker.getLocalService("taxonomy") as Json).storeHandle as Store).collection("events", []);
  const publish = async (categories: number[]) => {
    const id = nextEvent++;
    await events().insert({ _id: id, status: "publish", categories, tags: [] });
    await svc.broker.cacher?.clean(); // (the events service cleans after its writes: C16 (read your writes))
    return id;
  };
  const unpublish = async (id: number) => {
    await events().updateOne({ _id: id }, { $set: { status: "draft" } });
    await svc.broker.cacher?.clean();
  };
  // as many published rows carrying each term as its delta (a negative delta unpublishes earlier ones)
  const carrying = new Map<number, number[]>();
  const counts = async (deltas: Record<string, number>) => {
    for (const [key, delta] of Object.entries(deltas)) {
      const term = Number(key);
      const rows = carrying.get(term) ?? [];
      carrying.set(term, rows);
      for (let i = 0; i < delta; i++) rows.push(await publish([term]));
      for (let i = 0; i < -delta; i++) await unpublish(rows.pop()!);
    }
  };
  const site = `http://localhost:${svc.port}`;
  return { svc, links, unlinked, create, publish, unpublish, counts, site, ns: `${site}/wp-json/calendar/events/v1` };
}

// -------------------------------------------------------------------------------------------------------
describe("term records, reads, creates and updates", () => {
  let env: Awaited<ReturnType<typeof boot>>;
  let svc: Running;
  let site: string;
  let ns: string;
  beforeAll(async () => { env = await boot(true); ({ svc, site, ns } = env); });
  afterAll(async () => { await svc.stop(); });

  test("create answers 201 with the record and a Location header (D13: terms without _links)", async () => {
    const res = await svc.request("POST", "/categories", { as: "admin", body: { name: "Music", description: "Live <b>shows</b>" } });
    expect(res.status).toBe(201);
    const id = res.body.id;
    expect(res.headers.get("location")).toBe(`${ns}/categories/${id}`);
    expect(Object.keys(res.body)).toEqual(["id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls", "i18n_language", "translations"]);
    expect(res.body).toEqual({
      id, count: 0, description: "Live <b>shows</b>", name: "Music", slug: "music", taxonomy: "tribe_events_cat", parent: 0, meta: [],
      url: `${site}/events/category/music/`,
      urls: { self: `${ns}/categories/${id}`, collection: `${ns}/categories` },
      i18n_language: "en", translations: ["en"]
    });
    expect(res.body).not.toHaveProperty("_links");
  });

  test("child categories carry parent, up and the ancestors in their URL", async () => {
    const top = await env.create("categories", { name: "Arts" });
    const mid = await env.create("categories", { name: "Stage", parent: top.id });
    const leaf = await env.create("categories", { name: "Club nights", parent: String(mid.id), description: "Small venues" });
    expect(leaf.parent).toBe(mid.id);
    expect(leaf.url).toBe(`${site}/events/category/arts/stage/club-nights/`);
    expect(leaf.urls).toEqual({ self: `${ns}/categories/${leaf.id}`, collection: `${ns}/categories`, up: `${ns}/categories/${mid.id}` });
    const got = await svc.get(`/categories/${leaf.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(leaf);
  });

  test("tags have no parent key and their own URLs", async () => {
    const res = await svc.request("POST", "/tags", { as: "editor", body: { name: "outdoor" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`${ns}/tags/${res.body.id}`);
    expect(res.body).toEqual({
      id: res.body.id, count: 0, description: "", name: "outdoor", slug: "outdoor", taxonomy: "post_tag", meta: [],
      url: `${site}/tag/outdoor/`, urls: { self: `${ns}/tags/${res.body.id}`, collection: `${ns}/tags` },
      i18n_language: "en", translations: ["en"]
    });
    expect((await svc.get(`/tags/${res.body.id}`)).body).toEqual(res.body);
  });

  test("categories and tags share one id sequence (D2: two id sequences) and URLs follow the language root", async () => {
    const c = await env.create("categories", { name: "Seq cat" });
    const t = await env.create("tags", { name: "Seq tag" });
    expect(t.id).toBeGreaterThan(c.id);
    const fr = await svc.get(`${svc.base}/fr/wp-json/calendar/events/v1/categories/${c.id}`);
    expect(fr.status).toBe(200);
    expect(fr.body.url).toBe(`${site}/fr/events/category/seq-cat/`);
    expect(fr.body.urls.self).toBe(`${site}/fr/wp-json/calendar/events/v1/categories/${c.id}`);
  });

  test("GET of an id that is not a term of the taxonomy is 400 params.id; a non-numeric id is no route", async () => {
    const tag = await env.create("tags", { name: "only a tag" });
    const cat = await env.create("categories", { name: "only a category" });
    expectInvalid(await svc.get(`/categories/${tag.id}`), "id");
    expectInvalid(await svc.get(`/tags/${cat.id}`), "id");
    expectInvalid(await svc.get("/categories/2389"), "id");
    expectInvalid(await svc.get("/tags/2389"), "id");
    expectError(await svc.get("/categories/foo"), 404, "rest_no_route");
    expectError(await svc.get("/tags/foo%20bar"), 404, "rest_no_route");
  });

  test("create validation: missing, empty and invalid fields", async () => {
    const missing = await svc.request("POST", "/categories", { as: "admin", body: { description: "x" } });
    expectError(missing, 400, "rest_missing_callback_param");
    expect(missing.body.data.params).toEqual(["name"]);
    expectError(await svc.request("POST", "/tags", { as: "admin", body: { name: null } }), 400, "rest_missing_callback_param");
    expectInvalid(await svc.request("POST", "/categories", { as: "admin", body: { name: "" } }), "name");
    expectInvalid(await svc.request("POST", "/tags", { as: "admin", body: { name: 12 } }), "name");
    expectInvalid(await svc.request("POST", "/categories", { as: "admin", body: { name: "D", description: "" } }), "description");
    expectInvalid(await svc.request("POST", "/tags", { as: "admin", body: { name: "D", slug: "" } }), "slug");
    for (const parent of ["", 0, "foo", 2389]) {
      expectInvalid(await svc.request("POST", "/categories", { as: "admin", body: { name: "P", parent } }), "parent");
    }
    const tag = await env.create("tags", { name: "not a parent" });
    expectInvalid(await svc.request("POST", "/categories", { as: "admin", body: { name: "P", parent: tag.id } }), "parent");
    // validation comes before permission (D23)
    expectError(await svc.request("POST", "/categories", { body: { description: "x" } }), 400, "rest_missing_callback_param");
    expectInvalid(await svc.request("POST", "/categories", { as: "subscriber", body: { name: "P", parent: 2389 } }), "parent");
  });

  test("names are cleaned (D27: term names are sanitised); a name empty after cleaning is 400 empty_term_name (D14: term errors get a status)", async () => {
    const t = await env.create("tags", { name: "  Rock   & <b>Roll</b>  <  > " });
    expect(t.name).toBe("Rock &amp; Roll &lt; &gt;");
    expect(t.slug).toBe("rock-roll");
    expectError(await svc.request("POST", "/tags", { as: "admin", body: { name: "<b></b>" } }), 400, "empty_term_name");
    expectError(await svc.request("POST", "/categories", { as: "admin", body: { name: "<p> </p>" } }), 400, "empty_term_name");
    const slugged = await env.create("categories", { name: "Given", slug: "My Own Slug!" });
    expect(slugged.slug).toBe("my-own-slug");
    const symbols = await env.create("tags", { name: "!!!" });
    expect(symbols.slug).toBe(String(symbols.id));
  });

  test("parent on tags is 400 rest_taxonomy_not_hierarchical, after the permission check", async () => {
    expectError(await svc.request("POST", "/tags", { as: "admin", body: { name: "flat", parent: 3 } }), 400, "rest_taxonomy_not_hierarchical");
    expectError(await svc.request("POST", "/tags", { as: "admin", body: { name: "flat", parent: "" } }), 400, "rest_taxonomy_not_hierarchical");
    expectError(await svc.request("POST", "/tags", { body: { name: "flat", parent: 3 } }), 401, "rest_forbidden");
    const tag = await env.create("tags", { name: "flat tag" });
    expectError(await svc.request("PATCH", `/tags/${tag.id}`, { as: "editor", body: { parent: 1 } }), 400, "rest_taxonomy_not_hierarchical");
    // parent is not a documented argument of the tags endpoints
    const index = await svc.get("/wp-json/calendar/events/v1");
    const tagsRoute = index.body.routes["/calendar/events/v1/tags"];
    expect(Object.keys(tagsRoute.endpoints[0].args)).not.toContain("parent");
    expect(Object.keys(tagsRoute.endpoints[1].args)).toEqual(["name", "description", "slug", "i18n_language"]);
    const catsRoute = index.body.routes["/calendar/events/v1/categories"];
    expect(Object.keys(catsRoute.endpoints[0].args)).toEqual(["page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "event", "slug", "modified_after", "modified_before", "i18n_language"]);
    expect(catsRoute.endpoints[0].args.hide_empty).toEqual({ description: expect.any(String), type: "boolean", default: "1", required: false });
    const item = index.body.routes["/calendar/events/v1/categories/(?P<id>\\d+)"];
    expect(item.methods).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE"]);
    expect(Object.keys(item.endpoints[1].args)).toEqual(["id", "name", "description", "slug", "parent", "i18n_language"]);
    expect(item.endpoints[1].args.name.required).toBe(false);
    expect(item.endpoints[0].args.id).toEqual({ description: expect.any(String), type: "integer", required: true });
  });

  test("handler-level 400s name the parameter that caused them (C17: codes for the remaining statuses)", async () => {
    const t = await env.create("tags", { name: "c17" });
    await env.create("tags", { name: "c17 other" });
    const cases: Array<[Promise<Json>, string, string]> = [
      [svc.request("POST", "/tags", { as: "admin", body: { name: "x", parent: 1 } }), "rest_taxonomy_not_hierarchical", "parent"],
      [svc.request("POST", "/tags", { as: "admin", body: { name: "<b> </b>" } }), "empty_term_name", "name"],
      [svc.request("PATCH", `/tags/${t.id}`, { as: "admin", body: { slug: "c17-other" } }), "duplicate_term_slug", "slug"],
      [svc.request("POST", "/tags", { as: "admin", body: { name: "C17" } }), "term_exists", "name"]
    ];
    for (const [pending, code, param] of cases) {
      const res = await pending;
      expectError(res, 400, code);
      expect(Object.keys(res.body.data.params)).toEqual([param]);
      expect(res.body.data.details).toEqual({});
    }
  });

  test("term_exists: same name (any case) at the same level, with data.term_id", async () => {
    const jazz = await env.create("categories", { name: "Jazz" });
    const dup = await svc.request("POST", "/categories", { as: "admin", body: { name: "jAzZ" } });
    expectError(dup, 400, "term_exists");
    expect(dup.body.data).toEqual({ status: 400, term_id: jazz.id, params: { name: expect.any(String) }, details: {} });
    const sameSlug = await svc.request("POST", "/categories", { as: "admin", body: { name: "Jazz", slug: "jazz" } });
    expect(sameSlug.body.data.term_id).toBe(jazz.id);
    // a same-named category with a free slug of its own is allowed
    const other = await env.create("categories", { name: "Jazz", slug: "jazz-again" });
    expect(other.slug).toBe("jazz-again");
    // a given slug held by a sibling: that sibling is reported
    const blues = await env.create("categories", { name: "Blues" });
    const held = await svc.request("POST", "/categories", { as: "admin", body: { name: "Jazz", slug: "blues" } });
    expectError(held, 400, "term_exists");
    expect(held.body.data.term_id).toBe(blues.id);
    expect(Object.keys(held.body.data.params)).toEqual(["slug"]);
  });

  test("same names under different parents get {slug}-{parent-slug}, walking up; tags -2, -3", async () => {
    const rock = await env.create("categories", { name: "Rock" });
    const live = await env.create("categories", { name: "Live" });
    const liveRock = await env.create("categories", { name: "Rock", parent: live.id });
    expect(liveRock.slug).toBe("rock-live");
    expect(liveRock.url).toBe(`${site}/events/category/live/rock-live/`);
    const club = await env.create("categories", { name: "Club", parent: live.id });
    const clubRock = await env.create("categories", { name: "Rock", parent: club.id });
    expect(clubRock.slug).toBe("rock-club");
    // rock and rock-club taken: the grandparent's slug is appended next
    await env.create("categories", { name: "Other", slug: "rock-club", parent: rock.id });
    const club2 = await env.create("categories", { name: "Club", parent: rock.id });
    expect(club2.slug).toBe("club-rock");
    const deep = await env.create("categories", { name: "Deep", parent: club.id });
    const deepRock = await env.create("categories", { name: "Rock", parent: deep.id });
    expect(deepRock.slug).toBe("rock-deep");
    // tags go straight to numbers
    await env.create("tags", { name: "Summer Fest" });
    const t2 = await env.create("tags", { name: "Summer-Fest!" });
    const t3 = await env.create("tags", { name: "summer fest?" });
    expect([t2.slug, t3.slug]).toEqual(["summer-fest-2", "summer-fest-3"]);
    expectError(await svc.request("POST", "/tags", { as: "admin", body: { name: "SUMMER FEST" } }), 400, "term_exists");
    // a slug may exist once in each taxonomy
    const tagRock = await env.create("tags", { name: "Rock" });
    expect(tagRock.slug).toBe("rock");
  });

  test("update changes only the given fields, on POST, PUT and PATCH", async () => {
    const t = await env.create("categories", { name: "Theatre", description: "Plays" });
    const renamed = await svc.request("PUT", `/categories/${t.id}`, { as: "admin", body: { name: "Theater" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...t, name: "Theater" });
    const described = await svc.request("PATCH", `/categories/${t.id}`, { as: "editor", body: { description: "" + "Drama" } });
    expect(described.body).toEqual({ ...t, name: "Theater", description: "Drama" });
    const reslugged = await svc.request("POST", `/categories/${t.id}`, { as: "author", body: { slug: "The Stage" } });
    expect(reslugged.body.slug).toBe("the-stage");
    expect(reslugged.body.url).toBe(`${site}/events/category/the-stage/`);
    const noop = await svc.request("PATCH", `/categories/${t.id}`, { as: "admin", body: {} });
    expect(noop.status).toBe(200);
    expect(noop.body).toEqual(reslugged.body);
    // path id wins over a body id (D4: the path selects the record)
    const other = await env.create("categories", { name: "Untouched" });
    const viaPath = await svc.request("PATCH", `/categories/${t.id}`, { as: "admin", body: { id: other.id, description: "path wins" } });
    expect(viaPath.body.id).toBe(t.id);
    expect((await svc.get(`/categories/${other.id}`)).body.description).toBe("");
  });

  test("update errors: unknown id, empty fields, empty name after cleaning, duplicate slugs", async () => {
    const a = await env.create("tags", { name: "alpha" });
    const b = await env.create("tags", { name: "beta" });
    expectInvalid(await svc.request("PATCH", "/tags/2389", { as: "admin", body: { name: "x" } }), "id");
    const cat = await env.create("categories", { name: "a category" });
    expectInvalid(await svc.request("PATCH", `/tags/${cat.id}`, { as: "admin", body: { name: "x" } }), "id");
    expectInvalid(await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { name: "" } }), "name");
    expectInvalid(await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { description: "" } }), "description");
    expectInvalid(await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { slug: "" } }), "slug");
    expectError(await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { name: "<i></i>" } }), 400, "empty_term_name");
    expectError(await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { slug: "beta" } }), 400, "duplicate_term_slug");
    expectError(await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { slug: "BETA" } }), 400, "duplicate_term_slug");
    expect((await svc.get(`/tags/${a.id}`)).body.slug).toBe("alpha");
    // no duplicate-name check on update
    const sameName = await svc.request("PATCH", `/tags/${a.id}`, { as: "admin", body: { name: "Beta" } });
    expect(sameName.status).toBe(200);
    expect(sameName.body.slug).toBe("alpha");
    expect(b.slug).toBe("beta");
    // both id and parent invalid: both are reported
    expectInvalid(await svc.request("PATCH", "/categories/2389", { as: "admin", body: { parent: 2390 } }), "id", "parent");
  });

  test("update of parent: must exist, a taken slug is made unique when the parent moves, loops become 0 (C12: cyclic term parents)", async () => {
    const root = await env.create("categories", { name: "Root cat" });
    const child = await env.create("categories", { name: "Child cat", parent: root.id });
    const grand = await env.create("categories", { name: "Grand cat", parent: child.id });
    for (const parent of ["", 0, "foo", 2389]) {
      expectInvalid(await svc.request("PATCH", `/categories/${child.id}`, { as: "admin", body: { parent } }), "parent");
    }
    // parent = itself → top level
    const self = await svc.request("PATCH", `/categories/${child.id}`, { as: "admin", body: { parent: child.id } });
    expect(self.status).toBe(200);
    expect(self.body.parent).toBe(0);
    expect(self.body.urls).not.toHaveProperty("up");
    // back under root, then root under its own grandchild → root goes top level (it is already) and keeps its place
    await svc.request("PATCH", `/categories/${child.id}`, { as: "admin", body: { parent: root.id } });
    const loop = await svc.request("PATCH", `/categories/${root.id}`, { as: "admin", body: { parent: grand.id } });
    expect(loop.body.parent).toBe(0);
    const childLoop = await svc.request("PATCH", `/categories/${child.id}`, { as: "admin", body: { parent: grand.id } });
    expect(childLoop.body.parent).toBe(0);
    expect((await svc.get(`/categories/${grand.id}`)).body.url).toBe(`${site}/events/category/child-cat/grand-cat/`);
    // a taken slug with a parent change is made unique instead of refused
    const other = await env.create("categories", { name: "Other root" });
    const moved = await svc.request("PATCH", `/categories/${grand.id}`, { as: "admin", body: { slug: "root-cat", parent: other.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.slug).toBe("root-cat-other-root");
    expect(moved.body.parent).toBe(other.id);
    expect(moved.body.url).toBe(`${site}/events/category/other-root/root-cat-other-root/`);
    // without a parent change the same slug is refused
    expectError(await svc.request("PATCH", `/categories/${grand.id}`, { as: "admin", body: { slug: "root-cat" } }), 400, "duplicate_term_slug");
  });
});

// -------------------------------------------------------------------------------------------------------
describe("capabilities (docs/authorization.md#term-capabilities) and delete", () => {
  let env: Awaited<ReturnType<typeof boot>>;
  let svc: Running;
  let site: string;
  let ns: string;
  beforeAll(async () => { env = await boot(false); ({ svc, site, ns } = env); });
  afterAll(async () => { await svc.stop(); });

  const cases: Array<[Tax, KeyName | "anonymous", number]> = [
    ["categories", "admin", 201], ["categories", "editor", 201], ["categories", "author", 201],
    ["categories", "contributor", 403], ["categories", "subscriber", 403], ["categories", "anonymous", 401],
    ["tags", "admin", 201], ["tags", "editor", 201], ["tags", "author", 403],
    ["tags", "contributor", 403], ["tags", "subscriber", 403], ["tags", "anonymous", 401]
  ];

  test.each(cases)("%s: %s may create (%i), update and delete accordingly", async (tax, who, status) => {
    const as = who === "anonymous" ? undefined : who;
    const created = await svc.request("POST", `/${tax}`, { as, body: { name: `cap ${tax} ${who}` } });
    expect(created.status).toBe(status);
    if (status !== 201) expectError(created, status, "rest_forbidden");
    const target = await env.create(tax, { name: `target ${tax} ${who}` });
    const updated = await svc.request("PATCH", `/${tax}/${target.id}`, { as, body: { description: "new" } });
    expect(updated.status).toBe(status === 201 ? 200 : status);
    const removed = await svc.request("DELETE", `/${tax}/${target.id}`, { as });
    expect(removed.status).toBe(status === 201 ? 200 : status);
    if (status !== 201) expectError(removed, status, "rest_forbidden");
    // reads need no permission
    expect((await svc.request("GET", `/${tax}?hide_empty=0`, { as })).status).toBe(200);
  });

  test("unknown ids are 400 before the permission check, even for a subscriber or anonymous", async () => {
    expectInvalid(await svc.request("DELETE", "/categories/2389", { as: "subscriber" }), "id");
    expectInvalid(await svc.request("DELETE", "/tags/2389", {}), "id");
    expectInvalid(await svc.request("PATCH", "/tags/2389", { as: "contributor", body: { name: "x" } }), "id");
  });

  test("delete answers the record as before deletion; the term is gone; children move up", async () => {
    const top = await env.create("categories", { name: "Del top" });
    const mid = await env.create("categories", { name: "Del mid", parent: top.id, description: "mid" });
    const leaf = await env.create("categories", { name: "Del leaf", parent: mid.id });
    await env.counts({ [mid.id]: 2 });
    const before = (await svc.get(`/categories/${mid.id}`)).body;
    expect(before.count).toBe(2);
    const res = await svc.request("DELETE", `/categories/${mid.id}`, { as: "admin" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
    expect(res.body.urls.up).toBe(`${ns}/categories/${top.id}`);
    expectInvalid(await svc.get(`/categories/${mid.id}`), "id");
    expectInvalid(await svc.request("DELETE", `/categories/${mid.id}`, { as: "admin" }), "id");
    const moved = (await svc.get(`/categories/${leaf.id}`)).body;
    expect(moved.parent).toBe(top.id);
    expect(moved.url).toBe(`${site}/events/category/del-top/del-leaf/`);
    // the deleted term's count no longer keeps its ancestor visible
    const visible = await svc.get("/categories");
    expect(visible.body.categories.map((c: Json) => c.id)).not.toContain(top.id);
  });

  test("a store failure while deleting is 500 rest_cannot_delete", async () => {
    const tag = await env.create("tags", { name: "sticky" });
    const service: Json = svc.broker.getLocalService("taxonomy");
    const original = service.store.removeMany;
    service.store.removeMany = async () => { throw new Error("disk full"); };
    try {
      expectError(await svc.request("DELETE", `/tags/${tag.id}`, { as: "admin" }), 500, "rest_cannot_delete");
    } finally {
      service.store.removeMany = original;
    }
    expect((await svc.get(`/tags/${tag.id}`)).status).toBe(200);
  });

  test("delete works without a running events service", async () => {
    const tag = await env.create("tags", { name: "lonely" });
    const res = await svc.request("DELETE", `/tags/${tag.id}`, { as: "editor" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(tag);
  });
});

// -------------------------------------------------------------------------------------------------------
describe("lists (docs/lists.md#category-and-tag-lists)", () => {
  let env: Awaited<ReturnType<typeof boot>>;
  let svc: Running;
  let site: string;
  let ns: string;
  const ids: Record<string, number> = {};
  const names = (res: { body: Json }, tax: Tax = "categories") => res.body[tax].map((t: Json) => t.name);

  beforeAll(async () => {
    env = await boot(true);
    ({ svc, site, ns } = env);
    // Categories: A (desc z, count 0) > b (count 3) ; C (count 1) ; d-empty (no events) ; e child of d-empty (count 0)
    const mk = async (name: string, extra: Record<string, unknown> = {}) => { ids[name] = (await env.create("categories", { name, ...extra })).id; };
    await mk("A", { description: "zebra" });
    await mk("b", { parent: ids.A, description: "alpha" });
    await mk("C", { description: "Middle" });
    await mk("d-empty");
    await mk("e", { parent: ids["d-empty"], slug: "echo" });
    await env.counts({ [ids.b]: 3, [ids.C]: 1 });
    // Tags t01…t55 (internal creates: trusted caller), every one counted once
    for (let i = 1; i <= 55; i++) {
      const t: Json = await svc.broker.call("taxonomy.tags.create", { name: `t${String(i).padStart(2, "0")}` });
      ids[t.name] = t.id;
    }
    await env.counts(Object.fromEntries(Array.from({ length: 55 }, (_, i) => [ids[`t${String(i + 1).padStart(2, "0")}`], 1])));
    env.links.set(900, { categories: [ids.b, ids["d-empty"]], tags: [ids.t01, ids.t02] });
    env.links.set(901, { categories: [ids.C], tags: [] });
  });
  afterAll(async () => { await svc.stop(); });

  test("hide_empty defaults to true; a parent with count 0 shows when a descendant counts", async () => {
    const res = await svc.get("/categories");
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(["A", "b", "C"]);
    expect(res.body.total).toBe(3);
    expect(res.body.categories[0].count).toBe(0);
    expect(names(await svc.get("/categories?hide_empty=false"))).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(names(await svc.get("/categories?hide_empty=0"))).toHaveLength(5);
    expect(names(await svc.get("/categories?hide_empty=yes"))).toHaveLength(3);
    expectInvalid(await svc.get("/categories?hide_empty=maybe"), "hide_empty");
    // a count on the grandchild level keeps the whole chain visible
    await env.counts({ [ids.e]: 1 });
    expect(names(await svc.get("/categories"))).toEqual(["A", "b", "C", "d-empty", "e"]);
    await env.counts({ [ids.e]: -1 });
    expect(names(await svc.get("/categories"))).toEqual(["A", "b", "C"]);
  });

  test("envelope key order, links and headers (page 2 of per_page 3)", async () => {
    const res = await svc.get("/categories?hide_empty=0&per_page=2&page=2");
    expect(Object.keys(res.body)).toEqual(["rest_url", "total", "total_pages", "categories", "next_rest_url", "previous_rest_url"]);
    expect(res.body.rest_url).toBe(`${ns}/categories/`);
    expect(res.body.total).toBe(5);
    expect(res.body.total_pages).toBe(3);
    expect(names(res)).toEqual(["C", "d-empty"]);
    expect(res.body.next_rest_url).toBe(`${ns}/categories/?page=3`);
    expect(res.body.previous_rest_url).toBe(`${ns}/categories/`);
    expect(res.headers.get("x-tec-total")).toBe("5");
    expect(res.headers.get("x-tec-totalpages")).toBe("3");
    expect(res.headers.get("x-wp-total")).toBe("5");
    expect(res.headers.get("x-wp-totalpages")).toBe("3");
    expect(res.headers.get("link")).toBe(
      `<${ns}/categories?per_page=2&hide_empty=false&page=1>; rel="prev", <${ns}/categories?per_page=2&hide_empty=false&page=3>; rel="next"`
    );
    const third = await svc.get("/categories?hide_empty=0&per_page=2&page=3");
    expect(Object.keys(third.body)).toEqual(["rest_url", "total", "total_pages", "categories", "previous_rest_url"]);
    expect(third.body.previous_rest_url).toBe(`${ns}/categories/?page=2`);
    const first = await svc.get("/categories?hide_empty=0&per_page=2");
    expect(Object.keys(first.body)).toEqual(["rest_url", "total", "total_pages", "categories", "next_rest_url"]);
    expect(first.headers.get("link")).toBe(`<${ns}/categories?per_page=2&hide_empty=false&page=2>; rel="next"`);
    const single = await svc.get("/categories");
    expect(Object.keys(single.body)).toEqual(["rest_url", "total", "total_pages", "categories"]);
    expect(single.headers.get("link")).toBeNull();
  });

  test("a page past the end is 200 with an empty array and the real totals", async () => {
    const res = await svc.get("/categories?page=9");
    expect(res.status).toBe(200);
    expect(res.body.categories).toEqual([]);
    expect(res.body.total).toBe(3);
    expect(res.body.total_pages).toBe(1);
    expect(res.body).not.toHaveProperty("next_rest_url");
    expect(res.body.previous_rest_url).toBe(`${ns}/categories/?page=8`);
  });

  test("an empty list", async () => {
    const res = await svc.get("/categories?search=nothing-like-this");
    expect(res.body).toEqual({ rest_url: `${ns}/categories/`, total: 0, total_pages: 0, categories: [] });
  });

  test("page and per_page: validation, default 10, at most 50", async () => {
    for (const bad of ["foo", "-1", "0", "1.5"]) {
      expectInvalid(await svc.get(`/tags?page=${bad}`), "page");
      expectInvalid(await svc.get(`/tags?per_page=${bad}`), "per_page");
    }
    const def = await svc.get("/tags");
    expect(def.body.tags).toHaveLength(10);
    expect(def.body.total).toBe(55);
    expect(def.body.total_pages).toBe(6);
    const max = await svc.get("/tags?per_page=100");
    expect(max.body.tags).toHaveLength(50);
    expect(max.body.total_pages).toBe(2);
    expect(max.body.next_rest_url).toBe(`${ns}/tags/?page=2`);
    const second = await svc.get("/tags?per_page=100&page=2.0");
    expect(second.body.tags.map((t: Json) => t.name)).toEqual(["t51", "t52", "t53", "t54", "t55"]);
    const both = await svc.get("/tags?page=2&per_page=2");
    expect(both.body.tags.map((t: Json) => t.name)).toEqual(["t03", "t04"]);
  });

  test("search matches name or slug, case-insensitively; empty is 400", async () => {
    expect(names(await svc.get("/categories?hide_empty=0&search=EMP"))).toEqual(["d-empty"]);
    expect(names(await svc.get("/categories?hide_empty=0&search=ech"))).toEqual(["e"]);
    expect(names(await svc.get("/categories?search=c"))).toEqual(["C"]);
    expectInvalid(await svc.get("/categories?search="), "search");
  });

  test("include and exclude take ids and slugs; unknown items are 400", async () => {
    expect(names(await svc.get(`/categories?hide_empty=0&include=${ids.C},echo`))).toEqual(["C", "e"]);
    expect(names(await svc.get(`/categories?hide_empty=0&include[]=${ids.C}&include[]=a`))).toEqual(["A", "C"]);
    expect(names(await svc.get(`/categories?include=${ids.C},echo`))).toEqual(["C"]);
    expect(names(await svc.get(`/categories?hide_empty=0&exclude=${ids.A},d-empty`))).toEqual(["b", "C", "e"]);
    expect(names(await svc.get(`/categories?hide_empty=0&include=${ids.A},${ids.b}&exclude=b`))).toEqual(["A"]);
    expectInvalid(await svc.get("/categories?include=2389,1235,3434"), "include");
    expectInvalid(await svc.get(`/categories?include=${ids.t01}`), "include");
    expectInvalid(await svc.get("/tags?include=nope"), "include");
    expectInvalid(await svc.get("/tags?exclude=2389"), "exclude");
    expectInvalid(await svc.get("/tags?exclude="), "exclude");
    expectInvalid(await svc.get("/tags?include=2389&exclude=2389"), "include", "exclude");
    // digits past the safe integers name no term on any store (PostgreSQL's bigint refused them: 500)
    expectInvalid(await svc.get("/categories?include=99999999999999999999"), "include");
    expectInvalid(await svc.get(`/tags?hide_empty=0&exclude=${ids.t01},99999999999999999999`), "exclude");
  });

  test("order and orderby over every attribute, ties by id", async () => {
    const q = (s: string) => svc.get(`/categories?hide_empty=0&${s}`).then(r => names(r));
    expect(await q("orderby=name")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(await q("orderby=name&order=desc")).toEqual(["e", "d-empty", "C", "b", "A"]);
    expect(await q("orderby=name&order=ASC")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(await q("orderby=name&order=whatever")).toEqual(["e", "d-empty", "C", "b", "A"]);
    expect(await q("orderby=id")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(await q("orderby=term_id&order=desc")).toEqual(["e", "d-empty", "C", "b", "A"]);
    expect(await q("orderby=slug&order=desc")).toEqual(["e", "d-empty", "C", "b", "A"]);
    expect(await q("orderby=slug")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(await q("orderby=description")).toEqual(["d-empty", "e", "b", "C", "A"]);
    expect(await q("orderby=count&order=desc")).toEqual(["b", "C", "A", "d-empty", "e"]);
    expect(await q("orderby=count")).toEqual(["A", "d-empty", "e", "C", "b"]);
    expect(await q("orderby=parent")).toEqual(["A", "C", "d-empty", "b", "e"]);
    expect(await q("orderby=term_group&order=desc")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(await q("orderby=none")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expect(await q("orderby=bogus&order=desc")).toEqual(["e", "d-empty", "C", "b", "A"]);
    expect(await q(`orderby=include&include=${ids.e},${ids.A},${ids.C}`)).toEqual(["e", "A", "C"]);
    expect(await q(`orderby=include&include=${ids.e},${ids.A},${ids.C}&order=desc`)).toEqual(["C", "A", "e"]);
    expect(await q(`orderby=include&include=${ids.e},${ids.A},${ids.C}&per_page=1&page=2`)).toEqual(["A"]);
    expect(await q("orderby=include")).toEqual(["A", "b", "C", "d-empty", "e"]);
    expectInvalid(await svc.get("/categories?order="), "order");
    expectInvalid(await svc.get("/categories?orderby="), "orderby");
  });

  test("parent: direct children of an existing category; ignored on tags", async () => {
    expect(names(await svc.get(`/categories?parent=${ids.A}`))).toEqual(["b"]);
    expect(names(await svc.get(`/categories?parent=${ids["d-empty"]}`))).toEqual([]);
    expect(names(await svc.get(`/categories?parent=${ids["d-empty"]}&hide_empty=0`))).toEqual(["e"]);
    expectInvalid(await svc.get("/categories?parent="), "parent");
    expectInvalid(await svc.get("/categories?parent=2389"), "parent");
    expectInvalid(await svc.get(`/categories?parent=${ids.t01}`), "parent");
    const tags = await svc.get("/tags?parent=2389");
    expect(tags.status).toBe(200);
    expect(tags.body.total).toBe(55);
  });

  test("post / event: terms of that event, hide_empty applies, event wins", async () => {
    expect(names(await svc.get("/categories?post=900"))).toEqual(["b"]);
    expect(names(await svc.get("/categories?post=900&hide_empty=0"))).toEqual(["b", "d-empty"]);
    expect(names(await svc.get("/tags?event=900"), "tags")).toEqual(["t01", "t02"]);
    expect(names(await svc.get("/categories?event=901"))).toEqual(["C"]);
    expect(names(await svc.get("/categories?post=900&event=901"))).toEqual(["C"]);
    expect(names(await svc.get("/categories?event=900&post=901"))).toEqual(["b"]);
    expect((await svc.get("/tags?post=901")).body.tags).toEqual([]);
    expectInvalid(await svc.get("/categories?post="), "post");
    expectInvalid(await svc.get("/categories?post=23"), "post");
    expectInvalid(await svc.get("/categories?post=foo"), "post");
    expectInvalid(await svc.get("/tags?event=23"), "event");
    expectInvalid(await svc.get("/tags?event=23&post=24"), "event", "post");
  });

  test("slug: the term with exactly that (normalised) slug; empty is 400", async () => {
    expect(names(await svc.get("/categories?slug=echo&hide_empty=0"))).toEqual(["e"]);
    expect(names(await svc.get("/categories?slug=D%20Empty&hide_empty=0"))).toEqual(["d-empty"]);
    expect(names(await svc.get("/categories?slug=ech&hide_empty=0"))).toEqual([]);
    expect(names(await svc.get("/tags?slug=t07"), "tags")).toEqual(["t07"]);
    expectInvalid(await svc.get("/categories?slug="), "slug");
  });

  test("filters combine; term lists ignore unknown parameters", async () => {
    expect(names(await svc.get(`/categories?hide_empty=0&search=e&exclude=${ids.e}&whatever=1`))).toEqual(["d-empty"]);
  });

  test("links keep the path root and carry i18n_language when sent (C8: language in built URLs)", async () => {
    const res = await svc.get(`${svc.base}/fr/wp-json/calendar/events/v1/tags?per_page=20&page=2&i18n_language=de`);
    const frNs = `${site}/fr/wp-json/calendar/events/v1`;
    expect(res.body.rest_url).toBe(`${frNs}/tags/?i18n_language=de`);
    expect(res.body.next_rest_url).toBe(`${frNs}/tags/?i18n_language=de&page=3`);
    expect(res.body.previous_rest_url).toBe(`${frNs}/tags/?i18n_language=de`);
    expect(res.body.tags[0].urls.self).toBe(`${frNs}/tags/${ids.t21}`);
    expect(res.headers.get("link")).toContain(`<${frNs}/tags?per_page=20&i18n_language=de&page=1>; rel="prev"`);
  });
});

// -------------------------------------------------------------------------------------------------------
describe("internal actions", () => {
  let env: Awaited<ReturnType<typeof boot>>;
  let svc: Running;
  let ns: string;
  const call = (action: string, params: Record<string, unknown>) => svc.broker.call(`taxonomy.${action}`, params) as Promise<Json>;
  beforeAll(async () => { env = await boot(true); ({ svc, ns } = env); });
  afterAll(async () => { await svc.stop(); });

  test("resolveForEvent: ids, slugs, names, new terms; duplicates collapse (docs/records.md#categories-and-tags-on-events)", async () => {
    const music = await env.create("categories", { name: "Music" });
    const rock = await env.create("categories", { name: "Rock & Roll", parent: music.id });
    const tag = await env.create("tags", { name: "Outdoor" });
    const ids = await call("resolveForEvent", { taxonomy: "category", value: ` ${music.id} , rock-roll, MUSIC, Brand New, 2389, ${tag.id}, , brand new` });
    expect(ids.slice(0, 2)).toEqual([music.id, rock.id]);
    expect(ids).toHaveLength(3);
    const created = (await svc.get(`/categories/${ids[2]}`)).body;
    expect(created).toMatchObject({ name: "Brand New", slug: "brand-new", parent: 0, count: 0 });
    expect(await call("resolveForEvent", { taxonomy: "category", value: [String(rock.id), "Rock &amp; Roll", "rock &amp; roll"] })).toEqual([rock.id]);
    expect(await call("resolveForEvent", { taxonomy: "category", value: ["Rock & Roll"] })).toEqual([rock.id]);
    expect(await call("resolveForEvent", { taxonomy: "tag", value: [tag.id, music.id, "outdoor"] })).toEqual([tag.id]);
    expect(await call("resolveForEvent", { taxonomy: "tag", value: "" })).toEqual([]);
    expect(await call("resolveForEvent", { taxonomy: "tag", value: [] })).toEqual([]);
    expect(await call("resolveForEvent", { taxonomy: "tag", value: "<b></b>" })).toEqual([]);
  });

  test("resolveEventTerms: each sent input resolved as resolveForEvent resolves it, ids only or with names (categories made first)", async () => {
    const jazz = await env.create("categories", { name: "Jazz" });
    const blues = await env.create("categories", { name: "Blues" });
    const night = await env.create("tags", { name: "Night" });
    // ids only: each input keeps its own taxonomy's terms, in order, once; unknown ids dropped
    expect(await call("resolveEventTerms", { categories: [blues.id, night.id, jazz.id, blues.id, 98765], tags: `${night.id}, ${jazz.id}` }))
      .toEqual({ categories: [blues.id, jazz.id], tags: [night.id] });
    expect(await call("resolveEventTerms", { tags: [night.id] })).toEqual({ tags: [night.id] });
    expect(await call("resolveEventTerms", { categories: [], tags: "" })).toEqual({ categories: [], tags: [] });
    expect(await call("resolveEventTerms", {})).toEqual({});
    // names: the same answers as resolveForEvent's, the new category made before the new tag
    const both = await call("resolveEventTerms", { categories: ["jazz", "Swing Era"], tags: [night.id, "Late Show"] });
    expect(both.categories[0]).toBe(jazz.id);
    expect(both.tags[0]).toBe(night.id);
    expect(both.categories[1]).toBeLessThan(both.tags[1]);
    expect((await svc.get(`/categories/${both.categories[1]}`)).body).toMatchObject({ name: "Swing Era" });
    expect((await svc.get(`/tags/${both.tags[1]}`)).body).toMatchObject({ name: "Late Show" });
    expect(await call("resolveEventTerms", { categories: ["Swing Era"], tags: ["late show"] })).toEqual({ categories: [both.categories[1]], tags: [both.tags[1]] });
  });

  test("resolveForEvent creates a new name once when asked concurrently", async () => {
    const [a, b] = await Promise.all([
      call("resolveForEvent", { taxonomy: "tag", value: "Concurrent" }),
      call("resolveForEvent", { taxonomy: "tag", value: ["concurrent"] })
    ]);
    expect(a).toEqual(b);
    const list = await svc.get("/tags?hide_empty=0&search=concurrent");
    expect(list.body.total).toBe(1);
  });

  test("resolveFilter: ids and slugs, categories with every descendant; unknown → 400 naming the parameter", async () => {
    const top = await env.create("categories", { name: "F top" });
    const mid = await env.create("categories", { name: "F mid", parent: top.id });
    const leaf = await env.create("categories", { name: "F leaf", parent: mid.id });
    const other = await env.create("categories", { name: "F other" });
    const ids = await call("resolveFilter", { taxonomy: "category", values: ["f-top", String(other.id)], param: "categories" });
    expect([...ids].sort()).toEqual([top.id, mid.id, leaf.id, other.id].sort());
    expect(await call("resolveFilter", { taxonomy: "category", values: [String(leaf.id)], param: "categories" })).toEqual([leaf.id]);
    const t = await env.create("tags", { name: "F tag" });
    expect(await call("resolveFilter", { taxonomy: "tag", values: ["f-tag", String(t.id)], param: "tags" })).toEqual([t.id]);
    expect(await call("resolveFilter", { taxonomy: "tag", values: [], param: "tags" })).toEqual([]);
    await expect(call("resolveFilter", { taxonomy: "tag", values: ["f-top"], param: "tags" }))
      .rejects.toMatchObject({ type: "rest_invalid_param", code: 400, data: { params: { tags: expect.anything() } } });
    await expect(call("resolveFilter", { taxonomy: "category", values: [String(t.id)], param: "categories" }))
      .rejects.toMatchObject({ type: "rest_invalid_param", data: { params: { categories: expect.anything() } } });
  });

  test("embed: the docs/records.md#embedded-terms shape keyed by id, both taxonomies in one call", async () => {
    const parent = await env.create("categories", { name: "E parent", description: "Live shows" });
    const child = await env.create("categories", { name: "E child", parent: parent.id });
    const tag = await env.create("tags", { name: "E tag" });
    await env.counts({ [child.id]: 2 });
    const out = await call("embed", { ids: [child.id, tag.id, 2389, child.id, parent.id] });
    expect(Object.keys(out).sort()).toEqual([String(child.id), String(tag.id), String(parent.id)].sort());
    expect(out[String(parent.id)]).toEqual({
      name: "E parent", slug: "e-parent", term_group: 0, term_taxonomy_id: parent.id, taxonomy: "tribe_events_cat",
      description: "Live shows", parent: 0, count: 0, filter: "raw", id: parent.id,
      urls: { self: `${ns}/categories/${parent.id}`, collection: `${ns}/categories` },
      i18n_language: "en", translations: ["en"]
    });
    expect(out[String(child.id)].count).toBe(2);
    expect(out[String(child.id)].urls.up).toBe(`${ns}/categories/${parent.id}`);
    expect(out[String(tag.id)]).toMatchObject({ taxonomy: "post_tag", parent: 0, urls: { self: `${ns}/tags/${tag.id}` } });
    // meta from the caller is used when present
    const fr = await svc.broker.call("taxonomy.embed", { ids: [tag.id] }, { meta: { apiRoot: "http://x/fr/wp-json", site: "http://x/fr" } }) as Json;
    expect(fr[String(tag.id)].urls.self).toBe(`http://x/fr/wp-json/calendar/events/v1/tags/${tag.id}`);
    expect(await call("embed", { ids: [] })).toEqual({});
  });

  test("counts follow published event rows: hide_empty of ancestors, moves, deletes and unknown ids", async () => {
    const a = await env.create("categories", { name: "Count A" });
    const b = await env.create("categories", { name: "Count B", parent: a.id });
    const c = await env.create("categories", { name: "Count C" });
    const visible = async () => (await svc.get("/categories?search=count")).body.categories.map((t: Json) => t.name);
    expect(await visible()).toEqual([]);
    const [e1, e2] = [await env.publish([b.id, 2389]), await env.publish([b.id])];
    expect((await svc.get(`/categories/${b.id}`)).body.count).toBe(2);
    expect((await svc.get(`/categories/${a.id}`)).body.count).toBe(0);
    expect(await visible()).toEqual(["Count A", "Count B"]);
    // moving the counted child carries its weight to the new parent
    await svc.request("PATCH", `/categories/${b.id}`, { as: "admin", body: { parent: c.id } });
    expect(await visible()).toEqual(["Count B", "Count C"]);
    await env.unpublish(e1);
    expect((await svc.get(`/categories/${b.id}`)).body.count).toBe(1);
    expect(await visible()).toEqual(["Count B", "Count C"]);
    await env.unpublish(e2);
    expect(await visible()).toEqual([]);
    // a deleted child's count leaves its ancestors; its children move up with theirs
    const d = await env.create("categories", { name: "Count D", parent: c.id });
    const e = await env.create("categories", { name: "Count E", parent: d.id });
    await env.publish([d.id]);
    await env.publish([e.id]);
    expect((await svc.get(`/categories/${c.id}`)).body.count).toBe(0);
    expect(await visible()).toEqual(["Count C", "Count D", "Count E"]);
    await svc.request("DELETE", `/categories/${d.id}`, { as: "admin" });
    expect(await visible()).toEqual(["Count C", "Count E"]);
    await svc.request("DELETE", `/categories/${e.id}`, { as: "admin" });
    expect(await visible()).toEqual([]);
  });

  test("delete unlinks the term from events before answering", async () => {
    const tag = await env.create("tags", { name: "Unlink me" });
    const cat = await env.create("categories", { name: "Unlink cat" });
    await svc.request("DELETE", `/tags/${tag.id}`, { as: "admin" });
    await svc.request("DELETE", `/categories/${cat.id}`, { as: "admin" });
    expect(env.unlinked).toEqual(expect.arrayContaining([{ taxonomy: "tag", id: tag.id }, { taxonomy: "category", id: cat.id }]));
  });

  test("records keep the language they were created in and a modified time", async () => {
    const t = await svc.request("POST", "/tags?i18n_language=fr", { as: "admin", body: { name: "Langue" } });
    expect(t.status).toBe(201);
    const doc: Json = await (svc.broker.getLocalService("taxonomy") as Json).store.findOne({ _id: t.body.id });
    expect(doc.lang).toBe("fr");
    expect(doc.modified_utc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
});
