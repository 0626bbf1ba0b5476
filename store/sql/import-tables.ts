/**
 * The tables of the imports service (docs/imports.md): made by the schema (migration 19) so that a site's
 * purge (store/sites.ts) can remove a site's import data whether or not the service ever ran here.
 * Each has the record tables' shape (`site`, `id`, `doc`).
 */
export const IMPORT_TABLES = ["imports", "import_records", "import_texts", "import_runs"] as const;
