import type { ServiceSchema } from "moleculer";

/** Placeholder until the taxonomy service lands. */
const Service: ServiceSchema = { name: "taxonomy", actions: {} };
export default Service;
