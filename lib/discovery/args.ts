/**
 * The documented arguments of a routed action: read from its params schema (the table of lib/http/action-schemas.ts),
 * in declaration order. Both discovery documents and docs/action-api.md start from here, so an action's
 * params schema is their one source of truth.
 */
import { describeSchema, ParamDoc } from "../http/params";
import { schemaOf } from "../http/action-schemas";
import { hasMessage, LANGUAGES, translate } from "../i18n/messages";
import { parseInZone } from "../time/dates";

export interface DocumentedArg {
  name: string;
  doc: ParamDoc;
  required: boolean;
}

/** Added by the translation layer to every route (D19: the `i18n_language` argument); never part of an action's own schema. */
export const I18N_PARAM = "i18n_language";

/** The documented params of `action` ([] when it has no schema), without `i18n_language`. */
export function documentedArgs(action: string): DocumentedArg[] {
  const schema = schemaOf(action);
  return schema ? describeSchema(schema).filter(a => a.name !== I18N_PARAM) : [];
}

/**
 * A parameter description in `lang`: the catalogs hold the translations of the schemas' (English)
 * descriptions under the English text itself; a description they lack is printed as declared.
 */
export function argDescription(description: string, lang: string): string {
  return description && hasMessage(description) ? translate(description, lang) : description;
}

/** Whether `action` has a params schema. */
export function isDocumented(action: string): boolean {
  return schemaOf(action) !== undefined;
}

/** The `i18n_language` argument (D19: the `i18n_language` argument), as the namespace index prints it (last on every endpoint). */
export function i18nArg(): { type: string; enum: string[]; required: false } {
  return { type: "string", enum: [...LANGUAGES], required: false };
}

/** When and where relative date defaults are evaluated. */
export interface Clock {
  now: Date;
  siteZone: string;
}

const INTEGER_RE = /^\s*[+-]?\d+\s*$/;
const DATE_WORDS_RE = /\d|\b(?:now|today|tomorrow|yesterday|midnight|noon)\b/i;

/**
 * A string default that is a date expression (`"yesterday 23:59"`, `"+24 months"`) of an untyped or
 * string argument is printed as the date it stands for, in DB format and the site zone, as WordPress
 * prints the plugin's computed defaults. Any other default is printed as declared.
 */
export function printedDefault(doc: ParamDoc, clock: Clock): unknown {
  const value = doc.default;
  if (typeof value !== "string" || (doc.type !== undefined && doc.type !== "string")) return value;
  if (INTEGER_RE.test(value) || !DATE_WORDS_RE.test(value)) return value;
  return parseInZone(value, clock.siteZone, clock.now) ?? value;
}

/** The OpenAPI / JSON-schema type of an argument: declared, else derived from `items` or `format`. */
export function openApiType(doc: ParamDoc): string {
  const declared = doc.type as string | undefined;
  if (declared === "int") return "integer";
  if (declared === "bool") return "boolean";
  if (declared) return declared;
  if (doc.items) return "array";
  if (doc.format === "double" || doc.format === "float") return "number";
  return "string";
}

