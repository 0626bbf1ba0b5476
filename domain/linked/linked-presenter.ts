/**
 * Venues and organizers as the API returns them (docs/records.md#venue-fields, #organizer-fields): the
 * request's language field by field, the images of a page in one look-up, protected fields blanked for
 * whom `reveal` says no (docs/authorization.md#password-protected-records), `json_ld` on asking.
 */
import { effectiveStatus } from "../../lib/access/capabilities";
import { nowDb } from "../../lib/time/dates";
import { mergeValues } from "../../lib/i18n/values";
import { TRANSLATABLE } from "../../lib/i18n/types";
import { settings } from "../../lib/settings";
import type { LinkedKindSpec } from "../../lib/linked/spec";
import { LinkedDoc, presentRecord } from "../../lib/linked/record";
import type { ImagePort, LanguagePort, RequestPort } from "./linked-ports";
import type { FieldsView, RecordFields } from "../fields/record-fields";

export interface PresentOpts {
  jsonLd?: boolean;
  reveal: (doc: LinkedDoc) => boolean;
  /** The custom field definitions read from the store, not a kept copy (an answer the store keeps, store/renderings.ts). */
  freshFields?: boolean;
}

export interface LinkedPresenterDeps<R> {
  spec: LinkedKindSpec;
  request: RequestPort<R>;
  language: LanguagePort<R>;
  images: ImagePort<R>;
  now(): Date;
  /** `meta` and `custom_fields` (domain/fields/record-fields.ts). */
  fields?: RecordFields<R>;
}

/** The record with its custom fields (`custom_fields` [] and `meta` {} when it holds none), the JSON-LD's `additionalProperty` too. */
function withFields(record: Record<string, unknown>, view: FieldsView | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record, custom_fields: view?.custom_fields ?? [], meta: view?.meta ?? {} };
  if (view?.additional.length && out.json_ld && typeof out.json_ld === "object") out.json_ld = { ...out.json_ld, additionalProperty: view.additional };
  return out;
}

export class LinkedPresenter<R> {
  private readonly translatable: readonly string[];

  constructor(private readonly deps: LinkedPresenterDeps<R>) {
    this.translatable = TRANSLATABLE[deps.spec.kind].fields;
  }

  async one(request: R, record: LinkedDoc, opts: PresentOpts): Promise<Record<string, unknown>> {
    return (await this.many(request, [record], opts))[0];
  }

  /** Records as the API returns them; the images of all of them in one look-up. */
  async many(request: R, docs: LinkedDoc[], opts: PresentOpts): Promise<Record<string, unknown>[]> {
    const { spec, language } = this.deps;
    const [images, values, views] = await Promise.all([this.deps.images.byId(docs.map(d => d.image)), language.localize(request, docs), this.deps.fields?.views(request, !!opts.freshFields)]);
    const site = this.deps.request.siteUrl(request);
    const now = nowDb(this.deps.now());
    // i18n: the asked language's values field by field (one i18n call per page); the language keys last (C9: the i18n fields).
    return docs.map(doc => language.applyLanguage(withFields(presentRecord(spec, mergeValues(doc, values.get(doc._id), this.translatable), {
      site,
      baseUrl: settings().baseUrl,
      status: effectiveStatus(doc, now),
      image: images.get(doc.image) ?? false,
      jsonLd: !!opts.jsonLd,
      reveal: opts.reveal(doc)
    }), views?.(doc)), doc, request));
  }
}
