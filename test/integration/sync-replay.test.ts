/**
 * The change feed through HTTP (README "Beyond the reference", C20): a sync client that replays the feed
 * from nothing, page by page through `next_token`, after a mixed sequence of creates, updates, trashes and
 * term deletes, ends with exactly the records the full lists return — for an administrator and for an
 * anonymous caller; and a client that syncs again from its last token catches up with later changes.
 */
import { startService, succeed, Running } from "../helpers/harness";
import { dayAt } from "../helpers/events";
import { Copy, fullLists, sorted, syncFeed } from "../helpers/sync-client";

let svc: Running;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

const ok = (method: string, path: string, body?: Record<string, unknown>, status?: number[]) => succeed(svc, method, path, body, status);

const event = (title: string, extra: Record<string, unknown> = {}) =>
  ok("POST", "/events", { title, start_date: dayAt(3, "19:00:00"), end_date: dayAt(3, "22:00:00"), ...extra });

/** Event records without the embedded terms' `count` (it moves with every publication; README). */
function withoutEmbeddedCounts(copy: Copy): Copy {
  const out: Copy = new Map();
  for (const [key, record] of copy) {
    if (!key.startsWith("event:")) {
      out.set(key, record);
      continue;
    }
    const strip = (terms: unknown) => (Array.isArray(terms) ? terms.map(t => ({ ...t, count: 0 })) : terms);
    out.set(key, { ...record, categories: strip(record.categories), tags: strip(record.tags) });
  }
  return out;
}

describe("sync from an empty copy", () => {
  const admin: Copy = new Map();
  const anonymous: Copy = new Map();
  let adminToken = "";
  let anonymousToken = "";

  beforeAll(async () => {
    const music = await ok("POST", "/categories", { name: "Music" });
    const jazz = await ok("POST", "/categories", { name: "Jazz", parent: music.id });
    const outdoor = await ok("POST", "/tags", { name: "Outdoor" });
    const late = await ok("POST", "/tags", { name: "Late" });
    const hall = await ok("POST", "/venues", { venue: "Blue Hall", city: "Rome" });
    const park = await ok("POST", "/venues", { venue: "Green Park", city: "Milan" });
    const club = await ok("POST", "/organizers", { organizer: "Jazz Club", email: "club@example.org" });
    const a = await event("Opening night", { categories: [music.id], tags: [outdoor.id, late.id], venue: hall.id, organizer: club.id });
    const b = await event("Park concert", { categories: [jazz.id], venue: park.id });
    const draft = await event("Secret rehearsal", { status: "draft" });
    await event("Members only", { status: "private", categories: [jazz.id] });
    await event("Protected talk", { post_password: "pw", description: "Hidden words.", tags: ["Fresh tag"] });
    await ok("POST", `/events/${a.id}`, { title: "Opening night (updated)" });
    await ok("POST", `/venues/${hall.id}`, { venue: "Blue Hall (renamed)" });
    await ok("DELETE", `/events/${b.id}`);
    await ok("DELETE", `/tags/${outdoor.id}`);
    await ok("DELETE", `/categories/${music.id}`);
    await ok("DELETE", `/venues/${park.id}`);
    await ok("POST", `/events/${draft.id}`, { status: "publish" });
    const gone = await event("Cancelled");
    await ok("DELETE", `/events/${gone.id}`);
    await ok("POST", `/categories/${jazz.id}`, { description: "Swing and bebop" });

    ({ token: adminToken } = await syncFeed(svc, admin, { as: "admin", perPage: 4 }));
    ({ token: anonymousToken } = await syncFeed(svc, anonymous, { perPage: 3 }));
  });

  test("the administrator's copy is exactly what the lists show it", async () => {
    const lists = await fullLists(svc, "admin");
    expect(lists.size).toBeGreaterThan(8);
    expect(sorted(admin)).toEqual(sorted(lists));
  });

  test("the anonymous copy is exactly what the lists show anonymous callers (no draft, no private, blanked password)", async () => {
    const lists = await fullLists(svc);
    expect(sorted(anonymous)).toEqual(sorted(lists));
    const titles = [...anonymous.values()].map(r => r.title).filter(Boolean);
    expect(titles).not.toContain("Members only");
    const protectedTalk = [...anonymous.values()].find(r => r.title === "Protected talk");
    expect(protectedTalk?.description).toBe("");
  });

  test("a later sync from the last token catches up (records embedding a renamed venue included)", async () => {
    const venue = await ok("POST", "/venues", { venue: "Red Room" });
    const ev = await event("Late show", { venue: venue.id });
    const other = await event("Early show");
    await ok("POST", `/venues/${venue.id}`, { venue: "Red Room (new name)" });
    await ok("POST", `/events/${other.id}`, { status: "private" });
    const tag = await ok("POST", "/tags", { name: "Encore" });
    await ok("POST", `/events/${ev.id}`, { tags: [tag.id] });
    await ok("DELETE", `/tags/${tag.id}`);

    await syncFeed(svc, admin, { as: "admin", token: adminToken, perPage: 2 });
    await syncFeed(svc, anonymous, { token: anonymousToken, perPage: 2 });
    expect(sorted(withoutEmbeddedCounts(admin))).toEqual(sorted(withoutEmbeddedCounts(await fullLists(svc, "admin"))));
    expect(sorted(withoutEmbeddedCounts(anonymous))).toEqual(sorted(withoutEmbeddedCounts(await fullLists(svc))));
    expect((anonymous.get(`event:${ev.id}`)?.venue as Record<string, unknown>).venue).toBe("Red Room (new name)");
    expect(anonymous.has(`event:${other.id}`)).toBe(false);
  });
});
