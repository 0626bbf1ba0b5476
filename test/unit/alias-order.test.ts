import { inMatchOrder } from "../../gateway/alias-order";
import { aliases } from "../../lib/http/routes";

describe("a route's aliases in match order", () => {
  it("puts deeper paths first, then those with fewer parameters, then by text", () => {
    const order = Object.keys(inMatchOrder({
      "GET /": "index",
      "GET events/:id": "get",
      "GET events": "list",
      "GET events/by-slug/:slug": "bySlug",
      "GET events/by-slug": "none",
      "POST events/:id": "update",
      "GET venues/:id": "venue"
    }));
    expect(order).toEqual(["GET events/by-slug/:slug", "GET events/by-slug", "GET events/:id", "POST events/:id", "GET venues/:id", "GET /", "GET events"]);
  });

  it("keeps the order given among equal paths (one path's methods)", () => {
    expect(Object.keys(inMatchOrder({ "POST /": "a", "GET /": "b", "HEAD /": "c" }))).toEqual(["POST /", "GET /", "HEAD /"]);
  });

  it("tries a literal path of the API before a parameter at the same place", () => {
    const order = Object.keys(inMatchOrder(aliases()));
    expect(order).toHaveLength(Object.keys(aliases()).length);
    const at = (key: string) => order.indexOf(key);
    expect(at("GET /events/by-slug/:slug")).toBeGreaterThanOrEqual(0);
    expect(at("GET /events/by-slug/:slug")).toBeLessThan(at("GET /events/:id"));
    for (const key of order) {
      const [method, path] = key.split(" ");
      if (path.includes(":")) continue;
      // no alias with a parameter comes before a literal alias it would also match
      const shadowing = order.slice(0, at(key)).filter(k => {
        const [m, p] = k.split(" ");
        return m === method && p.includes(":") && new RegExp(`^${p.replace(/:[^/]+/g, "[^/]+")}$`).test(path);
      });
      expect({ key, shadowing }).toEqual({ key, shadowing: [] });
    }
  });
});
