/**
 * Params schema of the change feed, `GET {ns}/changes` (`changes.list`): registered like every routed
 * action's, so the namespace index, /doc and docs/action-api.md document it.
 */
import { integer, ParamsSchema, schema, string } from "../http/params";
import { refine } from "../linked/params";
import { decodeToken, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "./feed";

export const CHANGES_PARAMS: Record<"list", ParamsSchema> = {
  list: schema({
    since: refine(string({ description: "Resume after this token (the next_token of an earlier answer); absent: from the beginning." }),
      (v, fail) => (decodeToken(v) === undefined ? fail("param.token") : v)),
    per_page: integer({ description: `How many changes a page holds (at most ${MAX_PER_PAGE}).`, default: DEFAULT_PER_PAGE, positive: true })
  })
};
