/**
 * A service schema typed with its own `this` — Moleculer's service, the faces its mixins export and its
 * own methods and variables — handed to the broker as the plain schema the broker takes.
 */
import type { ServiceSchema, ServiceSettingSchema } from "moleculer";

/**
 * `schema`, checked against `This`, as a plain `ServiceSchema`. Moleculer merges the mixins into the
 * service at creation, so every handler does run with `This`; its typings cannot derive that from
 * `mixins` and type a plain schema's handlers with `Service & Record<string, any>`, which a handler that
 * needs `This` does not accept: the one conversion between the two is made here.
 */
export function serviceSchema<M, V, This>(schema: ServiceSchema<ServiceSettingSchema, M, V, This>): ServiceSchema {
  // a handler's `this` is the merged service (above); nothing else about the schema changes
  return schema as unknown as ServiceSchema;
}
