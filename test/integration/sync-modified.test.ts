/**
 * `modified_after` / `modified_before` on every list (C20: the change feed): events, venues, organizers, categories and tags
 * (terms by their internal modified time), validated like the other date filters, carried in the list
 * links, and documented in the namespace index.
 */
import { startService, Running } from "../helpers/harness";
import { dayAt, expectError, token } from "../helpers/events";
import type { Json } from "../helpers/json";

let svc: Running;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));
const utcNow = () => new Date().toISOString().slice(0, 19).replace("T", " ");

async function create(path: string, body: Record<string, unknown>) {
  const res = await svc.request("POST", path, { as: "admin", body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

const LISTS = [
  { path: "/events", key: "events", make: (name: string) => ({ title: name, start_date: dayAt(5, "09:00:00"), end_date: dayAt(5, "10:00:00") }) },
  { path: "/venues", key: "venues", make: (name: string) => ({ venue: name }) },
  { path: "/organizers", key: "organizers", make: (name: string) => ({ organizer: name }) },
  { path: "/categories", key: "categories", make: (name: string) => ({ name }) },
  { path: "/tags", key: "tags", make: (name: string) => ({ name }) }
];

describe("modified_after / modified_before", () => {
  const word = token("mod");
  const made: Record<string, { early: number; late: number }> = {};
  let middle = "";

  beforeAll(async () => {
    for (const list of LISTS) made[list.path] = { early: (await create(list.path, list.make(`${word} early`))).id, late: 0 };
    await sleep(1100);
    middle = utcNow();
    await sleep(1100);
    for (const list of LISTS) made[list.path].late = (await create(list.path, list.make(`${word} late`))).id;
  });

  test.each(LISTS.map(l => [l.path, l.key]))("%s keeps the records modified strictly after / before the instant", async (path, key) => {
    const extra = path === "/categories" || path === "/tags" ? "&hide_empty=false" : "";
    const ids = async (q: string) => {
      const res = await svc.get(`${path}?search=${word}${extra}&${q}`);
      expect(res.status).toBe(200);
      return res.body[key].map((r: Json) => r.id);
    };
    const { early, late } = made[path];
    expect(await ids(`modified_after=${encodeURIComponent(middle)}`)).toEqual([late]);
    expect(await ids(`modified_before=${encodeURIComponent(middle)}`)).toEqual([early]);
    // an explicit offset is converted; the pair bounds both ways
    const plusTwo = new Date(Date.parse(`${middle.replace(" ", "T")}Z`) + 2 * 3600_000).toISOString().slice(0, 19);
    expect(await ids(`modified_after=${encodeURIComponent(`${plusTwo}+02:00`)}`)).toEqual([late]);
    expect(await ids(`modified_after=2000-01-01&modified_before=${encodeURIComponent(middle)}`)).toEqual([early]);
    expect((await ids("modified_after=tomorrow")).length).toBe(0);
  });

  test("a value that is not a date is 400 naming it", async () => {
    for (const list of LISTS) {
      const res = await svc.get(`${list.path}?modified_after=before%20my%20birthday&modified_before=${encodeURIComponent(middle)}`);
      expectError(res, 400, "rest_invalid_param");
      expect(Object.keys(res.body.data.params)).toEqual(["modified_after"]);
    }
  });

  test("the list links carry them (events, venues: rest_url; terms: the Link header)", async () => {
    const ev = await svc.get(`/events?search=${word}&modified_after=2000-01-01&modified_before=2100-01-01&per_page=1`);
    expect(ev.body.rest_url).toContain("&search=" + word);
    expect(ev.body.rest_url).toMatch(/&modified_after=2000-01-01&modified_before=2100-01-01$/);
    expect(ev.body.next_rest_url).toContain("modified_after=2000-01-01&modified_before=2100-01-01&page=2");
    const venues = await svc.get(`/venues?search=${word}&modified_before=2100-01-01&per_page=1`);
    expect(venues.body.rest_url).toMatch(/search=[^&]+&modified_before=2100-01-01$/);
    const tags = await svc.get(`/tags?search=${word}&hide_empty=false&modified_after=2000-01-01&per_page=1`);
    expect(tags.headers.get("link")).toContain("modified_after=2000-01-01");
  });

  test("the namespace index documents them on every list, and json_ld and format on the events list", async () => {
    const index = await svc.get(svc.ns);
    const args = (route: string) => index.body.routes[`/calendar/events/v1${route}`].endpoints[0].args;
    for (const list of LISTS) {
      expect(args(list.path).modified_after).toEqual(expect.objectContaining({ type: "string", required: false }));
      expect(args(list.path).modified_before).toEqual(expect.objectContaining({ type: "string", required: false }));
    }
    expect(args("/events").json_ld).toEqual(expect.objectContaining({ type: "boolean" }));
    expect(args("/events").format).toEqual(expect.objectContaining({ enum: ["json", "ics"] }));
    expect(args("/changes")).toEqual(expect.objectContaining({ since: expect.objectContaining({ type: "string" }), per_page: expect.objectContaining({ default: 50 }) }));
  });
});
