/**
 * Kept answers survive the writes that do not touch them (docs/caching.md): a write cleans its site's
 * lists and the pages of what it wrote (with the event pages a venue is embedded in), and leaves every
 * other record's page kept, while every read after the write still sees it (C16).
 */
import { startService, succeed, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

describe("kept answers that survive writes", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "" }); });
  afterAll(async () => { await svc.stop(); });

  /** The dependency tags (`S`, `E12`, `V3`…) of the kept answers of the default site. */
  async function kept(): Promise<Set<string>> {
    const keys = (await svc.broker.cacher!.getCacheKeys()) as Array<{ key: string }>;
    return new Set(keys.map(k => k.key.split(":")).filter(parts => parts[1] === "1").map(parts => `${parts[0]}:${parts[2]}`));
  }

  test("an event's write keeps the other events' and the venues' pages; a venue's write drops the event pages", async () => {
    const day = new Date(Date.now() + 9 * 86400000).toISOString().slice(0, 10);
    const venue = await succeed(svc, "POST", "/venues", { venue: "Blue Hall", status: "publish" });
    const make = (title: string) => succeed(svc, "POST", "/events", { title, start_date: `${day} 10:00`, end_date: `${day} 11:00`, venue: venue.id });
    const [a, b] = [await make("First"), await make("Second")];
    const read = async () => {
      const pages = await Promise.all([svc.get(`/events/${a.id}`), svc.get(`/events/${b.id}`), svc.get(`/venues/${venue.id}`), svc.get("/events")]);
      for (const p of pages) expect(p.status).toBe(200);
      return pages;
    };
    await read();
    expect(await kept()).toEqual(new Set(["RESP:S", `RESP:E${a.id}`, `RESP:E${b.id}`, `RESP:V${venue.id}`, "ACT:S", `ACT:V${venue.id}`]));

    await succeed(svc, "POST", `/events/${a.id}`, { title: "First, renamed" });
    expect(await kept()).toEqual(new Set([`RESP:E${b.id}`, `RESP:V${venue.id}`, `ACT:V${venue.id}`]));
    const [pageA, pageB, , list] = await read();
    expect(pageA.body.title).toBe("First, renamed");
    expect(pageB.body.title).toBe("Second");
    expect(list.body.events.map((e: Json) => e.title)).toEqual(expect.arrayContaining(["First, renamed", "Second"]));

    await succeed(svc, "POST", `/venues/${venue.id}`, { venue: "Green Hall" });
    expect([...(await kept())].filter(tag => /:E\d+$/.test(tag) || tag.endsWith(`V${venue.id}`))).toEqual([]);
    const [againA, againB, v] = await read();
    expect(againA.body.venue.venue).toBe("Green Hall");
    expect(againB.body.venue.venue).toBe("Green Hall");
    expect(v.body.venue).toBe("Green Hall");
  });
});
