/**
 * The authorization matrix through HTTP, for events, venues and organizers: anonymous and the five roles ×
 * every operation (list, get, get by slug, create, update, update by slug, delete, delete by slug) × record
 * status (publish, future, draft, pending, private, trash, password-protected) × own / others' record.
 *
 * The expectations are written out below from docs/authorization.md (#per-record-rules, #term-capabilities,
 * #list-visibility, #password-protected-records) and docs/errors.md — deliberately NOT computed with lib/access/capabilities.ts, so a wrong capability module fails here.
 * Every cell is one HTTP request (or a few, for the password variants) and one assertion.
 */
import { startService, Running, KeyName, USER_IDS } from "../helpers/harness";
import { expectContractError, pool } from "../helpers/security";
import type { Json } from "../helpers/json";

// ---------------------------------------------------------------------------------------------------------
// The expectation tables (docs/authorization.md)
// ---------------------------------------------------------------------------------------------------------

type Role = "anonymous" | "administrator" | "editor" | "author" | "contributor" | "subscriber";
type State = "publish" | "future" | "draft" | "pending" | "private" | "trash" | "protected";
type Own = "own" | "others";
type Kind = "event" | "venue" | "organizer";

const ROLES: Role[] = ["anonymous", "administrator", "editor", "author", "contributor", "subscriber"];
const STATES: State[] = ["publish", "future", "draft", "pending", "private", "trash", "protected"];
const KINDS: Kind[] = ["event", "venue", "organizer"];
const ALL: Role[] = ROLES;
const NOBODY: Role[] = [];
const LOGGED_IN: Role[] = ["administrator", "editor", "author", "contributor", "subscriber"];
const EDITORS: Role[] = ["administrator", "editor"];
const PUBLISHERS: Role[] = ["administrator", "editor", "author"];
const WRITERS: Role[] = ["administrator", "editor", "author", "contributor"];

/** The API key of each role; "others'" records belong to author2 (user 4), whom no caller below is. */
const KEY: Record<Exclude<Role, "anonymous">, KeyName> = { administrator: "admin", editor: "editor", author: "author", contributor: "contributor", subscriber: "subscriber" };
const OTHER_OWNER: KeyName = "author2";
const userOf = (role: Role): number | undefined => (role === "anonymous" ? undefined : USER_IDS[KEY[role]]);

/**
 * Single GET (read_post), docs/authorization.md#per-record-rules: publish → everyone; own non-public → anyone with `read`; others'
 * private → read_private_posts; others' draft/pending/future → edit_post (others' → editors); others'
 * trashed venue/organizer → edit_post on the prior status (`publish` here) → editors.
 * A password-protected record without the password: events 403 for everyone; venues/organizers 200 blanked.
 */
const READ: Record<Own, Record<State, Role[]>> = {
  own: { publish: ALL, protected: ALL, future: LOGGED_IN, draft: LOGGED_IN, pending: LOGGED_IN, private: LOGGED_IN, trash: LOGGED_IN },
  others: { publish: ALL, protected: ALL, future: EDITORS, draft: EDITORS, pending: EDITORS, private: EDITORS, trash: EDITORS }
};

/**
 * Update (edit_post) and delete (delete_post; the same table with the delete_* capabilities), docs/authorization.md#per-record-rules:
 * own publish/future (and a trashed record whose prior status was publish) → *_published_posts; own
 * draft/pending/private → *_posts; others' → *_others_posts (+ published/private ones: editors have all).
 */
const WRITE: Record<Own, Record<State, Role[]>> = {
  own: { publish: PUBLISHERS, protected: PUBLISHERS, future: PUBLISHERS, trash: PUBLISHERS, draft: WRITERS, pending: WRITERS, private: WRITERS },
  others: { publish: EDITORS, protected: EDITORS, future: EDITORS, trash: EDITORS, draft: EDITORS, pending: EDITORS, private: EDITORS }
};

/** Default lists (docs/authorization.md#list-visibility, D26: lists show everyone's non-public records to editors of the kind): callers with edit_posts see every status but trash, from all authors. */
const LISTED: Record<State, Role[]> = {
  publish: ALL, protected: ALL, future: WRITERS, draft: WRITERS, pending: WRITERS, private: WRITERS, trash: NOBODY
};

/** Create (edit_posts): contributors and above; the status a create with each requested status ends in (docs/records.md#status-on-write). */
const CREATED_STATUS: Record<Role, Record<State, string | 401 | 403>> = {
  anonymous: { publish: 401, future: 401, draft: 401, pending: 401, private: 401, trash: 401, protected: 401 },
  subscriber: { publish: 403, future: 403, draft: 403, pending: 403, private: 403, trash: 403, protected: 403 },
  contributor: { publish: "pending", future: "pending", draft: "draft", pending: "pending", private: "private", trash: "trash", protected: "pending" },
  author: { publish: "publish", future: "future", draft: "draft", pending: "pending", private: "private", trash: "trash", protected: "publish" },
  editor: { publish: "publish", future: "future", draft: "draft", pending: "pending", private: "private", trash: "trash", protected: "publish" },
  administrator: { publish: "publish", future: "future", draft: "draft", pending: "pending", private: "private", trash: "trash", protected: "publish" }
};

/** Terms (docs/authorization.md#term-capabilities): anyone reads; categories are managed by publishers of events, tags by editors. */
const TERM_MANAGERS: Record<"categories" | "tags", Role[]> = { categories: PUBLISHERS, tags: EDITORS };

const denied = (role: Role) => (role === "anonymous" ? 401 : 403);
const notAccessible = (kind: Kind) => `${kind}-not-accessible`;

// ---------------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------------

const PLURAL: Record<Kind, string> = { event: "events", venue: "venues", organizer: "organizers" };
const NAME_FIELD: Record<Kind, string> = { event: "title", venue: "venue", organizer: "organizer" };
const PASSWORD = "Matrix Secret";
const RUN = `mx${process.pid.toString(36)}`;
let seq = 0;

interface Fixture {
  id: number;
  slug: string;
  kind: Kind;
  state: State;
  owner: number;
}

describe("authorization matrix (docs/authorization.md)", () => {
  let svc: Running;
  let cells = 0;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "", CACHER: "" }); });
  afterAll(async () => {
    await svc.stop();
    console.log(`authorization matrix: ${cells} cells asserted through HTTP`);
  });

  const asKey = (role: Role): KeyName | undefined => (role === "anonymous" ? undefined : KEY[role]);

  /** A record of `kind` in `state` owned by `owner`, made by the administrator (any status, any author). */
  async function make(kind: Kind, state: State, owner: number, tag = RUN): Promise<Fixture> {
    const n = ++seq;
    const name = `${tag} ${kind} ${state} ${owner} n${n}`;
    const slug = `${tag}-${kind}-${state}-${owner}-n${n}`;
    const status = state === "protected" || state === "trash" ? "publish" : state;
    const body: Record<string, unknown> = { [NAME_FIELD[kind]]: name, author: owner, status, ...(kind === "event" ? { slug, start_date: "tomorrow 10:00", end_date: "tomorrow 12:00", description: `${tag} body` } : { description: `${tag} body` }) };
    if (state === "future") body.date = "+5 days";
    if (state === "protected") body.post_password = PASSWORD;
    if (kind === "venue") Object.assign(body, { address: `${tag} Street 1`, city: "Lyon" });
    if (kind === "organizer") Object.assign(body, { phone: "555-0100", email: `${tag}@example.org` });
    const res = await svc.request("POST", `/${PLURAL[kind]}`, { as: "admin", body });
    if (res.status !== 201) throw new Error(`fixture ${name}: ${res.status} ${res.text}`);
    let record = res.body;
    if (state === "trash") {
      const del = await svc.request("DELETE", `/${PLURAL[kind]}/${record.id}`, { as: "admin" });
      if (del.status !== 200) throw new Error(`trash ${name}: ${del.status} ${del.text}`);
      record = del.body;
    }
    const expected = state === "protected" || state === "trash" ? (state === "trash" ? "trash" : "publish") : state;
    if (record.status !== expected) throw new Error(`fixture ${name} has status ${record.status}, not ${expected}`);
    return { id: record.id, slug: record.slug, kind, state, owner };
  }

  const ownerFor = (role: Role, own: Own): number => (own === "own" ? userOf(role)! : USER_IDS[OTHER_OWNER]);
  const ownerships = (role: Role): Own[] => (role === "anonymous" ? ["others"] : ["own", "others"]);

  /** Every (kind, state, owner) fixture the read and update cells use, made once. */
  const shared = new Map<string, Fixture>();
  const fixtureKey = (kind: Kind, state: State, owner: number) => `${kind}/${state}/${owner}`;
  beforeAll(async () => {
    const owners = [...new Set(LOGGED_IN.map(r => userOf(r)!).concat(USER_IDS[OTHER_OWNER]))];
    const specs = KINDS.flatMap(kind => STATES.flatMap(state => owners.map(owner => ({ kind, state, owner }))));
    const made = await pool(specs, 6, s => make(s.kind, s.state, s.owner));
    for (const f of made) shared.set(fixtureKey(f.kind, f.state, f.owner), f);
  });

  /** The cells of one operation: kind × state × role × ownership. */
  const grid = () => KINDS.flatMap(kind => STATES.flatMap(state => ROLES.flatMap(role => ownerships(role).map(own => ({ kind, state, role, own })))));

  test("single GET by id and by slug", async () => {
    const failures: string[] = [];
    await pool(grid(), 8, async ({ kind, state, role, own }) => {
      const f = shared.get(fixtureKey(kind, state, ownerFor(role, own)))!;
      for (const path of [`/${PLURAL[kind]}/${f.id}`, `/${PLURAL[kind]}/by-slug/${encodeURIComponent(f.slug)}`]) {
        const res = await svc.get(path, asKey(role));
        cells++;
        const mayRead = READ[own][state].includes(role);
        let expected: [number, string?];
        if (kind === "event" && state === "trash") expected = [403, "event-no-longer-available"];
        else if (!mayRead) expected = [403, notAccessible(kind)];
        else if (kind === "event" && state === "protected") expected = [403, "event-password-protected"];
        else expected = [200];
        const got: [number, string?] = res.status === 200 ? [200] : [res.status, res.body?.code];
        if (JSON.stringify(got) !== JSON.stringify(expected)) failures.push(`${role} GET ${own} ${kind} ${state} ${path}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`);
        else if (res.status !== 200) expectContractError(res, expected[0], expected[1]);
        else if (res.body.id !== f.id) failures.push(`${role} GET ${path}: answered record ${res.body.id}`);
        else if (state === "protected") {
          // venues/organizers: readable, protected fields blanked for everyone without the password
          const blanked = kind === "venue" ? res.body.address === undefined || res.body.address === "" : res.body.phone === undefined || res.body.phone === "";
          if (!blanked || String(res.body.description ?? "") !== "") failures.push(`${role} GET ${path}: protected fields shown without the password`);
        }
      }
    });
    expect(failures).toEqual([]);
  });

  test("password-protected records: the password reveals them to everyone, context=edit to those who may edit", async () => {
    const failures: string[] = [];
    await pool(KINDS.flatMap(kind => ROLES.flatMap(role => ownerships(role).map(own => ({ kind, role, own })))), 8, async ({ kind, role, own }) => {
      const f = shared.get(fixtureKey(kind, "protected", ownerFor(role, own)))!;
      const base = `/${PLURAL[kind]}/${f.id}`;
      const withPassword = await svc.get(`${base}?password=${encodeURIComponent(PASSWORD)}`, asKey(role));
      const wrong = await svc.get(`${base}?password=nope`, asKey(role));
      const edit = await svc.get(`${base}?context=edit`, asKey(role));
      cells += 3;
      const revealed = (r: Json) => r.status === 200 && String(r.body.description).includes(RUN);
      const mayEdit = WRITE[own].protected.includes(role);
      const seen = [revealed(withPassword), revealed(wrong), revealed(edit)];
      const expected = [true, false, mayEdit];
      if (JSON.stringify(seen) !== JSON.stringify(expected)) failures.push(`${role} ${own} ${kind}: revealed ${JSON.stringify(seen)} ≠ ${JSON.stringify(expected)}`);
      if (kind === "event") {
        if (wrong.status !== 403 || (!mayEdit && edit.status !== 403)) failures.push(`${role} ${own} event: ${wrong.status}/${edit.status}, expected 403s`);
      } else if (wrong.status !== 200 || edit.status !== 200) failures.push(`${role} ${own} ${kind}: ${wrong.status}/${edit.status}, expected 200 (blanked)`);
      if (/post_password|Matrix Secret/.test(withPassword.text + edit.text)) failures.push(`${role} ${kind}: the password itself was returned`);
    });
    expect(failures).toEqual([]);
  });

  test("update by id and by slug", async () => {
    const failures: string[] = [];
    await pool(grid(), 8, async ({ kind, state, role, own }) => {
      const f = shared.get(fixtureKey(kind, state, ownerFor(role, own)))!;
      const change = kind === "event" ? { excerpt: `changed by ${role}` } : { phone: `555-${ROLES.indexOf(role)}` };
      for (const path of [`/${PLURAL[kind]}/${f.id}`, `/${PLURAL[kind]}/by-slug/${encodeURIComponent(f.slug)}`]) {
        const res = await svc.request("PATCH", path, { as: asKey(role), body: change });
        cells++;
        const allowed = WRITE[own][state].includes(role);
        const expected = allowed ? 200 : denied(role);
        if (res.status !== expected) failures.push(`${role} PATCH ${own} ${kind} ${state} ${path}: ${res.status} ${res.body?.code} ≠ ${expected}`);
        else if (!allowed) expectContractError(res, expected, "rest_forbidden");
        else if (res.body.status !== (state === "protected" ? "publish" : state)) failures.push(`${role} PATCH ${path}: status became ${res.body.status}`);
      }
    });
    expect(failures).toEqual([]);
  });

  test("delete by id and by slug (a fresh record per cell)", async () => {
    const cellsToRun = grid().flatMap(c => [{ ...c, bySlug: false }, { ...c, bySlug: true }]);
    const failures: string[] = [];
    await pool(cellsToRun, 8, async ({ kind, state, role, own, bySlug }) => {
      const f = await make(kind, state, ownerFor(role, own), `${RUN}d`);
      const path = bySlug ? `/${PLURAL[kind]}/by-slug/${encodeURIComponent(f.slug)}` : `/${PLURAL[kind]}/${f.id}`;
      const res = await svc.request("DELETE", path, { as: asKey(role) });
      cells++;
      const allowed = WRITE[own][state].includes(role);
      let expected: [number, string?];
      if (!allowed) expected = [denied(role), "rest_forbidden"];
      else if (state === "trash") expected = [410, `${kind}-is-in-trash`];
      else expected = [200];
      const got: [number, string?] = res.status === 200 ? [200] : [res.status, res.body?.code];
      if (JSON.stringify(got) !== JSON.stringify(expected)) failures.push(`${role} DELETE ${own} ${kind} ${state} ${path}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`);
      else if (res.status !== 200) expectContractError(res, expected[0], expected[1]);
      else if (res.body.status !== "trash") failures.push(`${role} DELETE ${path}: status ${res.body.status}`);
      // a refused delete leaves the record as it was
      if (!allowed) {
        const after = await svc.get(`/${PLURAL[kind]}/${f.id}?context=edit`, "admin");
        const status = kind === "event" && state === "trash" ? 403 : 200;
        if (after.status !== status || (status === 200 && after.body.status !== (state === "protected" ? "publish" : state))) failures.push(`${role} DELETE ${path}: refused but the record changed`);
      }
    });
    expect(failures).toEqual([]);
  });

  test("create with each requested status", async () => {
    const failures: string[] = [];
    await pool(KINDS.flatMap(kind => STATES.flatMap(state => ROLES.map(role => ({ kind, state, role })))), 8, async ({ kind, state, role }) => {
      const n = ++seq;
      const body: Record<string, unknown> = {
        [NAME_FIELD[kind]]: `${RUN}c ${kind} ${state} ${role} ${n}`,
        status: state === "protected" ? "publish" : state,
        ...(state === "future" ? { date: "+5 days" } : {}),
        ...(state === "protected" ? { post_password: PASSWORD } : {}),
        ...(kind === "event" ? { start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" } : {})
      };
      const res = await svc.request("POST", `/${PLURAL[kind]}`, { as: asKey(role), body });
      cells++;
      const expected = CREATED_STATUS[role][state];
      if (typeof expected === "number") {
        if (res.status !== expected) failures.push(`${role} POST ${kind} ${state}: ${res.status} ≠ ${expected}`);
        else expectContractError(res, expected, "rest_forbidden");
      } else if (res.status !== 201 || res.body.status !== expected || res.body.author !== String(userOf(role))) {
        failures.push(`${role} POST ${kind} ${state}: ${res.status} status=${res.body?.status} author=${res.body?.author} ≠ 201 ${expected} ${userOf(role)}`);
      }
    });
    expect(failures).toEqual([]);
  });

  test("default lists and searches show each status to the roles of docs/authorization.md#list-visibility, from every author (D26: lists show everyone's non-public records to editors of the kind)", async () => {
    const failures: string[] = [];
    await pool(KINDS.flatMap(kind => ROLES.map(role => ({ kind, role }))), 6, async ({ kind, role }) => {
      const listed = new Set<number>();
      for (let page = 1; ; page++) {
        const res = await svc.get(`/${PLURAL[kind]}?search=${RUN}&per_page=50&page=${page}`, asKey(role));
        cells++;
        if (res.status === 404 && page > 1) break;
        if (res.status !== 200) { failures.push(`${role} list ${kind}: ${res.status}`); break; }
        for (const item of res.body[PLURAL[kind]]) listed.add(item.id);
        if (page >= res.body.total_pages) break;
      }
      for (const f of shared.values()) {
        if (f.kind !== kind) continue;
        const expected = LISTED[f.state].includes(role);
        if (listed.has(f.id) !== expected) failures.push(`${role} list ${kind}: ${f.state} record of user ${f.owner} ${expected ? "missing" : "shown"}`);
      }
    });
    expect(failures).toEqual([]);
  });

  test("asking a list for a status: only `publish` for callers without edit_posts, any registered status for the others", async () => {
    const failures: string[] = [];
    for (const kind of KINDS) {
      for (const role of ROLES) {
        for (const status of ["publish", "draft", "private", "trash", "future,pending"]) {
          const res = await svc.get(`/${PLURAL[kind]}?search=${RUN}&status=${status}&per_page=50`, asKey(role));
          cells++;
          const allowed = status === "publish" || WRITERS.includes(role);
          if (!allowed) {
            if (res.status !== 400 || res.body.code !== "rest_invalid_param") failures.push(`${role} ${kind} status=${status}: ${res.status}`);
            continue;
          }
          const wanted = status.split(",");
          const got = (res.body[PLURAL[kind]] ?? []).map((r: Json) => r.status);
          // docs/lists.md#venue-and-organizer-filters: a venue/organizer search never matches trashed records
          const expectSome = !(kind !== "event" && status === "trash");
          if (res.status !== 200 || got.some((s: string) => !wanted.includes(s)) || (got.length > 0) !== expectSome) failures.push(`${role} ${kind} status=${status}: ${res.status} ${JSON.stringify(got)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  test("terms: anyone reads; categories are managed by administrators, editors and authors, tags by administrators and editors", async () => {
    const failures: string[] = [];
    for (const taxonomy of ["categories", "tags"] as const) {
      for (const role of ROLES) {
        const may = TERM_MANAGERS[taxonomy].includes(role);
        const expected = may ? undefined : denied(role);
        const created = await svc.request("POST", `/${taxonomy}`, { as: asKey(role), body: { name: `${RUN} ${taxonomy} ${role}` } });
        cells++;
        if (created.status !== (may ? 201 : expected)) failures.push(`${role} create ${taxonomy}: ${created.status}`);
        if (!may) expectContractError(created, expected, "rest_forbidden");
        const target = may ? created.body.id : (await svc.request("POST", `/${taxonomy}`, { as: "admin", body: { name: `${RUN} ${taxonomy} for ${role}` } })).body.id;
        const read = await svc.get(`/${taxonomy}/${target}`, asKey(role));
        const list = await svc.get(`/${taxonomy}?hide_empty=false&search=${RUN}`, asKey(role));
        const updated = await svc.request("PATCH", `/${taxonomy}/${target}`, { as: asKey(role), body: { description: `by ${role}` } });
        const removed = await svc.request("DELETE", `/${taxonomy}/${target}`, { as: asKey(role) });
        cells += 4;
        if (read.status !== 200 || list.status !== 200) failures.push(`${role} read ${taxonomy}: ${read.status}/${list.status}`);
        if (updated.status !== (may ? 200 : expected)) failures.push(`${role} update ${taxonomy}: ${updated.status}`);
        if (removed.status !== (may ? 200 : expected)) failures.push(`${role} delete ${taxonomy}: ${removed.status}`);
        if (!may) {
          expectContractError(updated, expected, "rest_forbidden");
          expectContractError(removed, expected, "rest_forbidden");
          const still = await svc.get(`/${taxonomy}/${target}`);
          if (still.status !== 200 || still.body.description !== "") failures.push(`${role} ${taxonomy}: a refused write changed the term`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
