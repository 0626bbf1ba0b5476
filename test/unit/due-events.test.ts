/**
 * C13 (a due `future` post counts as published), in a read's arithmetic (lib/events/due-events.ts): what a list's statuses ask of the store, run on
 * the embedded store so the conditions are the store's own.
 */
import { asRead, dueStatuses, withDueStatuses } from "../../lib/events/due-events";
import { memoryCollection } from "../helpers/memory-store";

const NOW = "2026-06-01 12:00:00";

describe("due events read as published", () => {
  test("a due future record reads as publish; others as stored", () => {
    expect(asRead({ status: "future", date_utc: "2026-06-01 11:59:59" }, NOW).status).toBe("publish");
    expect(asRead({ status: "future", date_utc: NOW }, NOW).status).toBe("publish");
    const later = { status: "future", date_utc: "2026-06-01 12:00:01" };
    expect(asRead(later, NOW)).toBe(later);
    expect(asRead({ status: "draft", date_utc: "2020-01-01 00:00:00" }, NOW).status).toBe("draft");
  });

  test("lists: publish includes the due future records, future excludes them, both or neither read as stored", async () => {
    const { col } = await memoryCollection("events");
    const docs = [
      { _id: 1, status: "publish", date_utc: "2026-01-01 00:00:00" },
      { _id: 2, status: "future", date_utc: "2026-05-01 00:00:00" },
      { _id: 3, status: "future", date_utc: "2026-07-01 00:00:00" },
      { _id: 4, status: "draft", date_utc: "2026-05-01 00:00:00" }
    ];
    for (const doc of docs) await col.insert(doc);
    const listed = async (statuses: string[]) => {
      const due = dueStatuses(statuses, NOW);
      const found = await col.find(withDueStatuses({ $and: [{ status: { $in: due.statuses } }] }, due.condition), { sort: { _id: 1 } });
      return found.map(d => d._id);
    };
    expect(await listed(["publish"])).toEqual([1, 2]);
    expect(await listed(["future"])).toEqual([3]);
    expect(await listed(["publish", "future"])).toEqual([1, 2, 3]);
    expect(await listed(["draft"])).toEqual([4]);
    expect(await listed(["future", "draft"])).toEqual([3, 4]);
  });

  test("the condition joins the query's own conditions", () => {
    expect(withDueStatuses({ start_date: { $gte: "x" }, $and: [{ a: 1 }] }, { b: 2 })).toEqual({ start_date: { $gte: "x" }, $and: [{ a: 1 }, { b: 2 }] });
    expect(withDueStatuses({ a: 1 }, undefined)).toEqual({ a: 1 });
  });
});
