/**
 * The broker middleware that lets a batch check a request without running it (require-all-validate,
 * docs/api-policy.md#batch-requests): a call whose `meta.$validateOnly` names the action called is
 * answered 204, with nothing, once Moleculer's validator has checked its params against the action's own
 * schema (the validator wraps every project middleware, so it has run) and the text check before this one
 * has. The handler, and so every write, never runs. Other calls, and calls of other actions made with
 * that meta, pass on untouched.
 */
import type { ActionSchema, Context, Middleware } from "moleculer";
import { brokerMiddleware, type ContextHandler } from "../broker/middleware";
import type { CallMeta } from "../lib/http/call-meta";

export function ValidateOnlyMiddleware(): Middleware {
  return brokerMiddleware({
    name: "ValidateOnly",
    localAction(next: ContextHandler, action: ActionSchema) {
      return (ctx: Context) => {
        const meta = ctx.meta as CallMeta;
        if (meta.$validateOnly === undefined || meta.$validateOnly !== action.name) return next(ctx);
        meta.$statusCode = 204;
        return Promise.resolve(null);
      };
    }
  });
}
