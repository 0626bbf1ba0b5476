/**
 * The import rules `npm run lint` holds the sources to (dependency-cruiser):
 * - no cycle, counting imports of types alone (a type that both sides need lives in the module that owns it);
 * - the layers: the source folders stand in an order (LAYERS, as test/unit/house.test.ts checks them too);
 *   a file imports from its own folder and those after it, never from one above.
 */
const LAYERS = ["services", "middlewares", "mixins", "gateway", "cache", "broker", "domain", "store", "net", "lib"];

/** The files still importing a folder above their own (test/unit/house.test.ts LAYER_EXCEPTIONS says what and why). */
const LAYER_EXCEPTIONS = [];

const layerRules = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `${layer}/ imports nothing from the folders above it (${LAYERS.slice(0, i + 1).join(", ")})`,
  severity: "error",
  from: { path: `^${layer}/`, ...(LAYER_EXCEPTIONS.length ? { pathNot: LAYER_EXCEPTIONS } : {}) },
  to: { path: `^(${LAYERS.slice(0, i + 1).join("|")})/` }
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no cycle of imports, of values or of types alone",
      severity: "error",
      from: {},
      to: { circular: true }
    },
    ...layerRules
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|coverage|data|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".cjs", ".json"] }
  }
};
