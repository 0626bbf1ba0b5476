/**
 * The writes of a read mix (C47: updates of a random event's title) at `rate` per second while a load runs
 * beside them, with their own latency.
 */
import { KEY, NS, percentile } from "./common";

export interface WritesMeasure { perSec: number; p50: number; p99: number; errors: number }

/** Title updates of random events at `rate` per second while `during` runs; their latencies. */
export async function writesBeside<T>(base: string, ids: readonly number[], rate: number, during: Promise<T>): Promise<{ result: T; writes: WritesMeasure | undefined }> {
  const latencies: number[] = [];
  let errors = 0;
  let running = true;
  const inFlight: Array<Promise<void>> = [];
  const began = Date.now();
  const ticker = rate > 0 ? setInterval(() => {
    if (!running) return;
    const id = ids[Math.floor(Math.random() * ids.length)];
    const t0 = performance.now();
    inFlight.push(fetch(`${base}${NS}/events/${id}`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" }, body: JSON.stringify({ title: `Renamed ${id} ${Date.now()}` }) })
      .then(async res => {
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
        latencies.push(performance.now() - t0);
      })
      .catch(() => { errors++; }));
  }, 1000 / rate) : undefined;
  const result = await during;
  running = false;
  if (ticker) clearInterval(ticker);
  await Promise.all(inFlight);
  const seconds = (Date.now() - began) / 1000;
  return { result, writes: rate > 0 ? { perSec: +(latencies.length / seconds).toFixed(1), p50: Math.round(percentile(latencies, 0.5)), p99: Math.round(percentile(latencies, 0.99)), errors } : undefined };
}
