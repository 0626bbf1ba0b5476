import type { ServiceSchema } from "moleculer";

/** Placeholder until the venues service lands. */
const Service: ServiceSchema = { name: "venues", actions: {} };
export default Service;
