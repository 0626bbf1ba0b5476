/**
 * Capabilities: the one place that answers "may this caller do this to that record" for every service.
 *
 * The model is WordPress's (docs/authorization.md): per-role primitive capabilities (#capabilities-by-role),
 * mapped per record through the meta capabilities read_post / edit_post / delete_post (#per-record-rules),
 * per-taxonomy rules for terms (#term-capabilities), status visibility in lists (#list-visibility),
 * password access (#password-protected-records) and status resolution on write
 * (docs/records.md#status-on-write; lists: docs/lists.md). Events, venues and organizers share the same
 * rules, each "on its own type".
 *
 * Who is asking (`Who`):
 * - a `Caller` (`{ id, role }`) — a request authenticated with a known API key;
 * - `null`      — an anonymous request: no capability at all, owns nothing;
 * - `undefined` — a TRUSTED INTERNAL caller: a Moleculer action called directly on the bus with no caller
 *   in `ctx.meta` (another service, a job, a test). It may do everything, like an administrator, and
 *   every check below answers `true` for it — including password access (it never sees content blanked).
 *   The API gateway therefore always puts a caller (`Caller` or `null`) into `meta` for HTTP requests.
 *
 * The functions take the record's status as stored. Callers that honour C13 (a `future` record whose
 * date has passed counts as `publish`) pass `effectiveStatus(record, now)` as the status.
 */

import type { Caller, Role } from "./callers";

export type Taxonomy = "category" | "tag";

/** `Caller` = authenticated, `null` = anonymous, `undefined` = trusted internal caller. */
export type Who = Caller | null | undefined;

// ---------------------------------------------------------------------------------------------------------
// Capabilities by role (docs/authorization.md#capabilities-by-role)
// ---------------------------------------------------------------------------------------------------------

export const CAPABILITIES = [
  "read",
  "edit_posts",
  "publish_posts",
  "edit_published_posts",
  "edit_others_posts",
  "edit_private_posts",
  "read_private_posts",
  "delete_posts",
  "delete_published_posts",
  "delete_others_posts",
  "delete_private_posts",
  "upload_files",
  "manage_categories",
  "manage_event_categories",
] as const;

export type Capability = (typeof CAPABILITIES)[number];

const ALL: readonly Capability[] = CAPABILITIES;
const AUTHOR: readonly Capability[] = [
  "read",
  "edit_posts",
  "publish_posts",
  "edit_published_posts",
  "delete_posts",
  "delete_published_posts",
  "upload_files",
  "manage_event_categories", // = publish_posts on events
];
const CONTRIBUTOR: readonly Capability[] = ["read", "edit_posts", "delete_posts"];
const SUBSCRIBER: readonly Capability[] = ["read"];

/** docs/authorization.md#capabilities-by-role. Anonymous callers have no capability; the trusted internal caller has all. */
const ROLE_CAPABILITIES: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  administrator: new Set(ALL),
  editor: new Set(ALL),
  author: new Set(AUTHOR),
  contributor: new Set(CONTRIBUTOR),
  subscriber: new Set(SUBSCRIBER),
};

export function hasCap(who: Who, cap: Capability): boolean {
  if (who === undefined) return true;
  if (who === null) return false;
  return ROLE_CAPABILITIES[who.role]?.has(cap) ?? false;
}

/**
 * The site's administrators (and the trusted internal caller): who manages webhooks, imports and field
 * definitions (docs/webhooks.md, docs/imports.md#routes).
 */
export function isAdministrator(who: Who): boolean {
  return who === undefined || (who !== null && who.role === "administrator");
}

/** HTTP status for a refused operation: anonymous → 401, an authenticated caller → 403. */
export function deniedStatus(who: Who): 401 | 403 {
  return who === null ? 401 : 403;
}

// ---------------------------------------------------------------------------------------------------------
// Statuses (D28: accepted statuses; docs/records.md#status-on-write, C13: a due `future` post counts as published)
// ---------------------------------------------------------------------------------------------------------

/** D28: WordPress's registered post statuses. */
export const REGISTERED_STATUSES: readonly string[] = [
  "publish",
  "future",
  "draft",
  "pending",
  "private",
  "trash",
  "auto-draft",
  "inherit",
  "request-pending",
  "request-confirmed",
  "request-failed",
  "request-completed",
];

export function isRegisteredStatus(s: string): boolean {
  return REGISTERED_STATUSES.includes(s);
}

/** The only public status: readable by everyone, listed for everyone. */
export function isPublicStatus(status: string): boolean {
  return status === "publish";
}

/**
 * C13: a `future` record counts as `publish` once its `date_utc` has passed. Both dates are DB strings
 * `YYYY-MM-DD HH:MM:SS` (UTC), which compare lexicographically.
 */
export function effectiveStatus(post: { status: string; date_utc: string }, nowDb: string): string {
  return post.status === "future" && post.date_utc <= nowDb ? "publish" : post.status;
}

// ---------------------------------------------------------------------------------------------------------
// Per-record rules: read_post, edit_post, delete_post (docs/authorization.md#per-record-rules)
// ---------------------------------------------------------------------------------------------------------

/** The view of a record the per-record rules need. */
export interface PostLike {
  /** user id of the record's author (0 = nobody) */
  author: number;
  status: string;
  /** for `trash`: the status the record had before it was trashed */
  prior_status?: string;
  post_password?: string;
}

type Action = "edit" | "delete";
type Ownership = "own" | "others";
type StatusClass = "published" | "private" | "other";
type CapRole = "base" | "published" | "others" | "private";

/** The four capabilities each action maps to. */
const ACTION_CAPS: Readonly<Record<Action, Readonly<Record<CapRole, Capability>>>> = {
  edit: {
    base: "edit_posts",
    published: "edit_published_posts",
    others: "edit_others_posts",
    private: "edit_private_posts",
  },
  delete: {
    base: "delete_posts",
    published: "delete_published_posts",
    others: "delete_others_posts",
    private: "delete_private_posts",
  },
};

/** Status classes for edit/delete; every status not named here is "other". */
const STATUS_CLASS: Readonly<Record<string, StatusClass>> = {
  publish: "published",
  future: "published",
  private: "private",
};

/**
 * docs/authorization.md#per-record-rules, edit_post (delete_post is the same table with the delete_* capabilities):
 * every capability listed is required.
 */
const REQUIRED: Readonly<Record<Ownership, Readonly<Record<StatusClass, readonly CapRole[]>>>> = {
  own: {
    published: ["published"],
    private: ["base"],
    other: ["base"],
  },
  others: {
    published: ["others", "published"],
    private: ["others", "private"],
    other: ["others"],
  },
};

function isOwn(who: Who, post: PostLike): boolean {
  return who != null && post.author > 0 && post.author === who.id;
}

/** A trashed record is judged by the status it had before trashing. */
function statusForRules(post: PostLike): string {
  return post.status === "trash" ? (post.prior_status ?? "draft") : post.status;
}

/** The capabilities edit_post / delete_post require for this caller on this record. */
export function requiredCaps(action: Action, who: Who, post: PostLike): Capability[] {
  const ownership: Ownership = isOwn(who, post) ? "own" : "others";
  const statusClass = STATUS_CLASS[statusForRules(post)] ?? "other";
  return REQUIRED[ownership][statusClass].map((capRole) => ACTION_CAPS[action][capRole]);
}

function mayDo(action: Action, who: Who, post: PostLike): boolean {
  return requiredCaps(action, who, post).every((cap) => hasCap(who, cap));
}

/** edit_post (update). */
export function canEditPost(who: Who, post: PostLike): boolean {
  return mayDo("edit", who, post);
}

/** delete_post (DELETE, or update to `trash`). */
export function canDeletePost(who: Who, post: PostLike): boolean {
  return mayDo("delete", who, post);
}

/**
 * read_post (single GET), first matching rule decides:
 * public status → everyone; own → `read`; others' private → `read_private_posts`; others' anything
 * else (draft, pending, future, trash, …) → edit_post.
 */
const READ_RULES: ReadonlyArray<{ when: (who: Who, post: PostLike) => boolean; allow: (who: Who, post: PostLike) => boolean }> = [
  { when: (_who, post) => isPublicStatus(post.status), allow: () => true },
  { when: (who, post) => isOwn(who, post), allow: (who) => hasCap(who, "read") },
  { when: (_who, post) => post.status === "private", allow: (who) => hasCap(who, "read_private_posts") },
  { when: () => true, allow: (who, post) => canEditPost(who, post) },
];

export function canReadPost(who: Who, post: PostLike): boolean {
  const rule = READ_RULES.find((r) => r.when(who, post));
  return rule !== undefined && rule.allow(who, post);
}

/** Create a record (events, venues, organizers): `edit_posts` on the type. */
export function canCreatePost(who: Who): boolean {
  return hasCap(who, "edit_posts");
}

// ---------------------------------------------------------------------------------------------------------
// Terms (docs/authorization.md#term-capabilities)
// ---------------------------------------------------------------------------------------------------------

/** docs/authorization.md#term-capabilities: create / update / delete a term needs every capability listed for its taxonomy. */
const TERM_CAPS: Readonly<Record<Taxonomy, readonly Capability[]>> = {
  category: ["edit_posts", "manage_event_categories"],
  tag: ["edit_posts", "manage_categories"],
};

export function canManageTerms(who: Who, taxonomy: Taxonomy): boolean {
  return TERM_CAPS[taxonomy].every((cap) => hasCap(who, cap));
}

// ---------------------------------------------------------------------------------------------------------
// Password-protected records (docs/authorization.md#password-protected-records)
// ---------------------------------------------------------------------------------------------------------

/**
 * `can_access_password_content`: no password; or `context=edit` and edit_post; or the request's
 * `password` equals the stored one (exact, case-sensitive). The trusted internal caller always may.
 */
export function canAccessPassword(who: Who, post: PostLike, opts: { password?: string; context?: string }): boolean {
  if (who === undefined) return true;
  if (post.post_password === undefined || post.post_password === "") return true;
  if (opts.context === "edit" && canEditPost(who, post)) return true;
  return opts.password === post.post_password;
}

// ---------------------------------------------------------------------------------------------------------
// docs/records.md#status-on-write Status resolution on create / update
// ---------------------------------------------------------------------------------------------------------

const FUTURE_THRESHOLD_MS = 60_000;

/** `scale_back_post_status`: what a given status (or none) becomes, by whether the caller may publish. */
const SCALE_BACK: Readonly<Record<"publisher" | "nonPublisher", { none: string; replace: Readonly<Record<string, string>> }>> = {
  publisher: { none: "publish", replace: {} },
  nonPublisher: { none: "draft", replace: { publish: "pending", future: "pending" } },
};

/**
 * docs/records.md#status-on-write: scale the given status back to what the caller may set, then apply WordPress's date
 * rule — a `publish` at least 60 s in the future becomes `future`, a `future` less than 60 s in the future
 * becomes `publish`. `publicationUtcMs` null = floating date (no date rule).
 * `given` is expected to be validated already (a registered status) or `undefined` for "none".
 */
export function resolveStatus(who: Who, given: string | undefined, publicationUtcMs: number | null, nowMs: number): string {
  const rules = SCALE_BACK[hasCap(who, "publish_posts") ? "publisher" : "nonPublisher"];
  const scaled = given === undefined ? rules.none : (rules.replace[given] ?? given);
  if (publicationUtcMs === null) return scaled;
  const inFuture = publicationUtcMs - nowMs >= FUTURE_THRESHOLD_MS;
  if (scaled === "publish" && inFuture) return "future";
  if (scaled === "future" && !inFuture) return "publish";
  return scaled;
}

// ---------------------------------------------------------------------------------------------------------
// Status visibility in lists (docs/authorization.md#list-visibility; docs/lists.md#always-applied, #event-filters,
// #venue-and-organizer-filters)
// ---------------------------------------------------------------------------------------------------------

const HIDDEN_FROM_DEFAULT_LIST: readonly string[] = ["trash", "auto-draft"];

/**
 * The statuses a list shows to this caller. Without `requested`: `publish` for callers without
 * `edit_posts`, every registered status except `trash`/`auto-draft` for the others (all authors, D26: lists show everyone's non-public records to editors of the kind).
 * With `requested` (already split and trimmed): callers without `edit_posts` may only ask exactly
 * `["publish"]`; the others any non-empty list of registered statuses. `ok: false` → 400 for the caller.
 */
export function listStatuses(who: Who, requested: string[] | undefined): { ok: true; statuses: string[] } | { ok: false } {
  const mayListAll = hasCap(who, "edit_posts");
  if (requested === undefined) {
    return {
      ok: true,
      statuses: mayListAll ? REGISTERED_STATUSES.filter((s) => !HIDDEN_FROM_DEFAULT_LIST.includes(s)) : ["publish"],
    };
  }
  const valid = mayListAll
    ? requested.length > 0 && requested.every(isRegisteredStatus)
    : requested.length === 1 && requested[0] === "publish";
  return valid ? { ok: true, statuses: [...new Set(requested)] } : { ok: false };
}
