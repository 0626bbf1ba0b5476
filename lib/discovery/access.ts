/**
 * Who may call a routed action, in words, for docs/action-api.md. The role lists are computed from the
 * capability rules of lib/access/capabilities.ts (docs/authorization.md), so the page follows them.
 */
import { canCreatePost, canDeletePost, canEditPost, canManageTerms, canReadPost, hasCap, PostLike, Taxonomy } from "../access/capabilities";
import { ROLES, Role } from "../access/callers";

const ME = 1;
const OTHER = 2;

function roles(allowed: (role: Role) => boolean): string {
  const list = ROLES.filter(allowed);
  return list.length ? list.join(", ") : "nobody";
}

const as = (role: Role) => ({ id: ME, role });
const own = (status: string): PostLike => ({ author: ME, status });
const others = (status: string): PostLike => ({ author: OTHER, status });

const POST_SERVICES = new Set(["events", "venues", "organizers"]);
const TAXONOMIES: Record<string, Taxonomy> = { categories: "category", tags: "tag" };

function postAccess(op: string): string | undefined {
  switch (op) {
    case "list":
      return "Anyone, anonymous included: published records. Other statuses (`status`, or everything but trash by default) "
        + `for ${roles(r => hasCap(as(r), "edit_posts"))}; anyone else asking for them gets 400.`;
    case "get":
    case "getBySlug":
      return "Anyone, anonymous included, for a published record. Other statuses (read_post): own records: "
        + `${roles(r => canReadPost(as(r), own("draft")))}; others' draft, pending or future records: `
        + `${roles(r => canReadPost(as(r), others("draft")))}; others' private records: ${roles(r => canReadPost(as(r), others("private")))}; `
        + "anonymous callers get 403. A password-protected record also needs its `password` (or `context=edit` from someone who may edit it).";
    case "create":
      return `${roles(r => canCreatePost(as(r)))} (edit_posts). Anonymous → 401, other roles → 403.`;
    case "update":
    case "updateBySlug":
      return "Per record (edit_post): own draft, pending or private records: "
        + `${roles(r => canEditPost(as(r), own("draft")))}; own published or future records: ${roles(r => canEditPost(as(r), own("publish")))}; `
        + `others' records: ${roles(r => canEditPost(as(r), others("publish")) && canEditPost(as(r), others("private")))}. Anonymous → 401, others → 403.`;
    case "remove":
    case "removeBySlug":
      return "Per record (delete_post): own draft, pending or private records: "
        + `${roles(r => canDeletePost(as(r), own("draft")))}; own published or future records: ${roles(r => canDeletePost(as(r), own("publish")))}; `
        + `others' records: ${roles(r => canDeletePost(as(r), others("publish")) && canDeletePost(as(r), others("private")))}. Anonymous → 401, others → 403.`;
    default:
      return undefined;
  }
}

function termAccess(taxonomy: Taxonomy, op: string): string | undefined {
  if (op === "list" || op === "get") return "Anyone, anonymous included.";
  if (op === "create" || op === "update" || op === "remove")
    return `${roles(r => canManageTerms(as(r), taxonomy))}. Anonymous → 401, other roles → 403.`;
  return undefined;
}

/**
 * Who may call `action` over HTTP. Internal callers (an action called on the bus without a caller in
 * `ctx.meta`) may call every action.
 */
export function accessOf(action: string): string {
  const parts = action.split(".");
  const op = parts[parts.length - 1];
  let text: string | undefined;
  if (parts[0] === "api") text = "Anyone, anonymous included; no authentication.";
  else if (POST_SERVICES.has(parts[0])) text = postAccess(op);
  else if (parts[0] === "taxonomy" && TAXONOMIES[parts[1]]) text = termAccess(TAXONOMIES[parts[1]], op);
  else if (action === "changes.list") text = "Anyone, anonymous included: the changes to the records the caller's lists show (a record that stops being shown appears as deleted).";
  return text ?? "See the action's service.";
}
