/**
 * lib/errors.ts `allChecks`: parameter checks side by side, answered as if one after the other.
 */
import { allChecks, ApiError } from "../../lib/errors";

const later = <T>(ms: number, fn: () => T): Promise<T> => new Promise((resolve, reject) => setTimeout(() => { try { resolve(fn()); } catch (err) { reject(err); } }, ms));

describe("allChecks", () => {
  test("the values, plain values and promises alike", async () => {
    expect(await allChecks([Promise.resolve(1), undefined, later(5, () => "x")])).toEqual([1, undefined, "x"]);
  });

  test("every refused parameter named in the order given, whichever was refused first", async () => {
    const err = await allChecks([
      later(20, () => { throw ApiError.invalidParam("categories", "param.unknown_id"); }),
      later(1, () => { throw ApiError.invalidParam("tags", "param.unknown_id"); }),
      Promise.resolve(3)
    ]).catch(e => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.type).toBe("rest_invalid_param");
    expect(Object.keys(err.data.params)).toEqual(["categories", "tags"]);
    expect(err.data.params.tags).toEqual({ key: "param.unknown_id" });
  });

  test("any other failure is thrown as it is", async () => {
    const broken = new Error("bus down");
    await expect(allChecks([Promise.reject(ApiError.invalidParam("tags")), Promise.reject(broken)])).rejects.toBe(broken);
    const notFound = new ApiError("rest-event-not-found", 404);
    await expect(allChecks([Promise.reject(notFound), Promise.resolve(1)])).rejects.toBe(notFound);
  });
});
