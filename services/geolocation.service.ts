import type { ServiceSchema } from "moleculer";

/** Placeholder until the geolocation service lands. */
const Service: ServiceSchema = { name: "geolocation", actions: {} };
export default Service;
