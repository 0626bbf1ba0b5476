/**
 * Venues and organizers as the API returns them (docs/records.md#venue-fields, #organizer-fields): the
 * request's language field by field, the images of a page in one look-up, protected fields blanked for
 * whom `reveal` says no (docs/authorization.md#password-protected-records), `json_ld` on asking.
 */
import { effectiveStatus } from "../../lib/capabilities";
import { nowDb } from "../../lib/dates";
import { mergeValues } from "../../lib/i18n/values";
import { TRANSLATABLE } from "../../lib/i18n/types";
import { settings } from "../../lib/settings";
import type { LinkedKindSpec } from "../../lib/linked/spec";
import { LinkedDoc, presentRecord } from "../../lib/linked/record";
import type { ImagePort, LanguagePort, RequestPort } from "./linked-ports";

export interface PresentOpts {
  jsonLd?: boolean;
  reveal: (doc: LinkedDoc) => boolean;
}

export interface LinkedPresenterDeps<R> {
  spec: LinkedKindSpec;
  request: RequestPort<R>;
  language: LanguagePort<R>;
  images: ImagePort<R>;
  now(): Date;
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
    const [images, values] = await Promise.all([this.deps.images.byId(docs.map(d => d.image)), language.localize(request, docs)]);
    const site = this.deps.request.siteUrl(request);
    const now = nowDb(this.deps.now());
    // i18n: the asked language's values field by field (one i18n call per page); the language keys last (C9).
    return docs.map(doc => language.applyLanguage(presentRecord(spec, mergeValues(doc, values.get(doc._id), this.translatable), {
      site,
      baseUrl: settings().baseUrl,
      status: effectiveStatus(doc, now),
      image: images.get(doc.image) ?? false,
      jsonLd: !!opts.jsonLd,
      reveal: opts.reveal(doc)
    }), doc, request));
  }
}
