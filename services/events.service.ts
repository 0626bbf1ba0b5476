import type { ServiceSchema } from "moleculer";

/** Placeholder until the events service lands. */
const Service: ServiceSchema = { name: "events", actions: {} };
export default Service;
