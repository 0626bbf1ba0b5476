/**
 * The compiled conditions a query compiler keeps (store/sql/compile.ts `where`): the same query answers the
 * same condition, frozen, however often it is asked; queries that print alike in JSON but differ (a pattern
 * and its text, a date and its text, an absent list element and null) are compiled apart.
 */
import { QueryCompiler, UnsupportedQuery } from "../../store/sql/compile";
import type { Dialect } from "../../store/sql/driver";

const compilerOf = (dialect: Dialect) => new QueryCompiler(dialect, { arrays: new Set(["categories"]) });

describe.each(["sqlite", "postgres"] as const)("the conditions a %s query compiler keeps", dialect => {
  it("answers a query asked again with the condition compiled the first time, frozen", () => {
    const compiler = compilerOf(dialect);
    const query = { $and: [{ status: { $in: ["publish", "future"] } }, { start_date: { $gte: "2026-12-01 00:00:00" } }] };
    const first = compiler.where(query);
    const again = compiler.where(JSON.parse(JSON.stringify(query)));
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.params)).toBe(true);
    expect(() => (first.params as unknown[]).push("x")).toThrow(TypeError);
    // what a fresh compiler makes of it is what was kept
    expect(compilerOf(dialect).where(query)).toEqual(first);
  });

  it("compiles queries that differ in their values apart", () => {
    const compiler = compilerOf(dialect);
    const a = compiler.where({ start_date: { $gte: "2026-12-01 00:00:00" } });
    const b = compiler.where({ start_date: { $gte: "2026-12-02 00:00:00" } });
    expect(b.params).not.toEqual(a.params);
    expect(compiler.where({ start_date: { $gte: "2026-12-01 00:00:00" } })).toBe(a);
  });

  it("tells a pattern from the text it prints as", () => {
    const compiler = compilerOf(dialect);
    const pattern = compiler.where({ title: { $regex: /concert/i } });
    expect(() => compiler.where({ title: { $regex: {} } })).toThrow(UnsupportedQuery);
    // nor from the object a pattern's key is written with
    expect(() => compiler.where({ title: { $regex: { $regex: "concert", $flags: "i" } } })).toThrow(UnsupportedQuery);
    expect(compiler.where({ title: { $regex: /concert/i } })).toBe(pattern);
    expect(compiler.where({ title: { $regex: /concert/ } })).not.toBe(pattern);
  });

  it("tells an absent list element from null", () => {
    const compiler = compilerOf(dialect);
    const withNull = compiler.where({ status: { $in: ["publish", null] } });
    const withAbsent = compiler.where({ status: { $in: ["publish", undefined] } });
    expect(withAbsent).not.toBe(withNull);
  });
});

it("tells a date from its text: SQLite refuses the date wherever the text was compiled first", () => {
  const compiler = compilerOf("sqlite");
  compiler.where({ start_date: "2026-12-01T00:00:00.000Z" });
  expect(() => compiler.where({ start_date: new Date("2026-12-01T00:00:00.000Z") })).toThrow(UnsupportedQuery);
});
