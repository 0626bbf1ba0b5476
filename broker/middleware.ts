/**
 * The broker middlewares of middlewares/ as Moleculer runs them: each hook answers the handler that wraps
 * the `next` it is given (an action's, an event's, or the broker's call, emit and broadcast).
 */
import type { ActionSchema, CallingOptions, Context, Middleware } from "moleculer";

/** An action's or an event's handler, as a hook receives and answers it. */
export type ContextHandler = (ctx: Context) => Promise<unknown>;

/** The broker's call, emit or broadcast, as a hook receives and answers it. */
export type BrokerSend = (name: string, payload: unknown, opts?: CallingOptions) => Promise<unknown>;

/** The hooks of this project's middlewares. */
export interface WrappingMiddleware {
  name: string;
  localAction?(next: ContextHandler, action: ActionSchema): ContextHandler;
  localEvent?(next: ContextHandler): ContextHandler;
  call?(next: BrokerSend): BrokerSend;
  emit?(next: BrokerSend): BrokerSend;
  broadcast?(next: BrokerSend): BrokerSend;
  broadcastLocal?(next: BrokerSend): BrokerSend;
  stopped?(): Promise<void>;
}

/** `middleware` as the broker's `middlewares` option takes it. */
export function brokerMiddleware(middleware: WrappingMiddleware): Middleware {
  // Moleculer's typings give call, emit and broadcast hooks the promise the wrapped method answers, not the wrapper the broker takes from them
  return middleware as unknown as Middleware;
}
