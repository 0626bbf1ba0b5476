/**
 * Radius query time of `geolocation.near` at 1 000 and 100 000 venues on the embedded store, and the
 * ratio between them (target ≤ 2: the query reads only the cells around its radius, not every venue).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/geo.js [queries per size, default 1000]
 *
 * Venues: uniformly spread over the sphere, plus the same 20 venues within 25 miles of each of the ten
 * query centres in both sets, so both sizes answer about the same number of venues and the comparison
 * measures the lookup, not a bigger answer. The service loads them the way it does in production: from
 * the venues feed, on start. A naive scan (read every located venue, compute every distance) is timed
 * on the same data for comparison.
 */
import { Service, ServiceBroker, ServiceSchema } from "moleculer";
import type { Collection } from "../store/collection";
import { readSettings, useSettings } from "../lib/settings";
import GeolocationService from "../services/geolocation.service";
import { distanceKm, EARTH_RADIUS_KM, LatLng, toKm, withinRadius } from "../lib/geo/distance";

const CENTRES: LatLng[] = [
  { lat: 48.8566, lng: 2.3522 }, { lat: 51.5074, lng: -0.1278 }, { lat: 40.7128, lng: -74.006 }, { lat: 35.6895, lng: 139.6917 },
  { lat: -33.8688, lng: 151.2093 }, { lat: -23.5505, lng: -46.6333 }, { lat: 55.7558, lng: 37.6173 }, { lat: 19.4326, lng: -99.1332 },
  { lat: 1.3521, lng: 103.8198 }, { lat: 64.1466, lng: -21.9426 }
];
const RADIUS_MI = 25;
const NEAR_PER_CENTRE = 20;

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A point at `km` from `from` in direction `bearing` (radians). */
function destination(from: LatLng, bearing: number, km: number): LatLng {
  const d = km / EARTH_RADIUS_KM;
  const lat1 = (from.lat * Math.PI) / 180;
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(bearing));
  const lng2 = (from.lng * Math.PI) / 180 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  const lng = ((((lng2 * 180) / Math.PI + 540) % 360) + 360) % 360 - 180;
  return { lat: (lat2 * 180) / Math.PI, lng };
}

interface Venue {
  id: number;
  status: string;
  modified_utc: string;
  geo_lat: number;
  geo_lng: number;
}

function venues(count: number): Venue[] {
  const rnd = random(42);
  const points: LatLng[] = [];
  const near = random(7);
  for (const c of CENTRES) for (let i = 0; i < NEAR_PER_CENTRE; i++) points.push(destination(c, near() * 2 * Math.PI, near() * toKm(RADIUS_MI, "mi") * 0.95));
  while (points.length < count) points.push({ lat: (Math.asin(2 * rnd() - 1) * 180) / Math.PI, lng: rnd() * 360 - 180 });
  const base = Date.parse("2030-01-01T00:00:00Z");
  return points.map((p, i) => ({
    id: i + 1, status: "publish", modified_utc: new Date(base + i * 1000).toISOString().slice(0, 19).replace("T", " "), geo_lat: p.lat, geo_lng: p.lng
  }));
}

/** The two venues actions the geolocation service reads, over a fixed table ordered by (modified_utc, id). */
function feedService(table: Venue[]) {
  return {
    name: "venues",
    actions: {
      locationFeed(ctx: { params: { ids?: number[]; since?: string; afterId?: number; limit?: number } }) {
        const { ids, since, afterId = 0, limit = 500 } = ctx.params;
        if (ids) return ids.map(id => table[id - 1]).filter(Boolean);
        let lo = 0;
        let hi = table.length;
        while (since !== undefined && lo < hi) {
          const mid = (lo + hi) >> 1;
          const v = table[mid];
          if (v.modified_utc < since || (v.modified_utc === since && v.id <= afterId)) lo = mid + 1;
          else hi = mid;
        }
        return table.slice(lo, lo + limit);
      },
      setCoordinates() {
        return true;
      }
    }
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function measure(count: number, queries: number) {
  const table = venues(count);
  const broker = new ServiceBroker({ logger: false, nodeID: `bench-geo-${count}` });
  broker.createService(feedService(table) as unknown as ServiceSchema);
  const geo = broker.createService(GeolocationService) as Service & { store: Collection };
  const t0 = process.hrtime.bigint();
  await broker.start();
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const run = async (fn: (c: LatLng) => Promise<number>, n: number) => {
    for (let i = 0; i < Math.min(50, n); i++) await fn(CENTRES[i % CENTRES.length]); // warm-up
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < n; i++) {
      const c = CENTRES[i % CENTRES.length];
      const s = process.hrtime.bigint();
      found += await fn(c);
      times.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
    return { median: median(times), mean: times.reduce((a, b) => a + b, 0) / times.length, found: found / n };
  };
  const indexed = await run(async c => ((await broker.call("geolocation.near", { ...c, radius: RADIUS_MI, unit: "mi" })) as unknown[]).length, queries);
  const radiusKm = toKm(RADIUS_MI, "mi");
  const scan = await run(async c => {
    const all: Array<LatLng & { _id: number }> = (await geo.store.find({ searchable: true }, { projection: { lat: 1, lng: 1 } })) as Array<LatLng & { _id: number }>;
    return all.filter(v => withinRadius(distanceKm(c, v), radiusKm)).length;
  }, count > 10_000 ? 10 : 100);
  await broker.stop();
  return { count, loadMs, indexed, scan };
}

async function main() {
  const queries = Number(process.argv[2] ?? 1000);
  useSettings(readSettings({ DATA_DIR: ":memory:", METRICS_PORT: "0", LOG_LEVEL: "error" }));
  const rows = [];
  for (const count of [1_000, 100_000]) rows.push(await measure(count, queries));
  for (const r of rows) {
    console.log(
      `${String(r.count).padStart(7)} venues: near() median ${r.indexed.median.toFixed(3)} ms, mean ${r.indexed.mean.toFixed(3)} ms, ` +
      `${r.indexed.found.toFixed(1)} venues found per query | naive full scan median ${r.scan.median.toFixed(2)} ms | catch-up from the feed ${(r.loadMs / 1000).toFixed(1)} s`
    );
  }
  const [small, big] = rows;
  const ratio = big.indexed.median / small.indexed.median;
  console.log(`ratio 100k/1k (median near()): ${ratio.toFixed(2)} (target <= 2) ${ratio <= 2 ? "OK" : "OVER TARGET"}`);
  console.log(`naive scan ratio 100k/1k: ${(big.scan.median / small.scan.median).toFixed(1)}`);
  process.exitCode = ratio <= 2 ? 0 : 1;
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
