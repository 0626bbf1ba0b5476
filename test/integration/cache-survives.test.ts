/**
 * Kept answers survive the writes that do not touch them (docs/caching.md): a write cleans the pages of
 * what it wrote (with the event pages a venue is embedded in) and the list bodies that show it, the plain
 * list pages only when it changed what they select by, and leaves every other record's page kept, while
 * every read after the write still sees it (C16: read your writes).
 */
import { startService, succeed, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

describe("kept answers that survive writes", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "" }); });
  afterAll(async () => { await svc.stop(); });

  /** The keys of the kept answers of the default site. */
  async function keys(): Promise<string[]> {
    return ((await svc.broker.cacher!.getCacheKeys()) as Array<{ key: string }>).map(k => k.key).filter(k => k.split(":")[1] === "1");
  }

  /** The dependency tags (`S`, `E12`, `V3`, `L`, `B`…) of the kept answers of the default site. */
  async function kept(): Promise<Set<string>> {
    // the site's custom field definitions, which only a definition's change makes stale, are asked again
    // by a write's own answer; they are not a page this test follows
    return new Set((await keys()).filter(k => !k.includes(":S:fields:")).map(k => k.split(":")).map(parts => `${parts[0]}:${parts[2]}`));
  }

  /** The ids shown by each kept list body (`RESP:1:B:<hash>:<total>:,<ids>,`), sorted. */
  async function bodies(): Promise<string[]> {
    return (await keys()).filter(k => k.startsWith("RESP:1:B:")).map(k => k.slice(k.lastIndexOf(":") + 1)).sort();
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
    expect(await kept()).toEqual(new Set(["RESP:L", "RESP:B", `RESP:E${a.id}`, `RESP:E${b.id}`, `RESP:V${venue.id}`, "ACT:S", `ACT:V${venue.id}`]));

    await succeed(svc, "POST", `/events/${a.id}`, { title: "First, renamed" });
    // the list page stays (same events, same total); its body showed the renamed event and goes
    expect(await kept()).toEqual(new Set(["RESP:L", `RESP:E${b.id}`, `RESP:V${venue.id}`, `ACT:V${venue.id}`]));
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

  test("a title changes only the list bodies showing the event; a date changes which events the pages show", async () => {
    const day = (d: number) => new Date(Date.now() + d * 86400000).toISOString().slice(0, 10);
    const [v1, v2] = [await succeed(svc, "POST", "/venues", { venue: "North" }), await succeed(svc, "POST", "/venues", { venue: "South" })];
    const make = (title: string, venue: number, d: number) => succeed(svc, "POST", "/events", { title, start_date: `${day(d)} 10:00`, end_date: `${day(d)} 11:00`, venue });
    const [c, d, e] = [await make("Choir", v1.id, 20), await make("Dance", v1.id, 21), await make("Elegy", v2.id, 22)];
    const lists = [`/events?venue=${v1.id}`, `/events?venue=${v2.id}`];
    const read = async () => {
      const pages = await Promise.all(lists.map(path => svc.get(path)));
      for (const p of pages) expect(p.status).toBe(200);
      return pages.map(p => p.body.events.map((ev: Json) => `${ev.title}@${ev.start_date.slice(0, 10)}`));
    };
    expect(await read()).toEqual([[`Choir@${day(20)}`, `Dance@${day(21)}`], [`Elegy@${day(22)}`]]);
    expect(await bodies()).toEqual([`,${c.id},${d.id},`, `,${e.id},`]);

    await succeed(svc, "POST", `/events/${e.id}`, { title: "Elegy II" });
    expect(await bodies()).toEqual([`,${c.id},${d.id},`]);
    expect((await keys()).filter(k => k.startsWith("RESP:1:L:"))).toHaveLength(2);
    expect(await read()).toEqual([[`Choir@${day(20)}`, `Dance@${day(21)}`], [`Elegy II@${day(22)}`]]);

    // a new date moves the event within its list: every page is computed again
    await succeed(svc, "POST", `/events/${d.id}`, { start_date: `${day(19)} 10:00`, end_date: `${day(19)} 11:00` });
    expect((await keys()).filter(k => k.startsWith("RESP:1:L:"))).toEqual([]);
    expect(await read()).toEqual([[`Dance@${day(19)}`, `Choir@${day(20)}`], [`Elegy II@${day(22)}`]]);

    // a move to the other venue: both filtered lists change
    await succeed(svc, "POST", `/events/${c.id}`, { venue: v2.id });
    expect(await read()).toEqual([[`Dance@${day(19)}`], [`Choir@${day(20)}`, `Elegy II@${day(22)}`]]);
  });
});
