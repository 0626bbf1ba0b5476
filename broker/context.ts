/**
 * Types every service and mixin shares: the context of a call (its params, and the meta the gateway
 * sets, lib/http/call-meta.ts).
 */
import type { Context } from "moleculer";
import type { CallMeta } from "../lib/http/call-meta";

/** A call's context: params `P`, the gateway's meta. */
export type Ctx<P = Record<string, unknown>> = Context<P, CallMeta>;

/** A read method a service runs by name (the action cache, mixins/cache.mixin.ts). */
export type ReadMethod = (ctx: Ctx<object>) => Promise<unknown>;
