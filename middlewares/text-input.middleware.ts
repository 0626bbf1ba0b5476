/**
 * The broker middleware that refuses text no store can keep alike (lib/text/text-input.ts,
 * docs/errors.md#text-every-store-keeps) where input enters the calendar's services: calls from the gateway,
 * from other services on the bus, and without a service's context (`broker.call`). A parameter the action
 * declares that holds a NUL character or an unpaired surrogate, at any depth, is a Moleculer
 * `ValidationError` (`param.text`), as any other bad parameter: the gateway answers 400 `rest_invalid_param`.
 * Calls between the calendar's own services carry what was checked at the door, or what a store holds.
 */
import { Errors } from "moleculer";
import type { ActionSchema, Context, Middleware } from "moleculer";
import { brokerMiddleware } from "../broker/middleware";
import { unstorableParam } from "../lib/text/text-input";

type Handler = (ctx: Context) => Promise<unknown>;

/** The gateway's service name (services/api.service.ts): what it calls with is a request's query and body. */
const GATEWAY = "api";

/** `own`: the names of the calendar's services behind the gateway, whose calls to each other are not checked. */
export function TextInputMiddleware(own: readonly string[]): Middleware {
  const trusted = new Set(own.filter(name => name !== GATEWAY));
  return brokerMiddleware({
    name: "TextInput",
    localAction(next: Handler, action: ActionSchema) {
      const schema = action.params && typeof action.params === "object" ? action.params : undefined;
      const declared = schema ? Object.keys(schema).filter(name => !name.startsWith("$$")) : undefined;
      return (ctx: Context) => {
        const caller = ctx.caller ?? undefined;
        // an action without a parameter schema checks only what the gateway sends it (a request's JSON)
        if (caller === GATEWAY || (declared && !(caller !== undefined && trusted.has(caller)))) {
          const name = unstorableParam(ctx.params, declared);
          // a rejection, as every refusal of a call (a throw here would escape the caller's promise)
          if (name !== undefined)
            return Promise.reject(new Errors.ValidationError(`${name} holds a NUL character or an unpaired surrogate.`, "VALIDATION_ERROR", [{ type: "param.text", field: name }]));
        }
        return next(ctx);
      };
    }
  });
}
