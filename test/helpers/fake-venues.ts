/**
 * A stand-in for the venues service in geolocation tests: an in-memory table of venues with the actions
 * the events service calls (validateLinks, link, embed) and those the geolocation service needs
 * (coordinates, locationFeed, setCoordinates). Its writes announce `calendar.venue.*` like the real one;
 * `silently` writes don't (a write made while no geolocation service listened).
 */
import type { Context, ServiceBroker } from "moleculer";
import { Errors } from "moleculer";

export interface FakeVenue {
  id: number;
  venue: string;
  status: string;
  modified_utc: string;
  geo_lat?: number;
  geo_lng?: number;
  address?: string;
  city?: string;
  state?: string;
  province?: string;
  stateprovince?: string;
  zip?: string;
  country?: string;
}

export type VenueInput = Partial<Omit<FakeVenue, "id" | "modified_utc">>;

export interface FakeVenues {
  table: Map<number, FakeVenue>;
  /** Every venues.setCoordinates call received. */
  writes: Array<{ id: number; geo_lat: number | null; geo_lng: number | null }>;
  /** The parameters of every venues.locationFeed call received. */
  feedCalls: Array<{ ids?: number[]; since?: string; afterId?: number; limit?: number }>;
  create(input: VenueInput, opts?: { silently?: boolean; id?: number }): Promise<FakeVenue>;
  update(id: number, input: VenueInput & { geo_lat?: number | null; geo_lng?: number | null }, opts?: { silently?: boolean }): Promise<FakeVenue>;
  trash(id: number, opts?: { silently?: boolean }): Promise<FakeVenue>;
}

const idsOf = (value: unknown): number[] => {
  const list = Array.isArray(value) ? value : [value];
  return list.map(v => (v && typeof v === "object" ? Number((v as { id?: unknown }).id) : Number(v)));
};

/** Creates the fake `venues` service on the broker (started at once when the broker runs). */
export async function createFakeVenues(broker: ServiceBroker, firstId = 10_000): Promise<FakeVenues> {
  const table = new Map<number, FakeVenue>();
  const writes: FakeVenues["writes"] = [];
  const feedCalls: FakeVenues["feedCalls"] = [];
  let nextId = firstId;
  // A clock of its own: every write one second later, so feed positions are deterministic.
  let clock = Date.parse("2030-01-01T00:00:00Z");
  const tick = () => new Date((clock += 1000)).toISOString().slice(0, 19).replace("T", " ");
  const announce = async (action: string, v: FakeVenue, silently?: boolean) => {
    // like every write of the real service: cached reads cleaned everywhere, then the announcement
    await broker.broadcast("cache.clean.calendar");
    if (!silently) await broker.emit(`calendar.venue.${action}`, { id: v.id, status: v.status, modified_utc: v.modified_utc });
  };
  const entry = (v: FakeVenue) => ({
    id: v.id, status: v.status, modified_utc: v.modified_utc,
    ...(v.geo_lat !== undefined && v.geo_lng !== undefined ? { geo_lat: v.geo_lat, geo_lng: v.geo_lng } : {}),
    address: v.address ?? "", city: v.city ?? "", state: v.state ?? "", province: v.province ?? "",
    stateprovince: v.stateprovince ?? "", zip: v.zip ?? "", country: v.country ?? ""
  });

  broker.createService({
    name: "venues",
    actions: {
      validateLinks(ctx: Context<{ value: unknown }>) {
        for (const id of idsOf(ctx.params.value)) {
          if (!table.has(id)) throw new Errors.MoleculerClientError("unknown venue", 400, "rest_invalid_param", { status: 400, params: ["venue"] });
        }
        return true;
      },
      link(ctx: Context<{ value: unknown }>) {
        return idsOf(ctx.params.value).filter(id => table.has(id));
      },
      embed(ctx: Context<{ ids: number[] }>) {
        const out: Record<number, { id: number; venue: string }> = {};
        for (const id of ctx.params.ids) {
          const v = table.get(Number(id));
          if (v) out[v.id] = { id: v.id, venue: v.venue };
        }
        return out;
      },
      coordinates(ctx: Context<{ ids: number[] }>) {
        const out: Record<number, { geo_lat: number; geo_lng: number }> = {};
        for (const id of ctx.params.ids) {
          const v = table.get(Number(id));
          if (v && v.geo_lat !== undefined && v.geo_lng !== undefined) out[v.id] = { geo_lat: v.geo_lat, geo_lng: v.geo_lng };
        }
        return out;
      },
      locationFeed(ctx: Context<{ ids?: number[]; since?: string; afterId?: number; limit?: number }>) {
        feedCalls.push({ ...ctx.params });
        const { ids, since, afterId = 0, limit = 500 } = ctx.params;
        if (ids) return ids.map(id => table.get(Number(id))).filter((v): v is FakeVenue => !!v).map(entry);
        return [...table.values()]
          .filter(v => since === undefined || v.modified_utc > since || (v.modified_utc === since && v.id > afterId))
          .sort((a, b) => (a.modified_utc < b.modified_utc ? -1 : a.modified_utc > b.modified_utc ? 1 : a.id - b.id))
          .slice(0, limit)
          .map(entry);
      },
      async setCoordinates(ctx: Context<{ id: number; geo_lat: number | null; geo_lng: number | null; modified_utc?: string }>) {
        const { id, geo_lat, geo_lng, modified_utc } = ctx.params;
        writes.push({ id, geo_lat, geo_lng });
        const v = table.get(Number(id));
        if (!v || (modified_utc !== undefined && v.modified_utc !== modified_utc)) return false;
        if (geo_lat === null || geo_lng === null) {
          delete v.geo_lat;
          delete v.geo_lng;
        } else Object.assign(v, { geo_lat, geo_lng });
        v.modified_utc = tick();
        await announce("updated", v);
        return true;
      }
    }
  });
  await broker.waitForServices(["venues"]);

  return {
    table,
    writes,
    feedCalls,
    async create(input, opts = {}) {
      const v: FakeVenue = { venue: "Venue", status: "publish", ...input, id: opts.id ?? nextId++, modified_utc: tick() } as FakeVenue;
      table.set(v.id, v);
      await announce("created", v, opts.silently);
      return { ...v };
    },
    async update(id, input, opts = {}) {
      const v = table.get(id);
      if (!v) throw new Error(`no venue ${id}`);
      for (const [k, val] of Object.entries(input)) {
        if (val === null || val === undefined) delete (v as unknown as Record<string, unknown>)[k];
        else (v as unknown as Record<string, unknown>)[k] = val;
      }
      v.modified_utc = tick();
      await announce("updated", v, opts.silently);
      return { ...v };
    },
    async trash(id, opts = {}) {
      const v = table.get(id);
      if (!v) throw new Error(`no venue ${id}`);
      v.status = "trash";
      v.modified_utc = tick();
      await announce("deleted", v, opts.silently);
      return { ...v };
    }
  };
}
