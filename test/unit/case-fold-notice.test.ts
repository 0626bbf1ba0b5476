/**
 * store/sql/text-order.ts `caseFoldNotice`: what a PostgreSQL server without a Unicode collation for
 * fold() is told at opening (this machine's server has them, so the integration tests never see it).
 */
import { caseFoldNotice } from "../../store/sql/text-order";
import type { SqlDriver } from "../../store/sql/driver";

/** A driver answering the probe with one row. */
const answering = (row: Record<string, unknown>) => ({ dialect: "postgres", all: async () => [row] }) as unknown as SqlDriver;

describe("caseFoldNotice", () => {
  test("a fold() that lower-cases Cyrillic and Greek: no notice", async () => {
    expect(await caseFoldNotice(answering({ folds: true, ctype: "C" }), "postgres://***@db/calendar")).toBeUndefined();
  });

  test("one that does not: a notice naming the LC_CTYPE, the consequence and the remedy", async () => {
    const notice = await caseFoldNotice(answering({ folds: false, ctype: "POSIX" }), "postgres://***@db/calendar");
    expect(notice).toMatch(/postgres:\/\/\*\*\*@db\/calendar/);
    expect(notice).toMatch(/its LC_CTYPE is POSIX/);
    expect(notice).toMatch(/case-sensitive/);
    expect(notice).toMatch(/UTF-8 LC_CTYPE/);
  });
});
