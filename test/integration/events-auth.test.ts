/**
 * Who may do what to events, through HTTP (docs/authorization.md#per-record-rules for events,
 * #list-visibility, #password-protected-records; docs/records.md#password-protected-records,
 * #reading-an-event; D26: lists show everyone's non-public records to editors of the kind; D34: search never matches through hidden fields): reads by status and ownership, updates and deletes own vs others', anonymous 401 vs
 * 403, list visibility per role, and password-protected events.
 */
import { startService, Running, KeyName, USER_IDS } from "../helpers/harness";
import { createEvent, expectError, ids, token } from "../helpers/events";
import type { Json } from "../helpers/json";

type Who = KeyName | null;
const ALL: Who[] = ["admin", "editor", "author", "author2", "contributor", "contributor2", "subscriber", null];

describe("events: permissions", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService(); });
  afterAll(async () => { await svc.stop(); });

  const as = (who: Who) => who ?? undefined;
  /** An event owned by `owner` in `status` (created by the admin with `author`, so any status is possible). */
  const owned = (owner: KeyName, status: string, extra: Record<string, unknown> = {}) =>
    createEvent(svc, { title: `${owner} ${status}`, author: USER_IDS[owner], status, ...(status === "future" ? { date: "+5 days" } : {}), ...extra });

  describe("GET one event (read_post)", () => {
    test.each(["draft", "pending", "future", "private"])("a %s event: admin, editor and the owner only", async status => {
      const ev = await owned("author", status);
      expect(ev.status).toBe(status);
      const allowed: Who[] = ["admin", "editor", "author"];
      for (const who of ALL) {
        const res = await svc.get(`/events/${ev.id}`, as(who));
        if (allowed.includes(who)) expect([who, res.status]).toEqual([who, 200]);
        else expectError(res, 403, "event-not-accessible");
      }
    });

    test("own non-public events for a contributor and a subscriber (imported data); published events for everyone", async () => {
      for (const owner of ["contributor", "subscriber"] as const) {
        const ev = await owned(owner, "draft");
        expect((await svc.get(`/events/${ev.id}`, owner)).status).toBe(200);
        expectError(await svc.get(`/events/${ev.id}`, owner === "contributor" ? "contributor2" : "author"), 403, "event-not-accessible");
      }
      const pub = await owned("author", "publish");
      for (const who of ALL) expect((await svc.get(`/events/${pub.id}`, as(who))).status).toBe(200);
    });

    test("a trashed event is 403 event-no-longer-available for everyone, before any capability check", async () => {
      const ev = await owned("author", "draft");
      await svc.request("DELETE", `/events/${ev.id}`, { as: "author" });
      for (const who of ALL) expectError(await svc.get(`/events/${ev.id}`, as(who)), 403, "event-no-longer-available");
    });

    test("read errors: unknown id 404 (id 0 too), non-event id 400, non-numeric id no route", async () => {
      const res = await svc.get("/events/765432");
      expectError(res, 404, "rest-event-not-found");
      expect(res.body.message).toContain("765432");
      expectError(await svc.get("/events/0"), 404, "rest-event-not-found");
      const img = (await createEvent(svc, { image: "https://cdn.example.org/auth.png" })).image.id;
      expectError(await svc.get(`/events/${img}`), 400, "rest-invalid-event-id");
      expectError(await svc.get("/events/12abc"), 404, "rest_no_route");
      expectError(await svc.get("/events/-1"), 404, "rest_no_route");
    });
  });

  describe("update (edit_post) and delete (delete_post)", () => {
    const matrix: Array<[string, KeyName, string, Who[]]> = [
      ["own draft", "author", "draft", ["admin", "editor", "author"]],
      ["own pending", "contributor", "pending", ["admin", "editor", "contributor"]],
      ["own private", "contributor", "private", ["admin", "editor", "contributor"]],
      ["own published", "contributor", "publish", ["admin", "editor"]],
      ["own future", "contributor", "future", ["admin", "editor"]],
      ["own published", "author", "publish", ["admin", "editor", "author"]],
      ["own future", "author", "future", ["admin", "editor", "author"]],
      ["admin's published", "admin", "publish", ["admin", "editor"]],
      ["editor's draft", "editor", "draft", ["admin", "editor"]],
      ["subscriber's draft", "subscriber", "draft", ["admin", "editor"]]
    ];

    test.each(matrix)("update %s (%s, %s): allowed for %j", async (_label, owner, status, allowed) => {
      const ev = await owned(owner, status);
      for (const who of ALL) {
        const res = await svc.request("PATCH", `/events/${ev.id}`, { as: as(who), body: { excerpt: `by ${who}` } });
        if (allowed.includes(who)) expect([who, res.status]).toEqual([who, 200]);
        else expectError(res, who === null ? 401 : 403, "rest_forbidden");
      }
    });

    test.each(matrix)("delete %s (%s, %s): allowed for %j", async (_label, owner, status, allowed) => {
      for (const who of ALL) {
        const ev = await owned(owner, status);
        const res = await svc.request("DELETE", `/events/${ev.id}`, { as: as(who) });
        if (allowed.includes(who)) expect([who, res.status, res.body.status]).toEqual([who, 200, "trash"]);
        else expectError(res, who === null ? 401 : 403, "rest_forbidden");
      }
    });

    test("a trashed event follows its prior status for update and delete; delete of the trashed one is 410 for those allowed", async () => {
      const ev = await owned("author", "publish");
      await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" });
      expectError(await svc.request("PATCH", `/events/${ev.id}`, { as: "author2", body: { title: "x" } }), 403, "rest_forbidden");
      expect((await svc.request("PATCH", `/events/${ev.id}`, { as: "author", body: { title: "x" } })).status).toBe(200);
      expectError(await svc.request("DELETE", `/events/${ev.id}`, { as: "author" }), 410, "event-is-in-trash");
      expectError(await svc.request("DELETE", `/events/${ev.id}`, { as: "author2" }), 403, "rest_forbidden");
    });
  });

  describe("list visibility (docs/authorization.md#list-visibility, D26: lists show everyone's non-public records to editors of the kind)", () => {
    let tok: string;
    const evs: Record<string, number> = {};
    beforeAll(async () => {
      tok = token("vis");
      for (const [owner, status] of [["author", "publish"], ["author", "draft"], ["contributor", "pending"], ["editor", "private"], ["admin", "future"], ["author", "trash"]] as Array<[KeyName, string]>) {
        evs[status] = (await owned(owner, status, { title: `${tok} ${status}` })).id;
      }
    });
    const listed = async (who: Who, query = "") => {
      const res = await svc.get(`/events?search=${tok}${query}`, as(who));
      return res.status === 200 ? ids(res).sort() : res.status;
    };

    test("anonymous callers and subscribers see published events only; asking for another status is 400", async () => {
      for (const who of [null, "subscriber"] as Who[]) {
        expect(await listed(who)).toEqual([evs.publish]);
        expect(await listed(who, "&status=publish")).toEqual([evs.publish]);
        expect(await listed(who, "&status=draft")).toBe(400);
        expect(await listed(who, "&status=publish,draft")).toBe(400);
      }
    });

    test("contributors and above see every status but trash and auto-draft, from all authors (D26: lists show everyone's non-public records to editors of the kind)", async () => {
      const all = [evs.publish, evs.draft, evs.pending, evs.private, evs.future].sort();
      for (const who of ["contributor", "author", "editor", "admin"] as Who[]) expect(await listed(who)).toEqual(all);
      expect(await listed("contributor", "&status=draft, pending")).toEqual([evs.draft, evs.pending].sort());
      expect(await listed("author", "&status=trash")).toEqual([evs.trash]);
      expect(await listed("admin", "&status[]=private&status[]=future")).toEqual([evs.private, evs.future].sort());
      expect(await listed("admin", "&status=any")).toBe(400);
      expect(await listed("admin", "&status=bogus,publish")).toBe(400);
    });
  });

  describe("password-protected events (docs/records.md#password-protected-records, docs/authorization.md#password-protected-records, D32: setting a password; D34: search never matches through hidden fields)", () => {
    let tok: string;
    let locked: Json;
    let open: Json;
    beforeAll(async () => {
      tok = token("pw");
      locked = await createEvent(svc, {
        title: `${tok} Gala`, description: "A zebra parade", excerpt: "Stripes", cost: "20$", website: "http://gala.example.org",
        show_map: true, featured: true, sticky: true, all_day: true, image: "https://cdn.example.org/gala.png", post_password: "Open Sesame"
      }, "author");
      open = await createEvent(svc, { title: `${tok} Picnic`, description: "zebra crossing nearby" }, "author");
    });

    const BLANKED = {
      description: "", excerpt: "", image: false, all_day: null, cost: "",
      cost_details: { currency_symbol: "", currency_position: "", currency_code: "", values: [] },
      website: "", show_map: null, show_map_link: null, hide_from_listings: null, sticky: null, featured: null, ticketed: null,
      categories: [], tags: [], venue: [], organizer: [], custom_fields: []
    };
    const inList = async (query: string, who: Who = null) => {
      const res = await svc.get(`/events?search=${encodeURIComponent(tok)}${query}`, as(who));
      expect(res.status).toBe(200);
      return res.body.events.find((e: Json) => e.id === locked.id);
    };

    test("lists blank the protected fields (exact values and order) unless the caller may see them", async () => {
      const blank = await inList("");
      expect(blank).toEqual(expect.objectContaining({ ...BLANKED, title: `${tok} Gala`, slug: locked.slug, start_date: locked.start_date }));
      expect(Object.keys(blank.cost_details)).toEqual(["currency_symbol", "currency_position", "currency_code", "values"]);
      expect(await inList("&password=open sesame")).toEqual(expect.objectContaining(BLANKED));
      expect(await inList("", "admin")).toEqual(expect.objectContaining(BLANKED));
      expect(await inList("&context=edit", "author2")).toEqual(expect.objectContaining(BLANKED));
      for (const [query, who] of [["&password=Open%20Sesame", null], ["&context=edit", "admin"], ["&context=edit", "author"], ["&password=Open%20Sesame", "subscriber"]] as Array<[string, Who]>) {
        const seen = await inList(query, who);
        expect([query, who, seen.description, seen.cost, seen.featured]).toEqual([query, who, "<p>A zebra parade</p>", "20$", true]);
      }
    });

    test("single GET: 403 event-password-protected unless the password matches or context=edit with edit_post (by id and by slug)", async () => {
      for (const path of [`/events/${locked.id}`, `/events/by-slug/${locked.slug}`]) {
        expectError(await svc.get(path), 403, "event-password-protected");
        expectError(await svc.get(`${path}?password=wrong`), 403, "event-password-protected");
        expectError(await svc.get(`${path}?password=open%20sesame`), 403, "event-password-protected");
        expectError(await svc.get(path, "admin"), 403, "event-password-protected");
        expectError(await svc.get(`${path}?context=edit`, "author2"), 403, "event-password-protected");
        expectError(await svc.get(`${path}?password=`), 400, "rest_invalid_param");
        const ok = await svc.get(`${path}?password=Open%20Sesame`);
        expect([ok.status, ok.body.description]).toEqual([200, "<p>A zebra parade</p>"]);
        expect((await svc.get(`${path}?context=edit`, "admin")).status).toBe(200);
        expect((await svc.get(`${path}?context=edit`, "author")).status).toBe(200);
      }
    });

    test("create and update answers are never blanked; post_password is never returned", async () => {
      const upd = await svc.request("PATCH", `/events/${locked.id}`, { as: "author", body: { excerpt: "Stripes" } });
      expect([upd.body.description, upd.body.featured]).toEqual(["<p>A zebra parade</p>", true]);
      const list = await svc.get(`/events?search=${tok}&context=edit`, "admin");
      expect(JSON.stringify([upd.body, list.body])).not.toMatch(/post_password|Open Sesame/);
    });

    test("D34: search matches a protected event only through its title for callers who would see it blanked", async () => {
      const found = async (search: string, query = "", who: Who = null) => {
        const res = await svc.get(`/events?search=${encodeURIComponent(search)}${query}`, as(who));
        return ids(res).filter(id => id === locked.id || id === open.id).sort();
      };
      expect(await found("zebra")).toEqual([open.id]);
      expect(await found("Stripes")).toEqual([]);
      expect(await found(`${tok} gala`)).toEqual([locked.id]);
      expect(await found("zebra", "", "admin")).toEqual([open.id]);
      expect(await found("zebra", "&password=Open%20Sesame")).toEqual([locked.id, open.id].sort());
      expect(await found("zebra", "&context=edit", "admin")).toEqual([locked.id, open.id].sort());
      expect(await found("zebra", "&context=edit", "author")).toEqual([locked.id, open.id].sort());
      expect(await found("zebra", "&context=edit", "author2")).toEqual([open.id]);
      expect(await found(`${tok} -zebra`)).toEqual([locked.id]);
      expect(await found(`${tok} -zebra`, "&password=Open%20Sesame")).toEqual([]);
    });
  });
});
