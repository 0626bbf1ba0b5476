import { parseLinkEntries } from "../../lib/linked/links";

describe("parseLinkEntries (docs/records.md#venue-and-organizer-input, D6: shapes of venue and organizer on events; C2: several venues)", () => {
  test.each([
    [null, []], [undefined, []], ["", []], [0, []], ["0", []], [false, []], [[], []], [[null, "", 0, []], []],
    [12, [{ id: 12 }]],
    ["12", [{ id: 12 }]],
    ["12, 13,,14", [{ id: 12 }, { id: 13 }, { id: 14 }]],
    [{ id: 12 }, [{ id: 12 }]],
    [{ id: "12", venue: "ignored" }, [{ id: 12 }]],
    [{ id: 0, venue: "New" }, [{ data: { id: 0, venue: "New" } }]],
    [{ venue: "New" }, [{ data: { venue: "New" } }]],
    [[12, "13,14", { id: 15 }, { venue: "New" }], [{ id: 12 }, { id: 13 }, { id: 14 }, { id: 15 }, { data: { venue: "New" } }]]
  ])("%j → %j", (input, expected) => {
    expect(parseLinkEntries(input)).toEqual(expected);
  });

  test.each([[-1], [1.5], ["abc"], ["12,x"], [true], [{ id: "x" }], [{ id: -2 }], [{ id: "1,2" }], [[12, [13]]], [[12, true]], [{ id: { $gt: 1 } }]])(
    "%j is invalid", input => {
      expect(parseLinkEntries(input)).toBeNull();
    });
});
