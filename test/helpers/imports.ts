/**
 * Helpers of the imports tests (test/integration/imports-*.test.ts): sending an import and waiting for it
 * to end, over HTTP as an outside client does.
 */
import type { Json } from "./json";

export async function httpJson(method: string, url: string, key: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers["Content-Type"] = contentType;
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: Json = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Polls an import until it is done or failed (or the deadline passes); answers it. */
export async function waitForImport(ns: string, key: string, id: number, timeoutMs = 60_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let last: Json = undefined;
  while (Date.now() < until) {
    const res = await httpJson("GET", `${ns}/imports/${id}`, key);
    last = res.body;
    if (res.status === 200 && (last.state === "done" || last.state === "failed")) return last;
    await new Promise(r => setTimeout(r, 150));
  }
  throw new Error(`import ${id} did not end within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Posts an import and waits for its end. */
export async function runImport(ns: string, key: string, body: unknown, contentType?: string): Promise<Json> {
  const res = await httpJson("POST", `${ns}/imports`, key, body, contentType);
  if (res.status !== 202) throw new Error(`POST /imports answered ${res.status}: ${JSON.stringify(res.body)}`);
  return waitForImport(ns, key, res.body.id);
}
