/**
 * The input checks of venue and organizer writes that the params schema cannot make (after it, before
 * permission; docs/errors.md#order-of-checks): coordinate pairs (D8: geolocation), the image (no side effect), and the
 * entries of an event's `venue` / `organizer` input (docs/records.md#venue-and-organizer-input).
 */
import type { Collection } from "../../store/collection";
import { ApiError, ParamReason, isApiError } from "../../lib/errors";
import { codesOf, LinkedKindSpec } from "../../lib/linked/spec";
import { geoPairProblems } from "../../lib/linked/params";
import { LinkEntry, parseLinkEntries } from "../../lib/linked/links";
import type { ImagePort } from "./linked-ports";

export interface LinkedInputDeps<R> {
  spec: LinkedKindSpec;
  /** The kind's collection of the current site. */
  collection(): Collection;
  images: ImagePort<R>;
  /** The create params' checker (the create schema compiled): true, or what is wrong. */
  checkCreateParams(data: Record<string, unknown>): unknown;
}

export class LinkedInput<R> {
  private readonly codes;

  constructor(private readonly deps: LinkedInputDeps<R>) {
    this.codes = codesOf(deps.spec.kind);
  }

  /** Input problems the params schema cannot see: coordinate pairs (D8: geolocation), the image. */
  async problems(request: R, p: Record<string, unknown>): Promise<Record<string, ParamReason> | undefined> {
    const problems: Record<string, ParamReason> = { ...(this.deps.spec.geo ? geoPairProblems(p) : undefined) };
    if (p.image !== undefined && p.image !== null && p.image !== "") {
      await this.deps.images.check(request, p.image).catch((err: unknown) => {
        if (!isApiError(err)) throw err;
        problems.image = { key: "param.image" };
      });
    }
    return Object.keys(problems).length ? problems : undefined;
  }

  /** 400 `rest_invalid_param` with every problem of `problems`. */
  async check(request: R, p: Record<string, unknown>): Promise<void> {
    const problems = await this.problems(request, p);
    if (problems) throw ApiError.invalidParams(problems);
  }

  /**
   * The entries of an event's link input, each checked: ids must be records of this kind, data objects
   * what POST would take (converted as POST's schema does). Validation reports 400 `rest_invalid_param`
   * on the input's name; when linking (after the events' own validation) a wrong id is the plugin's
   * `invalid-linked-post-id` and unusable data `could-not-create-{kind}` (docs/errors.md#event-errors).
   */
  async linkEntries(request: R, value: unknown, linking: boolean): Promise<LinkEntry[]> {
    const { kind } = this.deps.spec;
    const entries = parseLinkEntries(value);
    if (!entries) throw ApiError.invalidParam(kind);
    const ids = [...new Set(entries.flatMap(e => ("id" in e ? [e.id] : [])))];
    if (ids.length && (await this.deps.collection().count({ _id: { $in: ids } })) !== ids.length) {
      throw linking ? new ApiError("invalid-linked-post-id", 400) : ApiError.invalidParam(kind, "param.unknown_id");
    }
    const checked: LinkEntry[] = [];
    for (const entry of entries) {
      if ("id" in entry) {
        checked.push(entry);
        continue;
      }
      const data = { ...entry.data };
      if (this.deps.checkCreateParams(data) !== true || (await this.problems(request, data))) {
        throw linking ? new ApiError(this.codes.couldNotCreate, 400) : ApiError.invalidParam(kind);
      }
      checked.push({ data });
    }
    return checked;
  }
}
