/**
 * The behaviour venues and organizers share (docs/records.md#venues-and-organizers, docs/lists.md#venue-and-organizer-lists, docs/errors.md#venue-and-organizer-errors, docs/authorization.md),
 * tested through HTTP and the bus for one kind. venues.test.ts and organizers.test.ts run it, each with
 * its kind, and add what only their kind has.
 */
import { startService, Running, KeyName, USER_IDS } from "../helpers/harness";
import { registerFakeEvents, FakeEvents, dbFromNow } from "../helpers/fake-events";
import type { Json } from "../helpers/json";

export interface KindConfig {
  kind: "venue" | "organizer";
  plural: "venues" | "organizers";
  nameField: "venue" | "organizer";
  /** The other linked kind (D2: its ids are "not a venue"). */
  otherPlural: "venues" | "organizers";
  otherNameField: "venue" | "organizer";
  /** Values for the kind's own fields, all shown in the output. */
  sample: Record<string, string>;
  /** The kind's fields in output order. */
  outputFields: string[];
  /** Keys every record carries after `global_id_lineage` is not last: venue map flags. */
  mapFlags: boolean;
}

export interface LinkedEnv {
  svc: Running;
  events: FakeEvents;
}

/** Starts the gateway with venues and organizers (no real events service) and a fake `events` service. */
export function useLinkedService(): LinkedEnv {
  const env = {} as LinkedEnv;
  beforeAll(async () => {
    env.svc = await startService({ SERVICES: "api,venues,organizers,i18n,taxonomy" });
    env.events = registerFakeEvents(env.svc.broker);
    await env.svc.broker.waitForServices(["events", "venues", "organizers"]);
  });
  afterAll(async () => {
    await env.svc.stop();
  });
  return env;
}

let counter = 0;
/** A word no other record contains (letters and digits only, so it is one search fragment). */
export function token(): string {
  counter += 1;
  return `Qz${Date.now().toString(36)}x${counter}`;
}

/** `{ns}` as the service writes it in links (BASE_URL defaults to localhost). */
const linkNs = (): string => env_ns.replace("127.0.0.1", "localhost");
let env_ns = "";

const BASE_KEYS = ["id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url"];

export function linkedSuite(env: LinkedEnv, k: KindConfig): void {
  beforeAll(() => {
    env_ns = env.svc.ns;
  });
  const req = (method: string, path: string, as?: KeyName, body?: unknown) => env.svc.request(method, path, { as, body });
  const make = async (as: KeyName, body: Record<string, unknown>) => {
    const res = await req("POST", `/${k.plural}`, as, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const named = (extra: Record<string, unknown> = {}) => ({ [k.nameField]: `${k.kind} ${token()}`, ...extra });
  const expectError = (res: { status: number; body: Json }, status: number, code: string) => {
    expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
    expect(res.body.data.status).toBe(status);
  };
  const expectInvalid = (res: { status: number; body: Json }, ...params: string[]) => {
    expectError(res, 400, "rest_invalid_param");
    for (const p of params) expect(res.body.data.params).toHaveProperty(p);
  };

  describe(`${k.plural}: create`, () => {
    test("201 with the record: key order, author as string, slug, permalink, global id, no json_ld", async () => {
      const name = `Hall ${token()}`;
      const res = await req("POST", `/${k.plural}`, "admin", { [k.nameField]: `  ${name}  `, description: "A room.", ...k.sample });
      expect(res.status).toBe(201);
      const r = res.body;
      const slug = name.toLowerCase().replace(/ /g, "-");
      expect(Object.keys(r)).toEqual([...BASE_KEYS, k.nameField, "description", "slug", ...k.outputFields,
        ...(k.mapFlags ? ["show_map", "show_map_link"] : []), "global_id", "global_id_lineage", "custom_fields", "meta", "i18n_language", "translations"]);
      expect(r).toMatchObject({
        author: String(USER_IDS.admin), status: "publish", [k.nameField]: name, description: "<p>A room.</p>", slug,
        global_id: `localhost?id=${r.id}`, global_id_lineage: [`localhost?id=${r.id}`], ...k.sample
      });
      expect(r.url).toMatch(new RegExp(`/${k.kind}/${slug}/$`));
      expect(r.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(r).not.toHaveProperty("json_ld");
      expect(r).not.toHaveProperty("excerpt");
      expect(r).not.toHaveProperty("image");
      expect(r).not.toHaveProperty("post_password");
    });

    test("empty values are dropped; only the name is needed", async () => {
      const r = await make("admin", named());
      for (const f of [...k.outputFields, "description", "excerpt", "image"]) expect(r).not.toHaveProperty(f);
    });

    test("the name is required (400 before 401) and must be a non-empty string", async () => {
      const missing = await req("POST", `/${k.plural}`, undefined, { description: "x" });
      expectError(missing, 400, "rest_missing_callback_param");
      expect(missing.body.data.params).toEqual([k.nameField]);
      expectError(await req("POST", `/${k.plural}`, "admin", { [k.nameField]: null }), 400, "rest_missing_callback_param");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", { [k.nameField]: "" }), k.nameField);
      expectInvalid(await req("POST", `/${k.plural}`, "admin", { [k.nameField]: "   " }), k.nameField);
      expectInvalid(await req("POST", `/${k.plural}`, "admin", { [k.nameField]: 12 }), k.nameField);
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ description: 5, phone: true })), "description", "phone");
    });

    test("rest_invalid_param for a bad author, date, date_utc, status, website or image", async () => {
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ author: 999 })), "author");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ author: "abc" })), "author");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ date: "before my birthday" })), "date");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ date_utc: "nope" })), "date_utc");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ status: "any" })), "status");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ website: "not a url" })), "website");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ image: "foo bar" })), "image");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ image: 999999 })), "image");
      expectInvalid(await req("POST", `/${k.plural}`, "admin", named({ image: "http://x.example.org/image?f=a.jpg" })), "image");
      // validation comes before permission (D23)
      expectInvalid(await req("POST", `/${k.plural}`, undefined, named({ status: "nope" })), "status");
    });

    test("permission: anonymous 401, subscriber 403, contributor and above create", async () => {
      expectError(await req("POST", `/${k.plural}`, undefined, named()), 401, "rest_forbidden");
      expectError(await req("POST", `/${k.plural}`, "subscriber", named()), 403, "rest_forbidden");
      expect((await make("contributor", named())).status).toBe("draft");
      expect((await make("contributor", named({ status: "publish" }))).status).toBe("pending");
      expect((await make("contributor", named({ status: "private" }))).status).toBe("private");
      expect((await make("author", named())).status).toBe("publish");
      expect((await make("editor", named({ status: "draft" }))).status).toBe("draft");
    });

    test("author, dates: date in the site zone, date_utc as UTC, timestamps accepted", async () => {
      const a = await make("admin", named({ author: USER_IDS.author2, date: "2025-05-01 09:00:00" }));
      expect(a).toMatchObject({ author: String(USER_IDS.author2), date: "2025-05-01 09:00:00", date_utc: "2025-05-01 09:00:00", status: "publish" });
      const b = await make("admin", named({ date_utc: "2025-05-01T09:00:00+02:00" }));
      expect(b).toMatchObject({ date: "2025-05-01 07:00:00", date_utc: "2025-05-01 07:00:00" });
      const c = await make("admin", named({ date: 1746090000 }));
      expect(c.date).toBe("2025-05-01 09:00:00");
      const future = await make("admin", named({ date: "+1 year" }));
      expect(future.status).toBe("future");
      expect(future.url).toContain(`?post_type=tribe_${k.kind}&p=${future.id}`);
    });

    test("drafts get the name as slug too; published slugs are unique", async () => {
      const name = `Same ${token()}`;
      const slug = name.toLowerCase().replace(/ /g, "-");
      const first = await make("admin", { [k.nameField]: name, description: "one" });
      const second = await make("admin", { [k.nameField]: name, description: "two" });
      const draft = await make("admin", { [k.nameField]: name, description: "three", status: "draft" });
      expect([first.slug, second.slug, draft.slug]).toEqual([slug, `${slug}-2`, slug]);
      expect(draft.url).toContain(`?post_type=tribe_${k.kind}&p=${draft.id}`);
    });
  });

  describe(`${k.plural}: duplicate avoidance (D25, C3)`, () => {
    test("the plugin's tested sequence answers the same record, 201 each time", async () => {
      const name = `A ${k.kind} ${token()}`;
      const first = await req("POST", `/${k.plural}`, "admin", { [k.nameField]: name, description: `A ${k.kind} description` });
      expect(first.status).toBe(201);
      const again = await req("POST", `/${k.plural}`, "admin", { [k.nameField]: name, description: `A ${k.kind} description` });
      const noDesc = await req("POST", `/${k.plural}`, "admin", { [k.nameField]: name });
      const lower = await req("POST", `/${k.plural}`, "admin", { [k.nameField]: name.toLowerCase(), description: `a ${k.kind} description` });
      for (const r of [again, noDesc, lower]) {
        expect(r.status).toBe(201);
        expect(r.body.id).toBe(first.body.id);
      }
      const otherDesc = await make("admin", { [k.nameField]: name, description: "Something else" });
      expect(otherDesc.id).not.toBe(first.body.id);
    });

    test("the other provided fields are written onto the found record", async () => {
      const name = `Dup ${token()}`;
      const first = await make("admin", { [k.nameField]: name, phone: "111" });
      const again = await make("admin", { [k.nameField]: name, phone: "222", website: "http://dup.example.org" });
      expect(again).toMatchObject({ id: first.id, phone: "222", website: "http://dup.example.org" });
      expect((await env.svc.get(`/${k.plural}/${first.id}`)).body.phone).toBe("222");
    });

    test("C3: a caller who may not edit the found record gets it unchanged", async () => {
      const name = `Guarded ${token()}`;
      const first = await make("admin", { [k.nameField]: name, phone: "111" });
      const again = await make("contributor", { [k.nameField]: name, phone: "999" });
      expect(again).toMatchObject({ id: first.id, phone: "111" });
    });

    test("trashed records and records the caller may not read are not reused", async () => {
      const name = `Gone ${token()}`;
      const first = await make("admin", { [k.nameField]: name });
      expect((await req("DELETE", `/${k.plural}/${first.id}`, "admin")).status).toBe(200);
      const next = await make("admin", { [k.nameField]: name });
      expect(next.id).not.toBe(first.id);
      const hidden = await make("admin", { [k.nameField]: `Hidden ${token()}`, status: "draft" });
      const mine = await make("contributor", { [k.nameField]: hidden[k.nameField] });
      expect(mine.id).not.toBe(hidden.id);
    });
  });

  describe(`${k.plural}: read`, () => {
    test("GET by id: 200 with json_ld (no @context)", async () => {
      const r = await make("admin", named({ description: "Nice place.", ...k.sample }));
      const res = await env.svc.get(`/${k.plural}/${r.id}`);
      expect(res.status).toBe(200);
      expect(res.body.json_ld).toMatchObject({ "@type": k.kind === "venue" ? "Place" : "Person", name: r[k.nameField], description: "Nice place." });
      expect(res.body.json_ld).not.toHaveProperty("@context");
      const { json_ld: _ld, ...rest } = res.body;
      expect(rest).toEqual(r);
    });

    test("ids that are not of this kind, 0 or unknown are 400 params.id; non-numeric is no route", async () => {
      const other = await env.svc.request("POST", `/${k.otherPlural}`, { as: "admin", body: { [k.otherNameField]: `Other ${token()}` } });
      expect(other.status).toBe(201);
      for (const id of [other.body.id, 0, 987654]) {
        const res = await env.svc.get(`/${k.plural}/${id}`);
        expectInvalid(res, "id");
      }
      expectError(await env.svc.get(`/${k.plural}/abc`), 404, "rest_no_route");
      expect((await env.svc.get(`/${k.plural}/${other.body.id}/`)).status).toBe(400);
    });

    test("non-published records: read_post per caller, else 403 not-accessible", async () => {
      const draft = await make("contributor", named());
      const path = `/${k.plural}/${draft.id}`;
      for (const as of [undefined, "subscriber", "contributor2", "author"] as Array<KeyName | undefined>) {
        expectError(await env.svc.get(path, as), 403, `${k.kind}-not-accessible`);
      }
      for (const as of ["contributor", "editor", "admin"] as KeyName[]) expect((await env.svc.get(path, as)).status).toBe(200);
      const priv = await make("author", named({ status: "private" }));
      expectError(await env.svc.get(`/${k.plural}/${priv.id}`, "author2"), 403, `${k.kind}-not-accessible`);
      expect((await env.svc.get(`/${k.plural}/${priv.id}`, "author")).status).toBe(200);
      expect((await env.svc.get(`/${k.plural}/${priv.id}`, "editor")).status).toBe(200);
    });
  });

  describe(`${k.plural}: update`, () => {
    test("POST, PUT and PATCH update; absent fields stay, empty strings clear, empty description stays", async () => {
      const r = await make("admin", named({ description: "Keep me.", ...k.sample }));
      const path = `/${k.plural}/${r.id}`;
      const field = k.outputFields[0];
      const post = await req("POST", path, "admin", { [field]: "changed" });
      expect(post.status).toBe(200);
      expect(post.body).toMatchObject({ ...k.sample, [field]: "changed", description: "<p>Keep me.</p>" });
      expect(post.body).not.toHaveProperty("json_ld");
      const put = await req("PUT", path, "admin", { description: "" });
      expect(put.body.description).toBe("<p>Keep me.</p>");
      const cleared = Object.fromEntries(k.outputFields.map(f => [f, ""]));
      const patch = await req("PATCH", path, "admin", cleared);
      expect(patch.status).toBe(200);
      for (const f of k.outputFields) expect(patch.body).not.toHaveProperty(f);
      expect(patch.body.modified_utc >= r.modified_utc).toBe(true);
    });

    test("a rename keeps the slug; renaming to another record's name is allowed", async () => {
      const a = await make("admin", named());
      const b = await make("admin", named());
      const res = await req("POST", `/${k.plural}/${a.id}`, "admin", { [k.nameField]: b[k.nameField] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: a.id, [k.nameField]: b[k.nameField], slug: a.slug });
      expectInvalid(await req("POST", `/${k.plural}/${a.id}`, "admin", { [k.nameField]: "" }), k.nameField);
    });

    test("order of checks: unknown id 400 (even anonymous), then permission, then the write", async () => {
      expectInvalid(await req("POST", `/${k.plural}/987654`, undefined, { phone: "1" }), "id");
      const r = await make("admin", named());
      expectError(await req("POST", `/${k.plural}/${r.id}`, undefined, { phone: "1" }), 401, "rest_forbidden");
      expectInvalid(await req("POST", `/${k.plural}/${r.id}`, undefined, { website: "bad url" }), "website");
    });

    test("capabilities per role and ownership (docs/authorization.md#per-record-rules)", async () => {
      const ownDraft = await make("contributor", named());
      expect((await req("PATCH", `/${k.plural}/${ownDraft.id}`, "contributor", { phone: "1" })).status).toBe(200);
      expectError(await req("PATCH", `/${k.plural}/${ownDraft.id}`, "contributor2", { phone: "1" }), 403, "rest_forbidden");
      expectError(await req("PATCH", `/${k.plural}/${ownDraft.id}`, "author", { phone: "1" }), 403, "rest_forbidden");
      expect((await req("PATCH", `/${k.plural}/${ownDraft.id}`, "editor", { phone: "2" })).status).toBe(200);
      const ownPublished = await make("admin", named({ author: USER_IDS.contributor }));
      expectError(await req("PATCH", `/${k.plural}/${ownPublished.id}`, "contributor", { phone: "1" }), 403, "rest_forbidden");
      const adminOwn = await make("admin", named());
      expect((await req("PATCH", `/${k.plural}/${adminOwn.id}`, "editor", { phone: "1" })).status).toBe(200);
      expectError(await req("PATCH", `/${k.plural}/${adminOwn.id}`, "author", { phone: "1" }), 403, "rest_forbidden");
      expectError(await req("PATCH", `/${k.plural}/${adminOwn.id}`, "subscriber", { phone: "1" }), 403, "rest_forbidden");
      const authorOwn = await make("author", named());
      expect((await req("PATCH", `/${k.plural}/${authorOwn.id}`, "author", { phone: "1" })).status).toBe(200);
    });

    test("status is resolved per caller; a contributor publishing gets pending", async () => {
      const r = await make("contributor", named());
      const res = await req("PATCH", `/${k.plural}/${r.id}`, "contributor", { status: "publish" });
      expect(res.body.status).toBe("pending");
      const pub = await req("PATCH", `/${k.plural}/${r.id}`, "editor", { status: "publish" });
      expect(pub.body).toMatchObject({ status: "publish", slug: r.slug });
    });

    test("C13: status=trash trashes (unlinked, slug suffixed); leaving trash restores a unique slug", async () => {
      const r = await make("admin", named());
      env.events.add({ id: 700001 + counter, venues: [r.id], organizers: [r.id] });
      const trashed = await req("PATCH", `/${k.plural}/${r.id}`, "admin", { status: "trash" });
      expect(trashed.body).toMatchObject({ status: "trash", slug: `${r.slug}__trashed` });
      expect(env.events.calls).toContainEqual({ action: "unlinkPost", params: { kind: k.kind, id: r.id } });
      expect([...env.events.events.values()].some(e => (k.kind === "venue" ? e.venues : e.organizers).includes(r.id))).toBe(false);
      const taker = await make("admin", { [k.nameField]: r[k.nameField], description: "takes the slug" });
      expect(taker.slug).toBe(r.slug);
      const back = await req("PATCH", `/${k.plural}/${r.id}`, "admin", { status: "publish" });
      expect(back.body).toMatchObject({ status: "publish", slug: `${r.slug}-2` });
      const own = await make("contributor", named({ status: "draft" }));
      expect((await req("PATCH", `/${k.plural}/${own.id}`, "contributor", { status: "trash" })).body.status).toBe("trash");
    });
  });

  describe(`${k.plural}: delete`, () => {
    test("trash, unlink from events, 410 the second time; trashed readable by editors and the author", async () => {
      const r = await make("author", named());
      const event = env.events.add({ id: 800001 + counter, venues: [r.id], organizers: [r.id] });
      const res = await req("DELETE", `/${k.plural}/${r.id}?force=true`, "author");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: r.id, status: "trash", slug: `${r.slug}__trashed` });
      expect(res.body.url).toMatch(new RegExp(`/${k.kind}/${r.slug}__trashed/$`));
      expect(k.kind === "venue" ? event.venues : event.organizers).not.toContain(r.id);
      expectError(await req("DELETE", `/${k.plural}/${r.id}`, "author"), 410, `${k.kind}-is-in-trash`);
      expect((await env.svc.get(`/${k.plural}/${r.id}`, "editor")).body.status).toBe("trash");
      expect((await env.svc.get(`/${k.plural}/${r.id}`, "author")).status).toBe(200);
      expectError(await env.svc.get(`/${k.plural}/${r.id}`), 403, `${k.kind}-not-accessible`);
      expectError(await env.svc.get(`/${k.plural}/${r.id}`, "author2"), 403, `${k.kind}-not-accessible`);
    });

    test("order of checks: unknown id 400 even anonymously, then permission, then trash state", async () => {
      expectInvalid(await req("DELETE", `/${k.plural}/987654`), "id");
      const r = await make("admin", named());
      expectError(await req("DELETE", `/${k.plural}/${r.id}`), 401, "rest_forbidden");
      expectError(await req("DELETE", `/${k.plural}/${r.id}`, "subscriber"), 403, "rest_forbidden");
      await req("DELETE", `/${k.plural}/${r.id}`, "admin");
      expectError(await req("DELETE", `/${k.plural}/${r.id}`), 401, "rest_forbidden");
    });

    test("capabilities per role and ownership", async () => {
      const ownDraft = await make("contributor", named());
      expectError(await req("DELETE", `/${k.plural}/${ownDraft.id}`, "contributor2"), 403, "rest_forbidden");
      expect((await req("DELETE", `/${k.plural}/${ownDraft.id}`, "contributor")).status).toBe(200);
      const ownPublished = await make("admin", named({ author: USER_IDS.contributor }));
      expectError(await req("DELETE", `/${k.plural}/${ownPublished.id}`, "contributor"), 403, "rest_forbidden");
      const adminOwn = await make("admin", named());
      expectError(await req("DELETE", `/${k.plural}/${adminOwn.id}`, "author"), 403, "rest_forbidden");
      expect((await req("DELETE", `/${k.plural}/${adminOwn.id}`, "editor")).status).toBe(200);
    });
  });

  describe(`${k.plural}: by slug (D4, D5)`, () => {
    test("GET, update and DELETE by slug behave as by id", async () => {
      const r = await make("author", named({ description: "By slug." }));
      const path = `/${k.plural}/by-slug/${r.slug}`;
      const got = await env.svc.get(path);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: r.id, json_ld: expect.any(Object) });
      expect((await env.svc.get(`/${k.plural}/by-slug/${r.slug.toUpperCase()}`)).body.id).toBe(r.id);
      for (const method of ["POST", "PUT", "PATCH"]) {
        const res = await req(method, path, "author", { phone: method, slug: "something-else", id: 1 });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: r.id, phone: method, slug: r.slug });
      }
      expectError(await req("DELETE", path, "author2"), 403, "rest_forbidden");
      expectError(await req("PATCH", path, "contributor", { phone: "x" }), 403, "rest_forbidden");
      const del = await req("DELETE", path, "author");
      expect(del.body).toMatchObject({ id: r.id, status: "trash" });
      expectInvalid(await env.svc.get(path), "slug");
      expect((await env.svc.get(`/${k.plural}/by-slug/${r.slug}__trashed`, "author")).body.id).toBe(r.id);
      expectError(await req("DELETE", `/${k.plural}/by-slug/${r.slug}__trashed`, "author"), 410, `${k.kind}-is-in-trash`);
    });

    test("unknown slugs are 400 params.slug on every method, even anonymously", async () => {
      const path = `/${k.plural}/by-slug/no-such-${token().toLowerCase()}`;
      expectInvalid(await env.svc.get(path), "slug");
      expectInvalid(await req("DELETE", path), "slug");
      expectInvalid(await req("POST", path, "admin", { phone: "1" }), "slug");
      expectInvalid(await env.svc.get(`/${k.plural}/by-slug/100%25`), "slug");
    });

    test("C15 (password by slug): ?password= by slug as by id", async () => {
      const r = await make("admin", named({ post_password: "s3cret", phone: "123" }));
      const path = `/${k.plural}/by-slug/${r.slug}`;
      expect((await env.svc.get(path)).body.phone).toBe("");
      expect((await env.svc.get(`${path}?password=s3cret`)).body.phone).toBe("123");
      expectInvalid(await env.svc.get(`${path}?password=`), "password");
    });
  });

  describe(`${k.plural}: passwords (C4, D32)`, () => {
    test("protected fields are blanked unless password or context=edit; post_password is never output", async () => {
      const r = await make("admin", named({ description: "Secret room.", post_password: "pw", ...k.sample }));
      expect(r).not.toHaveProperty("post_password");
      expect(r.phone).toBe(k.sample.phone);
      const path = `/${k.plural}/${r.id}`;
      const anon = (await env.svc.get(path)).body;
      expect(anon).toMatchObject({ description: "", phone: "", website: "", [k.nameField]: r[k.nameField] });
      expect(JSON.stringify(anon)).not.toContain("Secret");
      expect(JSON.stringify(anon)).not.toContain(k.sample.phone);
      expect((await env.svc.get(`${path}?password=wrong`)).body.phone).toBe("");
      expect((await env.svc.get(`${path}?password=pw`)).body).toMatchObject({ ...k.sample, description: "<p>Secret room.</p>" });
      expect((await env.svc.get(`${path}?context=edit`, "editor")).body.phone).toBe(k.sample.phone);
      expect((await env.svc.get(`${path}?context=edit`, "author")).body.phone).toBe("");
      expect((await env.svc.get(path, "editor")).body.phone).toBe("");
      expectInvalid(await env.svc.get(`${path}?password=`), "password");
      const listed = (await env.svc.get(`/${k.plural}?search=${encodeURIComponent(r[k.nameField].split(" ")[1])}`)).body[k.plural];
      expect(listed).toHaveLength(1);
      expect(listed[0].phone).toBe("");
      const cleared = await req("PATCH", path, "admin", { post_password: "" });
      expect(cleared.status).toBe(200);
      expect((await env.svc.get(path)).body.phone).toBe(k.sample.phone);
    });

    test("D34: a search matches a protected record only through its name", async () => {
      const word = token();
      await make("admin", named({ description: `hidden ${word}`, post_password: "pw" }));
      const open = await make("admin", named({ description: `open ${word}` }));
      const anon = await env.svc.get(`/${k.plural}?search=${word}`);
      expect(anon.body[k.plural].map((r: Json) => r.id)).toEqual([open.id]);
    });
  });

  describe(`${k.plural}: list`, () => {
    test("statuses per caller: anonymous sees published only, contributors see all authors' drafts (D26: lists show everyone's non-public records to editors of the kind)", async () => {
      const word = token();
      const pub = await make("admin", { [k.nameField]: `${word} pub` });
      const draft = await make("admin", { [k.nameField]: `${word} draft`, status: "draft" });
      const trashed = await make("admin", { [k.nameField]: `${word} trashed` });
      await req("DELETE", `/${k.plural}/${trashed.id}`, "admin");
      const ids = async (query: string, as?: KeyName) => {
        const res = await env.svc.get(`/${k.plural}?search=${word}${query}`, as);
        return res.status === 200 ? res.body[k.plural].map((r: Json) => r.id) : res;
      };
      expect(await ids("")).toEqual([pub.id]);
      expect(await ids("", "subscriber")).toEqual([pub.id]);
      expect(await ids("", "contributor2")).toEqual([draft.id, pub.id]);
      expect(await ids("", "editor")).toEqual([draft.id, pub.id]);
      expect(await ids("&status=publish")).toEqual([pub.id]);
      expect(await ids("&status=draft,%20publish", "contributor")).toEqual([draft.id, pub.id]);
      expect(await ids("&status=draft", "editor")).toEqual([draft.id]);
      expectInvalid(await ids("&status=draft") as Json, "status");
      expectInvalid(await ids("&status=any", "editor") as Json, "status");
      const inTrash = await env.svc.get(`/${k.plural}?status=trash`, "editor");
      expect(inTrash.body[k.plural].map((r: Json) => r.id)).toContain(trashed.id);
      expect(await ids("&status=trash", "editor")).toEqual([]);
    });

    test("ordering: publication date descending, then id descending", async () => {
      const word = token();
      const old = await make("admin", { [k.nameField]: `${word} a`, date: "2020-01-01 10:00:00" });
      const newer = await make("admin", { [k.nameField]: `${word} b`, date: "2021-01-01 10:00:00" });
      const same1 = await make("admin", { [k.nameField]: `${word} c`, date: "2020-06-01 10:00:00" });
      const same2 = await make("admin", { [k.nameField]: `${word} d`, date: "2020-06-01 10:00:00" });
      const res = await env.svc.get(`/${k.plural}?search=${word}`);
      expect(res.body[k.plural].map((r: Json) => r.id)).toEqual([newer.id, same2.id, same1.id, old.id]);
    });

    test("paging: envelope, links (D10: list links carry what the caller sent), headers (D35), 404 past the end, per_page at most 50", async () => {
      const word = token();
      for (let i = 0; i < 3; i++) await make("admin", { [k.nameField]: `${word} ${i}` });
      const ns = `${linkNs()}/${k.plural}/`;
      const res = await env.svc.get(`/${k.plural}?search=${word}&per_page=1&page=2&has_ev=ignored`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual([k.plural, "rest_url", "next_rest_url", "previous_rest_url", "total", "total_pages"]);
      expect(res.body).toMatchObject({
        rest_url: `${ns}?page=2&per_page=1&search=${word}`,
        next_rest_url: `${ns}?per_page=1&search=${word}&page=3`,
        previous_rest_url: `${ns}?per_page=1&search=${word}`,
        total: 3, total_pages: 3
      });
      expect(res.headers.get("x-tec-total")).toBe("3");
      expect(res.headers.get("x-tec-totalpages")).toBe("3");
      expect(res.headers.get("x-wp-total")).toBe("3");
      expect(res.headers.get("link")).toContain('rel="next"');
      const last = await env.svc.get(`/${k.plural}?search=${word}&per_page=2&page=2.0`);
      expect(last.body[k.plural]).toHaveLength(1);
      expect(last.body).not.toHaveProperty("next_rest_url");
      expectError(await env.svc.get(`/${k.plural}?search=${word}&per_page=1&page=4`), 404, `${k.kind}-archive-page-not-found`);
      const big = await env.svc.get(`/${k.plural}?search=${word}&per_page=100`);
      expect(big.body.rest_url).toBe(`${ns}?page=1&per_page=50&search=${word}`);
      for (const bad of ["page=foo", "page=0", "page=-1", "page=1.5", "per_page=0", "per_page=abc"]) {
        expectInvalid(await env.svc.get(`/${k.plural}?${bad}`), bad.split("=")[0]);
      }
    });

    test("D11: a search without match is total 0; page 1 with nothing is 200 []", async () => {
      const res = await env.svc.get(`/${k.plural}?search=${token()}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ [k.plural]: [], total: 0, total_pages: 0 });
      expect(res.body).not.toHaveProperty("next_rest_url");
      expectInvalid(await env.svc.get(`/${k.plural}?search=`), "search");
      const odd = await env.svc.get(`/${k.plural}?search=${encodeURIComponent("(.*")}`);
      expect(odd.status).toBe(200);
      expect(odd.body.total).toBe(0);
    });

    test("search: one field must contain every fragment, case-insensitively; trashed never match", async () => {
      const word = token();
      const a = await make("admin", { [k.nameField]: `Alpha ${word}`, description: "Beta gamma" });
      const b = await make("admin", { [k.nameField]: `Other ${word}`, description: `Delta ${word.toLowerCase()} epsilon` });
      const ids = async (q: string, as?: KeyName) => (await env.svc.get(`/${k.plural}?search=${encodeURIComponent(q)}`, as)).body[k.plural].map((r: Json) => r.id);
      expect(await ids(`alpha ${word}`)).toEqual([a.id]);
      expect(await ids(`${word},EPSILON`)).toEqual([b.id]);
      expect(await ids(`alpha beta ${word}`)).toEqual([]);
      expect(await ids(word)).toEqual([b.id, a.id]);
      await req("DELETE", `/${k.plural}/${a.id}`, "admin");
      expect(await ids(word)).toEqual([b.id]);
      expect((await env.svc.get(`/${k.plural}?status=trash&search=${word}`, "admin")).body.total).toBe(0);
    });

    test("event, has_events, only_with_upcoming filter through the events service, one call each", async () => {
      const word = token();
      const rec = async (label: string) => make("admin", { [k.nameField]: `${word} ${label}` });
      const [atPublished, atDraft, atPast, atHidden, atPrivateFuture, unlinked] = await Promise.all(
        ["published", "draft", "past", "hidden", "privatefuture", "unlinked"].map(rec));
      const base = 900000 + counter * 10;
      const link = (ids: number[]) => (k.kind === "venue" ? { venues: ids } : { organizers: ids });
      env.events.add({ id: base + 1, status: "publish", start: dbFromNow(5), ...link([atPublished.id]) });
      env.events.add({ id: base + 2, status: "draft", start: dbFromNow(5), ...link([atDraft.id]) });
      env.events.add({ id: base + 3, status: "publish", start: dbFromNow(-5), ...link([atPast.id]) });
      env.events.add({ id: base + 4, status: "publish", start: dbFromNow(5), hidden: true, ...link([atHidden.id]) });
      env.events.add({ id: base + 5, status: "private", start: dbFromNow(5), ...link([atPrivateFuture.id]) });
      const ids = async (q: string, as?: KeyName) => {
        const res = await env.svc.get(`/${k.plural}?search=${word}&${q}`, as);
        expect(res.status).toBe(200);
        return res.body[k.plural].map((r: Json) => r.id).sort((x: number, y: number) => x - y);
      };
      const sorted = (...rs: Json[]) => rs.map(r => r.id).sort((x: number, y: number) => x - y);
      expect(await ids(`event=${base + 1}`)).toEqual(sorted(atPublished));
      expect(await ids(`event=${base + 2}`)).toEqual(sorted(atDraft));
      expectInvalid(await env.svc.get(`/${k.plural}?event=123456789`), "event");
      expectInvalid(await env.svc.get(`/${k.plural}?event=0`), "event");
      expectInvalid(await env.svc.get(`/${k.plural}?event=abc`), "event");
      expect(await ids("has_events=1")).toEqual(sorted(atPublished, atPast, atHidden, atPrivateFuture));
      expect(await ids("has_events=YES")).toEqual(sorted(atPublished, atPast, atHidden, atPrivateFuture));
      expect(await ids("has_events=0")).toEqual(sorted(atDraft, unlinked));
      expect(await ids("has_events=")).toEqual(sorted(atDraft, unlinked));
      expect(await ids("only_with_upcoming=true")).toEqual(sorted(atPublished));
      expect(await ids("only_with_upcoming=true", "editor")).toEqual(sorted(atPublished, atDraft, atPrivateFuture));
      expect(await ids("only_with_upcoming=true&status=private,publish", "editor")).toEqual(sorted(atPublished, atPrivateFuture));
      expect(await ids("only_with_upcoming=false")).toHaveLength(6);
      expect(await ids(`only_with_upcoming=1&has_events=1&event=${base + 1}`)).toEqual(sorted(atPublished));
      // in list order: newest date first, then the higher id
      const listed: Array<{ id: number; date: string }> = (await env.svc.get(`/${k.plural}?search=${word}&has_events=1`)).body[k.plural];
      expect(listed).toHaveLength(4);
      expect(listed.map(r => r.id)).toEqual([...listed].sort((x, y) => (x.date < y.date ? 1 : x.date > y.date ? -1 : y.id - x.id)).map(r => r.id));
      env.events.calls.length = 0;
      const res = await env.svc.get(`/${k.plural}?search=${word}&event=${base + 1}&has_events=on&only_with_upcoming=1`);
      expect(res.body.rest_url).toBe(`${linkNs()}/${k.plural}/?page=1&per_page=10&search=${word}&event=${base + 1}&has_events=on&only_with_upcoming=1`);
      expect(env.events.calls.map(c => c.params)).toEqual(expect.arrayContaining([
        { kind: k.kind, event: base + 1 }, { kind: k.kind, hasEvents: true }, { kind: k.kind, upcoming: true, statuses: ["publish"] }
      ]));
      expect(env.events.calls).toHaveLength(3);
    });
  });

  describe(`${k.plural}: store failures (docs/errors.md#venue-and-organizer-errors, internal only)`, () => {
    const service = () => env.svc.broker.getLocalService(k.plural) as Json;
    afterEach(() => jest.restoreAllMocks());

    test("a failed insert is 400 could-not-create, a failed write 400 could-not-update, a failed trash 500 could-not-delete", async () => {
      const r = await make("admin", named());
      jest.spyOn(service().store, "insert").mockResolvedValueOnce(null);
      expectError(await req("POST", `/${k.plural}`, "admin", named()), 400, `could-not-create-${k.kind}`);
      jest.spyOn(service().store, "updateOne").mockResolvedValueOnce(null);
      expectError(await req("PATCH", `/${k.plural}/${r.id}`, "admin", { phone: "1" }), 400, `could-not-update-${k.kind}`);
      jest.spyOn(service().store, "updateOne").mockRejectedValueOnce(new Error("disk full"));
      expectError(await req("DELETE", `/${k.plural}/${r.id}`, "admin"), 500, `could-not-delete-${k.kind}`);
      expect((await env.svc.get(`/${k.plural}/${r.id}`)).body.status).toBe("publish");
    });
  });

  describe(`${k.plural}: internal actions for events`, () => {
    const call = (action: string, params: unknown, caller?: KeyName | null) =>
      env.svc.broker.call(`${k.plural}.${action}`, params, caller === undefined ? {} : { meta: { caller: caller === null ? null : { id: USER_IDS[caller], role: roleOf(caller) } } });

    test("validateLinks accepts every D6 (shapes of venue and organizer on events)/C2 (several venues) shape and empties; rejects the rest with 400 on the input name", async () => {
      const a = await make("admin", named());
      const b = await make("admin", named());
      const valid = [null, "", 0, "0", [], [null, ""], a.id, String(a.id), `${a.id}, ${b.id}`, { id: a.id }, { id: String(b.id) },
        named(), [a.id, { id: b.id }, named()], [named(), named()]];
      for (const value of valid) await expect(call("validateLinks", { value })).resolves.toBe(true);
      const other = await env.svc.request("POST", `/${k.otherPlural}`, { as: "admin", body: { [k.otherNameField]: `Other ${token()}` } });
      const invalid = [987654, "abc", `${a.id},x`, -3, 1.5, { id: other.body.id }, { id: "x" }, {}, { description: "no name" },
        named({ website: "bad" }), named({ status: "nope" }), named({ author: 999 }), [a.id, [b.id]], [a.id, 987654], true, other.body.id];
      for (const value of invalid) {
        const err: Json = await call("validateLinks", { value }).catch(e => e);
        expect({ value, code: err?.type, params: Object.keys(err?.data?.params ?? {}) }).toEqual({ value, code: "rest_invalid_param", params: [k.kind] });
      }
      const before = (await env.svc.get(`/${k.plural}?per_page=1`)).body.total;
      await call("validateLinks", { value: named({ image: "http://img.example.org/a.jpg" }) });
      expect((await env.svc.get(`/${k.plural}?per_page=1`)).body.total).toBe(before);
    });

    test("link: ids in order, inline data created as by POST (author = caller, status per caller, duplicates reused)", async () => {
      const a = await make("admin", named());
      const dupName = `Linked ${token()}`;
      const existing = await make("admin", { [k.nameField]: dupName });
      const ids: number[] = await call("link", { value: [a.id, { [k.nameField]: dupName }, { [k.nameField]: `New ${token()}`, phone: "5" }, { id: a.id }] }, "contributor") as Json;
      expect(ids.slice(0, 2)).toEqual([a.id, existing.id]);
      expect(ids).toHaveLength(3);
      const created = (await env.svc.get(`/${k.plural}/${ids[2]}`, "contributor")).body;
      expect(created).toMatchObject({ author: String(USER_IDS.contributor), status: "draft", phone: "5" });
      expect(await call("link", { value: "" }, "admin")).toEqual([]);
      expect(await call("link", { value: `${a.id},${existing.id}` }, "admin")).toEqual([a.id, existing.id]);
      const noName: Json = await call("link", { value: [a.id, { phone: "no name" }] }, "admin").catch(e => e);
      expect({ status: noName.code, code: noName.type }).toEqual({ status: 400, code: `could-not-create-${k.kind}` });
      const gone: Json = await call("link", { value: [a.id, 987654] }, "admin").catch(e => e);
      expect({ status: gone.code, code: gone.type }).toEqual({ status: 400, code: "invalid-linked-post-id" });
      const shape: Json = await call("link", { value: [a.id, true] }, "admin").catch(e => e);
      expect(shape.type).toBe("rest_invalid_param");
    });

    test("embed: only readable records (C1: embedded records follow visibility), blanked per caller, json_ld on request", async () => {
      const pub = await make("admin", named({ phone: "1" }));
      const draft = await make("admin", named({ status: "draft" }));
      const locked = await make("admin", named({ phone: "777", post_password: "pw" }));
      const ids = [pub.id, draft.id, locked.id, 987654];
      const anon: Json = await call("embed", { ids }, null);
      expect(Object.keys(anon).sort()).toEqual([String(pub.id), String(locked.id)].sort());
      expect(anon[pub.id]).toEqual(pub);
      expect(anon[locked.id].phone).toBe("");
      const editor: Json = await call("embed", { ids, jsonLd: true }, "editor");
      expect(Object.keys(editor)).toHaveLength(3);
      expect(editor[draft.id].json_ld["@type"]).toBe(k.kind === "venue" ? "Place" : "Person");
      const internal: Json = await call("embed", { ids });
      expect(internal[locked.id].phone).toBe("777");
      expect(await call("embed", { ids: [] })).toEqual({});
    });
  });
}

function roleOf(name: KeyName): string {
  return name.replace(/\d$/, "").replace("admin", "administrator");
}
