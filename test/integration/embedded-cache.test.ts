/**
 * Records as events embed them, kept one entry per record (docs/caching.md#embedded-records): a venue,
 * organizer or term is computed once for every event page that embeds it, a write of one drops its own
 * entries and no other's, and a value computed while a write cleaned the cache is not kept.
 */
import type { Context } from "moleculer";
import { startService, succeed, Running } from "../helpers/harness";
import { CacheMixin } from "../../mixins/cache.mixin";

describe("embedded records, kept per record", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "" }); });
  afterAll(async () => { await svc.stop(); });

  /** The kept embed entries of the default site, by dependency tag (`V3`, `O4`, `T7`). */
  async function embedded(): Promise<string[]> {
    const keys = ((await svc.broker.cacher!.getCacheKeys()) as Array<{ key: string }>).map(k => k.key);
    return keys.filter(k => k.startsWith("ACT:1:") && k.includes(".embed:")).map(k => k.split(":")[2]).sort();
  }

  test("one entry per record, whatever embeds it; a write drops that record's entries alone; reads see every write", async () => {
    const day = new Date(Date.now() + 12 * 86400000).toISOString().slice(0, 10);
    const venue = await succeed(svc, "POST", "/venues", { venue: "Kept Hall", status: "publish" });
    const organizer = await succeed(svc, "POST", "/organizers", { organizer: "Kept Org", status: "publish" });
    const category = await succeed(svc, "POST", "/categories", { name: "Kept Category" });
    const make = (title: string) => succeed(svc, "POST", "/events", {
      title, start_date: `${day} 10:00`, end_date: `${day} 11:00`, venue: venue.id, organizer: [organizer.id], categories: [category.id]
    });
    const [a, b] = [await make("Embeds A"), await make("Embeds B")];
    const read = async () => {
      const pages = await Promise.all([svc.get(`/events/${a.id}`), svc.get(`/events/${b.id}`)]);
      for (const p of pages) expect(p.status).toBe(200);
      return pages.map(p => p.body);
    };
    const [first] = await read();
    expect(first.venue.venue).toBe("Kept Hall");
    // the administrator's creates embedded them once, the two anonymous pages once more: one entry per caller
    const both = [`O${organizer.id}`, `O${organizer.id}`, `T${category.id}`, `T${category.id}`, `V${venue.id}`, `V${venue.id}`].sort();
    expect(await embedded()).toEqual(both);
    await read();
    expect(await embedded()).toEqual(both);

    // another caller (another key) gets entries of its own: what it may see of a record is its own
    expect((await svc.get(`/events/${a.id}`, "editor")).status).toBe(200);
    expect((await embedded()).filter(tag => tag === `V${venue.id}`)).toHaveLength(3);

    await succeed(svc, "POST", `/organizers/${organizer.id}`, { organizer: "Renamed Org" });
    expect((await embedded()).filter(tag => tag.startsWith("O"))).toEqual([]);
    expect((await embedded()).filter(tag => tag === `V${venue.id}`)).toHaveLength(3);
    for (const page of await read()) {
      expect(page.organizer[0].organizer).toBe("Renamed Org");
      expect(page.venue.venue).toBe("Kept Hall");
    }

    await succeed(svc, "POST", `/venues/${venue.id}`, { venue: "Renamed Hall" });
    expect((await embedded()).filter(tag => tag.startsWith("V"))).toEqual([]);
    for (const page of await read()) expect(page.venue.venue).toBe("Renamed Hall");

    // a term's write (its name; a count moves with an event's write to its terms) drops all of the site
    await succeed(svc, "POST", `/categories/${category.id}`, { name: "Renamed Category" });
    expect(await embedded()).toEqual([]);
    for (const page of await read()) expect(page.categories[0].name).toBe("Renamed Category");
    const third = await make("Embeds C");
    const [again] = await read();
    expect(again.categories[0].count).toBe(3);
    expect((await svc.get(`/events/${third.id}`)).body.categories[0].count).toBe(3);
  });

  test("a trusted internal caller (no caller in meta) and an anonymous one (null) never share a kept answer", async () => {
    const draft = await succeed(svc, "POST", "/venues", { venue: "Draft Only Hall", status: "draft" });
    const names = (answer: unknown) => ((answer as { venues: Array<{ venue: string }> }).venues ?? []).map(v => v.venue);
    const anonymous = await svc.broker.call("venues.list", { per_page: 50 }, { meta: { caller: null } });
    expect(names(anonymous)).not.toContain("Draft Only Hall");
    const internal = await svc.broker.call("venues.list", { per_page: 50 });
    expect(names(internal)).toContain("Draft Only Hall");
    // and the other way round, for one record as events embed it
    const inside = await svc.broker.call("venues.embed", { ids: [draft.id] }) as Record<string, unknown>;
    expect(Object.keys(inside)).toEqual([String(draft.id)]);
    const outside = await svc.broker.call("venues.embed", { ids: [draft.id] }, { meta: { caller: null } }) as Record<string, unknown>;
    expect(outside).toEqual({});
  });

  test("a scheduled venue is not kept (its status moves with the clock)", async () => {
    const day = new Date(Date.now() + 14 * 86400000).toISOString().slice(0, 10);
    const later = new Date(Date.now() + 3 * 86400000).toISOString().slice(0, 19).replace("T", " ");
    const venue = await succeed(svc, "POST", "/venues", { venue: "Future Hall", status: "future", date: later });
    const event = await succeed(svc, "POST", "/events", { title: "At a scheduled venue", start_date: `${day} 10:00`, end_date: `${day} 11:00`, venue: venue.id });
    expect(venue.status).toBe("future");
    const page = await svc.get(`/events/${event.id}`, "admin");
    expect(page.status).toBe(200);
    expect(page.body.venue.venue).toBe("Future Hall");
    expect((await embedded()).filter(tag => tag === `V${venue.id}`)).toEqual([]);
  });

  test("a value computed while a write cleaned its key is not kept; one computed undisturbed, or across another key's clean, is", async () => {
    let cleanWhileComputing: string | undefined;
    svc.broker.createService({
      name: "embedprobe",
      mixins: [CacheMixin],
      actions: {
        embed(ctx: Context<{ ids: number[] }>) {
          return this.keptPerRecord(ctx, "venue", ctx.params.ids, "probe", async (missing: number[]) => {
            if (cleanWhileComputing) await this.broker.cacher.clean(cleanWhileComputing);
            return new Map(missing.map(id => [id, { value: { id, at: Date.now() }, keep: true }]));
          });
        }
      }
    });
    await svc.broker.waitForServices("embedprobe");
    const kept = async (id: number) => ((await svc.broker.cacher!.getCacheKeys()) as Array<{ key: string }>).some(k => k.key.startsWith(`ACT:1:V${id}:embedprobe.embed:`));

    cleanWhileComputing = "ACT:1:V900001:**";
    const one = await svc.broker.call("embedprobe.embed", { ids: [900001] }) as Record<string, { id: number }>;
    expect(one["900001"].id).toBe(900001);
    expect(await kept(900001)).toBe(false);
    cleanWhileComputing = "ACT:1:**";
    await svc.broker.call("embedprobe.embed", { ids: [900001] });
    expect(await kept(900001)).toBe(false);

    cleanWhileComputing = "ACT:1:V900009:**";
    await svc.broker.call("embedprobe.embed", { ids: [900001] });
    expect(await kept(900001)).toBe(true);

    cleanWhileComputing = undefined;
    const first = await svc.broker.call("embedprobe.embed", { ids: [900002, 900002] }) as Record<string, { at: number }>;
    expect(Object.keys(first)).toEqual(["900002"]);
    expect(await kept(900002)).toBe(true);
    const second = await svc.broker.call("embedprobe.embed", { ids: [900002] }) as Record<string, { at: number }>;
    expect(second["900002"].at).toBe(first["900002"].at);
    await svc.broker.destroyService("embedprobe");
  });
});
