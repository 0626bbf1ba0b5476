import { pageOf, totalFromPage } from "../../lib/posts/paging";

describe("a page that settles the list's total (docs/lists.md#counting-a-list)", () => {
  test("a first page with room left holds the whole list, an empty one included", () => {
    expect(totalFromPage(pageOf({}), 0)).toBe(0);
    expect(totalFromPage(pageOf({}), 3)).toBe(3);
    expect(totalFromPage(pageOf({ per_page: 5 }), 4)).toBe(4);
  });

  test("a later page with room left adds what came before it", () => {
    expect(totalFromPage(pageOf({ page: 3, per_page: 10 }), 7)).toBe(27);
    expect(totalFromPage(pageOf({ page: 2, per_page: 1 }), 0)).toBeUndefined();
  });

  test("a full page, or an empty one past the first, leaves the total to be counted", () => {
    expect(totalFromPage(pageOf({}), 10)).toBeUndefined();
    expect(totalFromPage(pageOf({ page: 4, per_page: 50 }), 50)).toBeUndefined();
    expect(totalFromPage(pageOf({ page: 2 }), 0)).toBeUndefined();
  });

  test("per_page above the lists' maximum is the maximum", () => {
    expect(totalFromPage(pageOf({ per_page: 80 }), 49)).toBe(49);
    expect(totalFromPage(pageOf({ per_page: 80 }), 50)).toBeUndefined();
  });
});
