/**
 * Checks shared by the security, fuzzing, durability and concurrency tests: the contract's error shape,
 * what no answer may reveal, the security headers every answer carries, and a snapshot of every stored
 * record (for "a rejected request changes nothing").
 */
import type { ServiceBroker } from "moleculer";
import type { Answer } from "./harness";
import type { Json } from "./json";

/** Internal names and traces no answer may carry (service/action names, file paths, the framework). */
const LEAKS: Array<[string, RegExp]> = [
  ["framework name", /moleculer/i],
  ["stack frame", /\bat [\w$.<>]+ \(|\bat (?:async )?[\w$.]+ \[as |\n\s+at /],
  ["source path", /\/(?:work|home|usr|app|src|dist|node_modules)\/[\w./-]*\.(?:ts|js)\b|node_modules/],
  ["action name", /\b(?:events|venues|organizers|taxonomy|geolocation|i18n|api|\$node)\.(?:list|create|get|update|remove|getBySlug|updateBySlug|removeBySlug|embed|link|links|validateLinks|linkedPostIds|unlinkPost|unlinkTerm|resolveForEvent|resolveEventTerms|resolveFilter|adjustCounts|near|locate|venuesWithCoordinates|setTicketed|categories|tags|rest|index|doc|live|ready)\b/],
  ["internal error class", /\b(?:ValidationError|ServiceNotFoundError|ServiceNotAvailableError|RequestTimeoutError|MoleculerError|MoleculerClientError|TypeError|ReferenceError|RangeError|SyntaxError|URIError)\b/],
  ["internal error type", /\b(?:VALIDATION_ERROR|SERVICE_NOT_FOUND|UNABLE_DECODE_PARAM|ORIGIN_NOT_ALLOWED|INVALID_REQUEST_BODY)\b/]
];

/** The first internal name an answer reveals, or undefined. */
export function leakIn(text: string): string | undefined {
  for (const [what, re] of LEAKS) {
    const m = re.exec(text);
    if (m) return `${what}: ${JSON.stringify(m[0])}`;
  }
  return undefined;
}

/** A problem with an error answer (the contract's JSON with the same status, nothing internal), or undefined. */
export function errorProblem(res: Answer, allow5xx = false): string | undefined {
  if (res.status >= 500 && !allow5xx) return `server error ${res.status}`;
  const b = res.body;
  if (!b || typeof b !== "object" || Array.isArray(b)) return `not a JSON object: ${res.text.slice(0, 200)}`;
  if (typeof b.code !== "string" || b.code === "") return "no code";
  if (typeof b.message !== "string") return "no message";
  if (!b.data || typeof b.data !== "object" || b.data.status !== res.status) return `data.status ${b.data?.status} ≠ ${res.status}`;
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) return `content-type ${type}`;
  const leak = leakIn(res.text);
  return leak ? `leak (${leak})` : undefined;
}

export function expectContractError(res: Answer, status?: number, code?: string): void {
  expect({ status: res.status, problem: errorProblem(res, (status ?? 0) >= 500) }).toEqual({ status: status ?? res.status, problem: undefined });
  if (code) expect(res.body.code).toBe(code);
}

/** Headers every answer carries, whatever its route and status. */
export const SECURITY_HEADERS: Record<string, RegExp> = {
  "x-content-type-options": /^nosniff$/,
  "x-frame-options": /^DENY$/,
  "referrer-policy": /^no-referrer$/,
  "content-security-policy": /frame-ancestors 'none'/
};

export function missingSecurityHeaders(headers: Headers): string[] {
  return Object.entries(SECURITY_HEADERS).filter(([name, re]) => !re.test(headers.get(name) ?? "")).map(([name]) => name);
}

const COLLECTIONS: Array<[string, string]> = [
  ["events", "events"], ["venues", "venues"], ["organizers", "organizers"], ["taxonomy", "terms"], ["i18n", "translations"]
];

/** Every stored record of every local store service, sorted by id (a deep-comparable picture of the state). */
export async function snapshot(broker: ServiceBroker): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [service, label] of COLLECTIONS) {
    const svc: Json = (broker as Json).getLocalService(service);
    if (!svc?.store) continue;
    const docs: Json[] = await svc.store.find({});
    out[label] = docs.sort((a, b) => String(a._id).localeCompare(String(b._id), "en", { numeric: true }));
  }
  return out;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return out;
}
