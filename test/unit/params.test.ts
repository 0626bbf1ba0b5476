/**
 * The parameter rules' string with a length limit (lib/http/params.ts `string({ maxLength })`): characters
 * counted as the stores count them, the limit in /doc, and the rendered reason naming it.
 */
import { Errors } from "moleculer";
import { string } from "../../lib/http/params";
import { renderError, toApiError } from "../../gateway/error-render";
import { argSchema } from "../../lib/discovery/openapi";

function check(rule: ReturnType<typeof string>, value: unknown): { value: unknown; errors: Array<Record<string, unknown>> } {
  const errors: Array<Record<string, unknown>> = [];
  return { value: rule.custom(value, errors), errors };
}

describe("string({ maxLength })", () => {
  const rule = string({ description: "A password", maxLength: 5 });

  test("up to the limit in characters (an emoji is one), one more is param.length with the limit", () => {
    expect(check(rule, "abcde").errors).toEqual([]);
    expect(check(rule, "🔑🔑🔑🔑🔑").errors).toEqual([]);
    expect(check(rule, "abcdef").errors).toEqual([{ type: "param.length", actual: "abcdef", max: 5 }]);
    expect(check(string({ description: "no limit" }), "x".repeat(10_000)).errors).toEqual([]);
  });

  test("the limit is in the document, and the rendered reason names it in the request's language", () => {
    expect(argSchema({ name: "post_password", doc: rule.$doc, required: false } as Parameters<typeof argSchema>[0])).toMatchObject({ type: "string", maxLength: 5 });
    const err = new Errors.ValidationError("bad", "VALIDATION_ERROR", [{ type: "param.length", field: "post_password", actual: "abcdef", max: 5 }]);
    const en = renderError(toApiError(err).error, "en");
    expect(en.status).toBe(400);
    expect(en.body.data.params).toEqual({ post_password: "post_password may be at most 5 characters long." });
    expect(renderError(toApiError(err).error, "fr").body.data.params).toEqual({ post_password: "post_password ne peut dépasser 5 caractères." });
  });
});
