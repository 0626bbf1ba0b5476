/**
 * The source identity an import stores with each event it creates (C64: what an import brings; docs/imports.md#idempotency):
 * passed by the imports service in the call's meta (never from a request: the gateway does not copy
 * request data into meta), stored on the event as `import_source` `{import, source_id}` and `import_key`
 * (the source and the record's id in it, what a run that lost track of a create looks it up by).
 */
export interface ImportSourceMeta {
  importSource?: { import: number; source_id: string; key: string };
}

/** The fields a create stores for the meta's import source (none without one). */
export function importSourceOf(meta: ImportSourceMeta | undefined): { import_source?: { import: number; source_id: string }; import_key?: string } {
  const src = meta?.importSource;
  if (!src || !Number.isInteger(src.import) || typeof src.source_id !== "string" || typeof src.key !== "string") return {};
  return { import_source: { import: src.import, source_id: src.source_id }, import_key: src.key };
}
