import type { Role } from "../../lib/access/callers";
import {
  CAPABILITIES,
  REGISTERED_STATUSES,
  canAccessPassword,
  canCreatePost,
  canDeletePost,
  canEditPost,
  canManageTerms,
  canReadPost,
  deniedStatus,
  effectiveStatus,
  hasCap,
  isPublicStatus,
  isRegisteredStatus,
  listStatuses,
  resolveStatus,
  type Capability,
  type PostLike,
  type Taxonomy,
  type Who,
} from "../../lib/access/capabilities";

// Actors in the column order of docs/authorization.md's tables.
const ACTORS = ["administrator", "editor", "author", "contributor", "subscriber", "anonymous"] as const;
type Actor = (typeof ACTORS)[number];

const CALLER_ID = 10;
const OTHER_ID = 99;

function who(actor: Actor): Who {
  return actor === "anonymous" ? null : { id: CALLER_ID, role: actor as Role };
}

/** One row of a table: a cell per actor, in ACTORS order. */
function byActor<T>(cells: readonly [T, T, T, T, T, T]): Array<[Actor, T]> {
  return ACTORS.map((actor, i) => [actor, cells[i]]);
}

const Y = true;
const N = false;

// -------------------------------------------------------------------------------------------------------
// docs/authorization.md#capabilities-by-role — capabilities by role
// -------------------------------------------------------------------------------------------------------
describe("hasCap (docs/authorization.md#capabilities-by-role)", () => {
  //                                            admin editor author contrib subscr anon
  const TABLE: Array<[Capability, [boolean, boolean, boolean, boolean, boolean, boolean]]> = [
    ["read", /*                    */ [Y, Y, Y, Y, Y, N]],
    ["edit_posts", /*              */ [Y, Y, Y, Y, N, N]],
    ["publish_posts", /*           */ [Y, Y, Y, N, N, N]],
    ["edit_published_posts", /*    */ [Y, Y, Y, N, N, N]],
    ["edit_others_posts", /*       */ [Y, Y, N, N, N, N]],
    ["edit_private_posts", /*      */ [Y, Y, N, N, N, N]],
    ["read_private_posts", /*      */ [Y, Y, N, N, N, N]],
    ["delete_posts", /*            */ [Y, Y, Y, Y, N, N]],
    ["delete_published_posts", /*  */ [Y, Y, Y, N, N, N]],
    ["delete_others_posts", /*     */ [Y, Y, N, N, N, N]],
    ["delete_private_posts", /*    */ [Y, Y, N, N, N, N]],
    ["upload_files", /*            */ [Y, Y, Y, N, N, N]],
    ["manage_categories", /*       */ [Y, Y, N, N, N, N]],
    ["manage_event_categories", /* */ [Y, Y, Y, N, N, N]],
  ];

  it("covers every capability", () => {
    expect(TABLE.map(([cap]) => cap).sort()).toEqual([...CAPABILITIES].sort());
  });

  describe.each(TABLE)("%s", (cap, cells) => {
    it.each(byActor(cells))("%s → %s", (actor, expected) => {
      expect(hasCap(who(actor), cap)).toBe(expected);
    });
  });

  it.each([...CAPABILITIES])("trusted internal caller (undefined) has %s", (cap) => {
    expect(hasCap(undefined, cap)).toBe(true);
  });

  it("deniedStatus: anonymous 401, authenticated 403", () => {
    expect(deniedStatus(null)).toBe(401);
    expect(deniedStatus({ id: 1, role: "subscriber" })).toBe(403);
    expect(deniedStatus({ id: 1, role: "administrator" })).toBe(403);
  });
});

// -------------------------------------------------------------------------------------------------------
// docs/authorization.md#per-record-rules — "Resulting matrix" for events, venues and organizers
// -------------------------------------------------------------------------------------------------------

/** "yes" = own and others' allowed; "own" = own only; "no" = neither. */
type Cell = "yes" | "own" | "no";
type Check = (w: Who, post: PostLike) => boolean;

/** A record state: status, plus the prior status for trash. */
interface State {
  status: string;
  prior_status?: string;
}

const s = (status: string): State => ({ status });
const trashed = (prior: string): State => ({ status: "trash", prior_status: prior });

const NON_PUBLIC_UNPUBLISHED = [s("draft"), s("pending"), s("future")];
const OWN_EDITABLE_BY_CONTRIBUTOR = [s("draft"), s("pending"), s("private")];
const PUBLISHED_OR_FUTURE = [s("publish"), s("future")];
const ALL_STATES = [
  s("publish"),
  s("future"),
  s("draft"),
  s("pending"),
  s("private"),
  s("auto-draft"),
  s("inherit"),
  trashed("publish"),
  trashed("future"),
  trashed("draft"),
  trashed("pending"),
  trashed("private"),
];
const TRASHED = [trashed("publish"), trashed("future"), trashed("draft"), trashed("pending"), trashed("private")];

interface MatrixRow {
  operation: string;
  check: Check;
  states: State[];
  /** which records the row is about */
  whose: "any" | "own" | "others";
  cells: [Cell, Cell, Cell, Cell, Cell, Cell];
}

//                                                                     admin  editor author contrib subscr anon
const MATRIX: MatrixRow[] = [
  { operation: "GET published", check: canReadPost, states: [s("publish")], whose: "any", cells: ["yes", "yes", "yes", "yes", "yes", "yes"] },
  { operation: "GET draft/pending/future", check: canReadPost, states: NON_PUBLIC_UNPUBLISHED, whose: "any", cells: ["yes", "yes", "own", "own", "own", "no"] },
  { operation: "GET private", check: canReadPost, states: [s("private")], whose: "any", cells: ["yes", "yes", "own", "own", "own", "no"] },
  { operation: "GET trashed venue/organizer", check: canReadPost, states: TRASHED, whose: "any", cells: ["yes", "yes", "own", "own", "own", "no"] },
  { operation: "update own draft/pending/private", check: canEditPost, states: OWN_EDITABLE_BY_CONTRIBUTOR, whose: "own", cells: ["yes", "yes", "yes", "yes", "no", "no"] },
  { operation: "update own published/future", check: canEditPost, states: PUBLISHED_OR_FUTURE, whose: "own", cells: ["yes", "yes", "yes", "no", "no", "no"] },
  { operation: "update others'", check: canEditPost, states: ALL_STATES, whose: "others", cells: ["yes", "yes", "no", "no", "no", "no"] },
  { operation: "delete own draft/pending/private", check: canDeletePost, states: OWN_EDITABLE_BY_CONTRIBUTOR, whose: "own", cells: ["yes", "yes", "yes", "yes", "no", "no"] },
  { operation: "delete own published/future", check: canDeletePost, states: PUBLISHED_OR_FUTURE, whose: "own", cells: ["yes", "yes", "yes", "no", "no", "no"] },
  { operation: "delete others'", check: canDeletePost, states: ALL_STATES, whose: "others", cells: ["yes", "yes", "no", "no", "no", "no"] },
];

function expectedFor(cell: Cell, ownership: "own" | "others"): boolean {
  return cell === "yes" || (cell === "own" && ownership === "own");
}

const matrixCases = MATRIX.flatMap((row) =>
  byActor(row.cells).flatMap(([actor, cell]) =>
    row.states.flatMap((state) =>
      (row.whose === "any" ? (["own", "others"] as const) : [row.whose]).map((ownership) => ({
        label: `${row.operation} — ${actor}, ${ownership} ${state.status}${state.prior_status ? ` (prior ${state.prior_status})` : ""}`,
        check: row.check,
        actor,
        post: { author: ownership === "own" ? CALLER_ID : OTHER_ID, ...state },
        expected: expectedFor(cell, ownership),
      })),
    ),
  ),
);

describe("per-record rules: docs/authorization.md#per-record-rules resulting matrix", () => {
  it.each(matrixCases)("$label → $expected", ({ check, actor, post, expected }) => {
    expect(check(who(actor), post)).toBe(expected);
  });

  describe("create", () => {
    it.each(byActor([Y, Y, Y, Y, N, N]))("%s → %s", (actor, expected) => {
      expect(canCreatePost(who(actor))).toBe(expected);
    });
  });

  describe("list", () => {
    it.each(byActor([Y, Y, Y, Y, Y, Y]))("list (published): %s → %s", (actor, expected) => {
      expect(listStatuses(who(actor), ["publish"]).ok).toBe(expected);
      const noParam = listStatuses(who(actor), undefined);
      expect(noParam.ok && noParam.statuses.includes("publish")).toBe(expected);
    });

    it.each(byActor([Y, Y, Y, Y, N, N]))("list other statuses: %s → %s", (actor, expected) => {
      expect(listStatuses(who(actor), ["draft"]).ok).toBe(expected);
      const noParam = listStatuses(who(actor), undefined);
      expect(noParam.ok && noParam.statuses.includes("draft")).toBe(expected);
    });
  });
});

describe("per-record rules: details of docs/authorization.md#per-record-rules", () => {
  const editor: Who = { id: 2, role: "editor" };
  const admin: Who = { id: 1, role: "administrator" };

  it("editor edits and deletes the administrator's published event (tested)", () => {
    const post = { author: 1, status: "publish" };
    expect(canEditPost(editor, post)).toBe(true);
    expect(canDeletePost(editor, post)).toBe(true);
    expect(canReadPost(editor, post)).toBe(true);
    expect(canEditPost(admin, { author: 2, status: "private" })).toBe(true);
  });

  // Own trashed records: judged by the prior status.
  //                                                 admin editor author contrib subscr anon
  const OWN_TRASH: Array<[string, [boolean, boolean, boolean, boolean, boolean, boolean]]> = [
    ["publish", /* */ [Y, Y, Y, N, N, N]],
    ["future", /*  */ [Y, Y, Y, N, N, N]],
    ["draft", /*   */ [Y, Y, Y, Y, N, N]],
    ["pending", /* */ [Y, Y, Y, Y, N, N]],
    ["private", /* */ [Y, Y, Y, Y, N, N]],
  ];
  describe.each(OWN_TRASH)("own trashed record, prior %s: edit and delete", (prior, cells) => {
    it.each(byActor(cells))("%s → %s", (actor, expected) => {
      const post = { author: CALLER_ID, status: "trash", prior_status: prior };
      expect(canEditPost(who(actor), post)).toBe(expected);
      expect(canDeletePost(who(actor), post)).toBe(expected);
    });
  });

  it("a trashed record without a known prior status is judged as a draft", () => {
    const contributor: Who = { id: CALLER_ID, role: "contributor" };
    expect(canEditPost(contributor, { author: CALLER_ID, status: "trash" })).toBe(true);
    expect(canEditPost({ id: CALLER_ID, role: "author" }, { author: OTHER_ID, status: "trash" })).toBe(false);
  });

  it("author 0 is nobody's record", () => {
    const contributor: Who = { id: 0, role: "contributor" };
    expect(canEditPost(contributor, { author: 0, status: "draft" })).toBe(false);
    expect(canReadPost(contributor, { author: 0, status: "draft" })).toBe(false);
  });

  it("the trusted internal caller may do everything", () => {
    for (const state of ALL_STATES) {
      const post = { author: OTHER_ID, ...state };
      expect(canReadPost(undefined, post)).toBe(true);
      expect(canEditPost(undefined, post)).toBe(true);
      expect(canDeletePost(undefined, post)).toBe(true);
    }
    expect(canCreatePost(undefined)).toBe(true);
    expect(canManageTerms(undefined, "category")).toBe(true);
    expect(canManageTerms(undefined, "tag")).toBe(true);
  });
});

// -------------------------------------------------------------------------------------------------------
// docs/authorization.md#term-capabilities — terms
// -------------------------------------------------------------------------------------------------------
describe("canManageTerms (docs/authorization.md#term-capabilities)", () => {
  //                                                   admin editor author contrib subscr anon
  const TERMS: Array<[Taxonomy, [boolean, boolean, boolean, boolean, boolean, boolean]]> = [
    ["category", /* */ [Y, Y, Y, N, N, N]],
    ["tag", /*      */ [Y, Y, N, N, N, N]],
  ];
  describe.each(TERMS)("%s", (taxonomy, cells) => {
    it.each(byActor(cells))("%s → %s", (actor, expected) => {
      expect(canManageTerms(who(actor), taxonomy)).toBe(expected);
    });
  });
});

// -------------------------------------------------------------------------------------------------------
// docs/records.md#status-on-write — status resolution
// -------------------------------------------------------------------------------------------------------
describe("resolveStatus (docs/records.md#status-on-write)", () => {
  const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
  const PAST = NOW - 86_400_000;
  const FUTURE = NOW + 86_400_000;
  const FLOATING = null;
  const PUBLISHERS: Actor[] = ["administrator", "editor", "author"];

  type ResolutionRow = [string, Who, string | undefined, number | null, string];
  const ROWS: ResolutionRow[] = [
    // scale back: cannot publish (contributor)
    ["contributor publish → pending", who("contributor"), "publish", PAST, "pending"],
    ["contributor future → pending", who("contributor"), "future", FUTURE, "pending"],
    ["contributor publish in the future → pending", who("contributor"), "publish", FUTURE, "pending"],
    ["contributor none → draft", who("contributor"), undefined, PAST, "draft"],
    ["contributor none, floating date → draft", who("contributor"), undefined, FLOATING, "draft"],
    ["contributor private → private (not checked)", who("contributor"), "private", PAST, "private"],
    ["contributor draft → draft", who("contributor"), "draft", PAST, "draft"],
    ["contributor pending → pending", who("contributor"), "pending", FUTURE, "pending"],
    ["contributor trash → trash (not checked)", who("contributor"), "trash", PAST, "trash"],
    // can publish
    ...PUBLISHERS.flatMap((actor): ResolutionRow[] => [
      [`${actor} none → publish`, who(actor), undefined, PAST, "publish"],
      [`${actor} none, future date → future`, who(actor), undefined, FUTURE, "future"],
      [`${actor} publish → publish`, who(actor), "publish", PAST, "publish"],
      [`${actor} draft → draft`, who(actor), "draft", FUTURE, "draft"],
      [`${actor} private → private`, who(actor), "private", FUTURE, "private"],
      [`${actor} pending → pending`, who(actor), "pending", PAST, "pending"],
    ]),
    ["trusted internal none → publish", undefined, undefined, PAST, "publish"],
    // the 60 s date rule
    ["publish, date 60 s ahead → future", who("author"), "publish", NOW + 60_000, "future"],
    ["publish, date 59.999 s ahead → publish", who("author"), "publish", NOW + 59_999, "publish"],
    ["publish, date now → publish", who("author"), "publish", NOW, "publish"],
    ["publish, date in the future → future", who("editor"), "publish", FUTURE, "future"],
    ["future, date in the past → publish", who("editor"), "future", PAST, "publish"],
    ["future, date 59.999 s ahead → publish", who("editor"), "future", NOW + 59_999, "publish"],
    ["future, date 60 s ahead → future", who("editor"), "future", NOW + 60_000, "future"],
    ["future, floating date → future", who("editor"), "future", FLOATING, "future"],
    ["publish, floating date → publish", who("editor"), "publish", FLOATING, "publish"],
    ["draft, future date → draft", who("editor"), "draft", FUTURE, "draft"],
  ];

  it.each(ROWS)("%s", (_label, caller, given, publication, expected) => {
    expect(resolveStatus(caller, given, publication, NOW)).toBe(expected);
  });
});

// -------------------------------------------------------------------------------------------------------
// docs/authorization.md#password-protected-records — password-protected records
// -------------------------------------------------------------------------------------------------------
describe("canAccessPassword (docs/authorization.md#password-protected-records)", () => {
  const protectedPost = (author: number, status = "publish"): PostLike => ({ author, status, post_password: "S3cret" });

  type PasswordRow = [string, Who, PostLike, { password?: string; context?: string }, boolean];
  const ROWS: PasswordRow[] = [
    ["no password: anonymous", null, { author: OTHER_ID, status: "publish" }, {}, true],
    ["empty password: anonymous", null, { author: OTHER_ID, status: "publish", post_password: "" }, {}, true],
    ["protected: anonymous, nothing given", null, protectedPost(OTHER_ID), {}, false],
    ["protected: administrator, no context", who("administrator"), protectedPost(OTHER_ID), {}, false],
    ["protected: administrator, context=view", who("administrator"), protectedPost(OTHER_ID), { context: "view" }, false],
    ["protected: administrator, context=edit", who("administrator"), protectedPost(OTHER_ID), { context: "edit" }, true],
    ["protected: author, own, context=edit", who("author"), protectedPost(CALLER_ID), { context: "edit" }, true],
    ["protected: author, others', context=edit", who("author"), protectedPost(OTHER_ID), { context: "edit" }, false],
    ["protected: contributor, own published, context=edit", who("contributor"), protectedPost(CALLER_ID), { context: "edit" }, false],
    ["protected: contributor, own draft, context=edit", who("contributor"), protectedPost(CALLER_ID, "draft"), { context: "edit" }, true],
    ["protected: anonymous, context=edit", null, protectedPost(OTHER_ID), { context: "edit" }, false],
    ["protected: anonymous, right password", null, protectedPost(OTHER_ID), { password: "S3cret" }, true],
    ["protected: subscriber, right password", who("subscriber"), protectedPost(OTHER_ID), { password: "S3cret" }, true],
    ["protected: password is case-sensitive", null, protectedPost(OTHER_ID), { password: "s3cret" }, false],
    ["protected: password is exact", null, protectedPost(OTHER_ID), { password: " S3cret" }, false],
    ["protected: empty password given", null, protectedPost(OTHER_ID), { password: "" }, false],
    ["protected: wrong password, context=edit, may edit", who("editor"), protectedPost(OTHER_ID), { password: "x", context: "edit" }, true],
    ["protected: trusted internal caller", undefined, protectedPost(OTHER_ID), {}, true],
  ];

  it.each(ROWS)("%s → %s", (_label, caller, post, opts, expected) => {
    expect(canAccessPassword(caller, post, opts)).toBe(expected);
  });
});

// -------------------------------------------------------------------------------------------------------
// Statuses: D28 (accepted statuses), docs/lists.md, C13 (a due `future` post counts as published)
// -------------------------------------------------------------------------------------------------------
describe("statuses", () => {
  it("REGISTERED_STATUSES is the D28 (accepted statuses) list", () => {
    expect([...REGISTERED_STATUSES]).toEqual([
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
    ]);
  });

  it.each<[string, boolean]>([
    ["publish", true],
    ["auto-draft", true],
    ["request-completed", true],
    ["any", false],
    ["Publish", false],
    ["", false],
    ["published", false],
  ])("isRegisteredStatus(%j) → %s", (status, expected) => {
    expect(isRegisteredStatus(status)).toBe(expected);
  });

  it.each(REGISTERED_STATUSES.map((status) => [status, status === "publish"] as const))("isPublicStatus(%s) → %s", (status, expected) => {
    expect(isPublicStatus(status)).toBe(expected);
  });

  it.each<[string, string, string, string]>([
    ["future", "2025-01-15 12:00:01", "2025-01-15 12:00:00", "future"],
    ["future", "2025-01-15 12:00:00", "2025-01-15 12:00:00", "publish"],
    ["future", "2024-12-31 23:59:59", "2025-01-15 12:00:00", "publish"],
    ["draft", "2024-12-31 23:59:59", "2025-01-15 12:00:00", "draft"],
    ["publish", "2026-01-01 00:00:00", "2025-01-15 12:00:00", "publish"],
    ["private", "2024-01-01 00:00:00", "2025-01-15 12:00:00", "private"],
  ])("effectiveStatus(%s, date_utc %s, now %s) → %s (C13: a due future post counts as published)", (status, dateUtc, now, expected) => {
    expect(effectiveStatus({ status, date_utc: dateUtc }, now)).toBe(expected);
  });
});

describe("listStatuses (docs/lists.md#always-applied, #event-filters, #venue-and-organizer-filters)", () => {
  const DEFAULT_FOR_EDITORS = REGISTERED_STATUSES.filter((st) => st !== "trash" && st !== "auto-draft");
  const WITH_EDIT_POSTS: Actor[] = ["administrator", "editor", "author", "contributor"];
  const WITHOUT_EDIT_POSTS: Actor[] = ["subscriber", "anonymous"];

  type ListRow = [string, Who, string[] | undefined, { ok: true; statuses: string[] } | { ok: false }];
  const ROWS: ListRow[] = [
    ...WITHOUT_EDIT_POSTS.flatMap((actor): ListRow[] => [
      [`${actor}, no status → publish`, who(actor), undefined, { ok: true, statuses: ["publish"] }],
      [`${actor}, status=publish → publish`, who(actor), ["publish"], { ok: true, statuses: ["publish"] }],
      [`${actor}, status=draft → 400`, who(actor), ["draft"], { ok: false }],
      [`${actor}, status=publish,draft → 400`, who(actor), ["publish", "draft"], { ok: false }],
      [`${actor}, status=any → 400`, who(actor), ["any"], { ok: false }],
      [`${actor}, empty status → 400`, who(actor), [], { ok: false }],
    ]),
    ...WITH_EDIT_POSTS.flatMap((actor): ListRow[] => [
      [`${actor}, no status → all but trash/auto-draft`, who(actor), undefined, { ok: true, statuses: DEFAULT_FOR_EDITORS }],
      [`${actor}, status=draft,pending`, who(actor), ["draft", "pending"], { ok: true, statuses: ["draft", "pending"] }],
      [`${actor}, status=trash`, who(actor), ["trash"], { ok: true, statuses: ["trash"] }],
      [`${actor}, status=auto-draft,publish`, who(actor), ["auto-draft", "publish"], { ok: true, statuses: ["auto-draft", "publish"] }],
      [`${actor}, status=any → 400`, who(actor), ["any"], { ok: false }],
      [`${actor}, status=publish,bogus → 400`, who(actor), ["publish", "bogus"], { ok: false }],
      [`${actor}, empty status → 400`, who(actor), [], { ok: false }],
    ]),
    ["duplicates are collapsed", who("editor"), ["draft", "draft"], { ok: true, statuses: ["draft"] }],
    ["trusted internal caller, no status", undefined, undefined, { ok: true, statuses: DEFAULT_FOR_EDITORS }],
  ];

  it.each(ROWS)("%s", (_label, caller, requested, expected) => {
    expect(listStatuses(caller, requested)).toEqual(expected);
  });

  it("the default list for editors has no trash and no auto-draft", () => {
    const result = listStatuses(who("editor"), undefined);
    expect(result.ok && result.statuses).not.toContain("trash");
    expect(result.ok && result.statuses).not.toContain("auto-draft");
  });
});
