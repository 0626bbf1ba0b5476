/**
 * NeDB is installed twice (the top-level copy the id registry uses, and the one moleculer-db bundles for
 * the stores); a change to how NeDB reads or writes files applies to both.
 */
const COPIES = ["@seald-io/nedb", "moleculer-db/node_modules/@seald-io/nedb"];

/** Calls `patch` with the module `lib/<name>` of every installed NeDB copy. */
export function patchEveryNedb(name: string, patch: (mod: any) => void): void {
  for (const copy of COPIES) {
    let mod: unknown;
    try {
      mod = require(`${copy}/lib/${name}`);
    } catch {
      continue; // that copy is not installed
    }
    patch(mod);
  }
}
