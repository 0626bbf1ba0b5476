/**
 * `node dist/bench/cache-clean.js [kept keys]`: what one write's clean costs each cacher: the in-process one
 * (cache/bounded-cacher.ts), and for a shared Redis cache the service's (cache/redis-cacher.ts)
 * beside Moleculer's own Redis cacher (a `SCAN … MATCH` of every key per pattern), against the Redis of
 * REDIS_URL (default the local one), under namespaces of this run's own, deleted afterwards. The keys are
 * those of a calendar's kept answers (event pages, list bodies, embedded venues); the clean is an event
 * title's write (docs/caching.md).
 */
import Redis from "ioredis";
import { Cachers, ServiceBroker } from "moleculer";
import { BoundedMemoryCacher } from "../cache/bounded-cacher";
import { RedisCacher } from "../cache/redis-cacher";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const KEPT = Number(process.argv[2] ?? 20_000);
const CLEANS = 30;

type Cacher = InstanceType<typeof Cachers.Base>;

async function measure(label: string, namespace: string, cacher: Cacher): Promise<void> {
  const broker = new ServiceBroker({ logger: false, cacher, namespace });
  await broker.start();
  try {
    const keys = Array.from({ length: KEPT }, (_, i) =>
      i % 3 === 0 ? `RESP:1:E${i}:h${i}` : i % 3 === 1 ? `RESP:1:B:h${i}:40:,${i},${i + 1},` : `ACT:1:V${i % 100}:venues.embed:h${i}`);
    for (let i = 0; i < keys.length; i += 500) await Promise.all(keys.slice(i, i + 500).map(k => cacher.set(k, { body: "x".repeat(200) })));
    const times: number[] = [];
    for (let j = 0; j < CLEANS; j++) {
      const id = 3 * ((j * 97) % Math.floor(KEPT / 3));
      const t = performance.now();
      await cacher.clean([`RESP:1:E${id}:**`, `RESP:1:B:**,${id},**`, "RESP:1:S:**", "ACT:1:S:**"]);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`${label}: ${KEPT} kept keys, one title write's clean: median ${times[CLEANS >> 1].toFixed(2)} ms, slowest ${times[CLEANS - 1].toFixed(2)} ms`);
    await cacher.clean("**");
  } finally {
    await broker.stop();
  }
}

async function main(): Promise<void> {
  const run = `bench-clean-${process.pid}`;
  try {
    await measure("the in-process cacher", `${run}-mem`, new BoundedMemoryCacher({ ttl: 60, maxBytes: 1e9, maxEntries: 1e7 }));
    await measure("Moleculer's Redis cacher", `${run}-mol`, new Cachers.Redis({ redis: REDIS_URL as unknown as Record<string, unknown>, prefix: `MOL-${run}-mol`, ttl: 60 }) as unknown as Cacher);
    await measure("the service's Redis cacher", `${run}-own`, new RedisCacher({ url: REDIS_URL, prefix: `MOL-${run}-own`, logPrefix: `CL-${run}-own:`, ttl: 60 }));
  } finally {
    const redis = new Redis(REDIS_URL);
    const left = await redis.keys(`*${run}*`);
    if (left.length) await redis.del(...left);
    redis.disconnect();
  }
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
