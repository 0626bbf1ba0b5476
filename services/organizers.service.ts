import type { ServiceSchema } from "moleculer";

/** Placeholder until the organizers service lands. */
const Service: ServiceSchema = { name: "organizers", actions: {} };
export default Service;
