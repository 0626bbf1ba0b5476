/**
 * Venues (docs/records.md#venues-and-organizers, #venue-fields): a linked-post kind with address fields, map flags, a derived
 * `stateprovince` and optional coordinates (D8: geolocation). Everything shared with organizers is in
 * mixins/linked-post.mixin.ts (the actions) and domain/linked/ (the reads and writes).
 */
import type { Service, ServiceSchema } from "moleculer";
import { LinkedPostMixin } from "../mixins/linked-post.mixin";
import type { PostDoc, PostFace } from "../mixins/post.mixin";
import type { LinkedDoc } from "../lib/linked/record";
import type { Ctx } from "../broker/context";
import { VENUE } from "../lib/linked/kinds";


export interface Coordinates {
  geo_lat: number;
  geo_lng: number;
}

/** A venue as the geolocation service reads it (`venues.locationFeed`). */
export interface LocationEntry extends Partial<Coordinates> {
  id: number;
  status: string;
  modified_utc: string;
  address: string;
  city: string;
  state: string;
  province: string;
  stateprovince: string;
  zip: string;
  country: string;
}

const ADDRESS_FIELDS = ["address", "city", "state", "province", "stateprovince", "zip", "country"] as const;
const FEED_LIMIT = 500;

function locationEntry(d: PostDoc): LocationEntry {
  return {
    id: d._id, status: d.status, modified_utc: d.modified_utc,
    ...(typeof d.geo_lat === "number" && typeof d.geo_lng === "number" ? { geo_lat: d.geo_lat, geo_lng: d.geo_lng } : {}),
    ...(Object.fromEntries(ADDRESS_FIELDS.map(f => [f, d[f] ?? ""])) as Record<(typeof ADDRESS_FIELDS)[number], string>)
  };
}

/** What the venue actions use: the post mixin's face. */
type VenuesSelf = Service & PostFace<LinkedDoc>;

/** The handlers of the actions the geolocation service uses (its file states the contract), typed on the service. */
const handlers = {
  async coordinates(ctx: Ctx<{ ids: number[] }>): Promise<Record<string, Coordinates>> {
    const ids = [...new Set(ctx.params.ids)];
    if (!ids.length) return {};
    const docs = await this.store.find({ _id: { $in: ids }, geo_lat: { $exists: true }, geo_lng: { $exists: true } });
    // the query asked for venues holding both coordinates
    return Object.fromEntries(docs.map(d => [String(d._id), { geo_lat: d.geo_lat!, geo_lng: d.geo_lng! }]));
  },
  async locationFeed(ctx: Ctx<{ ids?: number[]; since?: string; afterId?: number; limit?: number }>): Promise<LocationEntry[]> {
    const { ids, since, afterId = 0, limit = FEED_LIMIT } = ctx.params;
    if (ids) {
      const byId = new Map((await this.store.find({ _id: { $in: ids } })).map(d => [d._id, d]));
      return ids.filter(id => byId.has(id)).map(id => locationEntry(byId.get(id)!));
    }
    const query = since === undefined ? {} : { $or: [{ modified_utc: { $gt: since } }, { modified_utc: since, _id: { $gt: afterId } }] };
    const docs = await this.store.find(query, { sort: { modified_utc: 1, _id: 1 }, limit });
    return docs.map(locationEntry);
  },
  async setCoordinates(ctx: Ctx<{ id: number; geo_lat: number | null; geo_lng: number | null; modified_utc?: string }>): Promise<boolean> {
    const { id, geo_lat, geo_lng, modified_utc } = ctx.params;
    const clear = geo_lat === null || geo_lng === null;
    const update = clear
      ? { $set: this.modifiedAt(this.now()), $unset: { geo_lat: true, geo_lng: true } }
      : { $set: { geo_lat, geo_lng, ...this.modifiedAt(this.now()) } };
    const updated = await this.store.updateOne({ _id: id, ...(modified_utc !== undefined ? { modified_utc } : {}) }, update);
    if (!updated) return false;
    await this.announce("updated", updated);
    return true;
  }
} satisfies ThisType<VenuesSelf>;

const VenuesService: ServiceSchema = {
  name: "venues",
  mixins: [LinkedPostMixin(VENUE)],
  actions: {
    /** Internal: the coordinates of those venues that have both. */
    coordinates: {
      params: { ids: { type: "array", items: "number" } },
      handler: handlers.coordinates
    },
    /**
     * Internal: venues of any status with their address and coordinates, either `ids`, or in
     * (modified_utc, id) order after the position `since`/`afterId` (afterId 0: `since` inclusive).
     */
    locationFeed: {
      params: {
        ids: { type: "array", items: "number", optional: true },
        since: { type: "string", optional: true },
        afterId: { type: "number", integer: true, min: 0, optional: true },
        limit: { type: "number", integer: true, positive: true, optional: true }
      },
      handler: handlers.locationFeed
    },
    /**
     * Internal: stores (numbers) or clears (nulls) a venue's coordinates, announced like any venue write;
     * with `modified_utc`, only while the venue still has it. false when nothing was written.
     */
    setCoordinates: {
      params: {
        id: { type: "number", integer: true, positive: true },
        geo_lat: { type: "number", min: -90, max: 90, nullable: true },
        geo_lng: { type: "number", min: -180, max: 180, nullable: true },
        modified_utc: { type: "string", optional: true }
      },
      handler: handlers.setCoordinates
    }
  }
};

export default VenuesService;
