import type { ServiceSchema } from "moleculer";

/** Placeholder until the i18n service lands. */
const Service: ServiceSchema = { name: "i18n", actions: {} };
export default Service;
