/**
 * The body of `POST {ns}/imports` (docs/imports.md#routes, C64: what an import brings): checked into an import's settings, every
 * bad parameter named in one 400 `rest_invalid_param`. Pure.
 */
import { ApiError, ParamReason } from "../errors";
import { REGISTERED_STATUSES } from "../access/capabilities";
import { integer, schema, untyped } from "../http/params";

export type ImportType = "tec" | "ics";
export type UpdateMode = "overwrite" | "new-only";

/** Credentials for a TEC source (C64: what an import brings): Basic (WordPress application passwords) or a bearer token. */
export type ImportAuth = { username: string; password: string } | { bearer: string };

export interface ImportSettings {
  type: ImportType;
  url?: string;
  ics?: string;
  status?: string;
  update: UpdateMode;
  every_minutes?: number;
  trash_missing: boolean;
  auth?: ImportAuth;
}

/** The shortest period of a repeating import. */
export const MIN_EVERY_MINUTES = 15;
/** The largest iCalendar text accepted in a request (the `text/calendar` body limit too). */
export const ICS_MAX_BYTES = 10 * 1024 * 1024;

const BOOL_TRUE = new Set(["true", "1", "yes"]);
const BOOL_FALSE = new Set(["false", "0", "no"]);

/** C5 (the boolean words): a flag. */
export function flag(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : undefined;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (BOOL_TRUE.has(s)) return true;
    if (BOOL_FALSE.has(s)) return false;
  }
  return undefined;
}

const sent = (v: unknown): boolean => v !== undefined && v !== null;

/** Whether `url` is an absolute http(s) URL (the address rules check the host later, when it is fetched). */
function httpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

function authOf(v: unknown): ImportAuth | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const a = v as Record<string, unknown>;
  if (typeof a.bearer === "string" && a.bearer !== "" && a.username === undefined) return { bearer: a.bearer };
  if (typeof a.username === "string" && a.username !== "" && typeof a.password === "string" && a.bearer === undefined) return { username: a.username, password: a.password };
  return undefined;
}

/** The type guessed from what was sent: text or an address ending like a feed → ics, else tec. */
export function guessType(url: string | undefined, ics: string | undefined): ImportType {
  if (ics !== undefined) return "ics";
  if (url && (/\.ics($|\?)/i.test(url) || /^webcal:/i.test(url) || /[?&](format|outputType)=i?cal/i.test(url) || /\/ical(\/|$|\?)/i.test(url))) return "ics";
  return "tec";
}

/** Whether a create body asks for a dry run (`dry_run`, a boolean of C5 (the boolean words)); throws 400 naming it when it is not one. */
export function isDryRun(body: Record<string, unknown>): boolean {
  if (!sent(body.dry_run)) return false;
  const f = flag(body.dry_run);
  if (f === undefined) throw ApiError.invalidParams({ dry_run: { key: "param.invalid" } });
  return f;
}

/** Checks a create body; throws 400 naming every bad parameter. */
export function importSettings(body: Record<string, unknown>): ImportSettings {
  const bad: Record<string, ParamReason> = {};
  let url: string | undefined;
  if (sent(body.url)) {
    const raw = typeof body.url === "string" ? body.url.trim().replace(/^webcal:/i, "https:") : "";
    if (!httpUrl(raw)) bad.url = { key: "param.url" };
    else url = raw;
  }
  let ics: string | undefined;
  if (sent(body.ics)) {
    if (typeof body.ics !== "string" || body.ics.trim() === "") bad.ics = { key: "param.invalid" };
    else if (Buffer.byteLength(body.ics) > ICS_MAX_BYTES) bad.ics = { key: "param.length", vars: { max: ICS_MAX_BYTES } };
    else ics = body.ics;
  }
  let type: ImportType | undefined;
  if (sent(body.type)) {
    if (body.type !== "tec" && body.type !== "ics") bad.type = { key: "param.invalid" };
    else type = body.type;
  }
  if (url === undefined && ics === undefined && !bad.url && !bad.ics) bad.url = { key: "param.required" };
  if (type === "tec" && ics !== undefined) bad.ics = { key: "param.invalid" };
  if (url !== undefined && ics !== undefined) bad.ics = { key: "param.invalid" };
  let status: string | undefined;
  if (sent(body.status)) {
    if (typeof body.status !== "string" || !REGISTERED_STATUSES.includes(body.status) || body.status === "trash") bad.status = { key: "param.invalid" };
    else status = body.status;
  }
  let update: UpdateMode = "overwrite";
  if (sent(body.update)) {
    if (body.update !== "overwrite" && body.update !== "new-only") bad.update = { key: "param.invalid" };
    else update = body.update;
  }
  let every: number | undefined;
  if (sent(body.every_minutes)) {
    const n = typeof body.every_minutes === "string" && /^\d+$/.test(body.every_minutes.trim()) ? Number(body.every_minutes) : body.every_minutes;
    if (typeof n !== "number" || !Number.isInteger(n) || n < MIN_EVERY_MINUTES || n > 525_600) bad.every_minutes = { key: "param.invalid" };
    else every = n;
  }
  let trash = false;
  if (sent(body.trash_missing)) {
    const f = flag(body.trash_missing);
    if (f === undefined) bad.trash_missing = { key: "param.invalid" };
    else trash = f;
  }
  let auth: ImportAuth | undefined;
  if (sent(body.auth)) {
    auth = authOf(body.auth);
    if (!auth) bad.auth = { key: "param.invalid" };
  }
  if (ics !== undefined && every !== undefined) bad.every_minutes = { key: "param.invalid" };
  if (Object.keys(bad).length) throw ApiError.invalidParams(bad);
  return {
    type: type ?? guessType(url, ics),
    ...(url !== undefined ? { url } : {}),
    ...(ics !== undefined ? { ics } : {}),
    ...(status !== undefined ? { status } : {}),
    update,
    ...(every !== undefined ? { every_minutes: every } : {}),
    trash_missing: trash,
    ...(auth ? { auth } : {})
  };
}

/**
 * The routed actions' params schemas (the /doc document and the action API read them, lib/http/action-schemas.ts).
 * The create body is checked whole by `importSettings` (one 400 naming every bad parameter); these rules
 * only let its parameters through and describe them.
 */
export const IMPORT_PARAMS = {
  list: schema({
    page: integer({ description: "The page of imports to return.", default: 1, positive: true }),
    per_page: integer({ description: "The number of imports on each page (at most 100).", default: 10, positive: true })
  }),
  create: schema({
    url: untyped({ description: "The source: a site running The Events Calendar (or this service), or an iCalendar feed's URL." }),
    ics: untyped({ description: "The iCalendar text to import (instead of url); a text/calendar request body does the same." }),
    type: untyped({ description: "tec or ics; guessed when absent." }),
    status: untyped({ description: "The status imported events get (default: the source's for tec, publish for ics)." }),
    update: untyped({ description: "overwrite (default): records changed at the source are updated; new-only: they are left alone." }),
    every_minutes: untyped({ description: "Run again every this many minutes (at least 15)." }),
    trash_missing: untyped({ description: "Whether events that left the source are trashed." }),
    auth: untyped({ description: "Credentials for a TEC source: {username, password} (Basic) or {bearer}." }),
    dry_run: untyped({ description: "true: answer 200 with what a run would do now (created, updated, unchanged, trashed, skipped, failed, errors), writing nothing." })
  }),
  run: schema({ id: integer({ description: "The import ID.", required: true, in: "path", min: 0 }) }),
  runs: schema({ id: integer({ description: "The import ID.", required: true, in: "path", min: 0 }) }),
  get: schema({ id: integer({ description: "The import ID.", required: true, in: "path", min: 0 }) }),
  remove: schema({ id: integer({ description: "The import ID.", required: true, in: "path", min: 0 }) })
};
