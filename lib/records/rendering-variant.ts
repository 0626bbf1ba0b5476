/**
 * The variant of an answer a stored rendering holds (docs/caching.md#stored-renderings): the language and
 * the addresses the answer is written with. Only the anonymous `view` context with no password is stored,
 * so neither caller nor context is part of it. The events, venues, organizers and taxonomy services name
 * it alike, so an event's rendering finds those of the records it links.
 */
export interface VariantRequest {
  /** STORED_RENDERINGS. */
  enabled: boolean;
  /** Null: anonymous. */
  caller: unknown;
  params: { password?: unknown; context?: unknown; format?: unknown };
  language: string;
  defaultLanguage: string;
  site: string;
  ns: string;
  baseUrl: string;
}

/** The variant a read asks for, or undefined when its answer is computed (a caller, a password, `context=edit`, another language or format). */
export function renderingVariant(r: VariantRequest): string | undefined {
  if (!r.enabled || r.caller !== null || r.language !== r.defaultLanguage) return undefined;
  const { password, context, format } = r.params;
  if (password !== undefined || (context !== undefined && context !== "view") || format !== undefined) return undefined;
  return JSON.stringify([r.language, r.site, r.ns, r.baseUrl]);
}
