/**
 * The broker middleware that holds what work tells others until its writes are committed: an event
 * emitted or broadcast inside a shared transaction (store/sql/shared-transaction.ts: a batch of records
 * written in one transaction on PostgreSQL) leaves once the transaction has committed, and never when it
 * rolls back. A listener told of a change (a cache cleaned, a webhook's fan-out woken) reads it then;
 * told before, it would read the state before the change and keep it. Outside a shared transaction an
 * event leaves at once, as without this middleware.
 */
import type { Middleware } from "moleculer";
import { brokerMiddleware, type BrokerSend } from "../broker/middleware";
import { afterCommit } from "../store/sql/shared-transaction";

const held = (next: BrokerSend): BrokerSend => (name, payload, opts) => afterCommit(() => next(name, payload, opts));

export function AfterCommitMiddleware(): Middleware {
  return brokerMiddleware({
    name: "AfterCommit",
    emit: held,
    broadcast: held,
    broadcastLocal: held
  });
}
