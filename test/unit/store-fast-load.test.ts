/** NeDB's line reader with the fast path (mixins/store/fast-load.ts) reads every line as NeDB's own does. */
import * as path from "path";
import "../../mixins/store/fast-load";

const modelPath = require.resolve("@seald-io/nedb/lib/model", { paths: [path.dirname(require.resolve("moleculer-db"))] });
const model = require(modelPath);

describe("fast line reading", () => {
  it("is installed on the NeDB the store runs on, and reads lines exactly as NeDB's reviver does", () => {
    expect(model.__fastDeserialize).toBe(true);
    const original = (raw: string) => JSON.parse(raw, function (k, v) {
      if (k === "$$date") return new Date(v);
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null) return v;
      if (v && v.$$date) return v.$$date;
      return v;
    });
    const lines = [
      model.serialize({ _id: 1, title: "Jazz \"night\"", start_date: "2031-01-01 10:00:00", venues: [2, 3], nested: { a: [1, { b: null }] }, flag: false }),
      model.serialize({ _id: 2, at: new Date(1_700_000_000_000), items: [{ when: new Date(0) }] }),
      model.serialize({ $$indexCreated: { fieldName: "slug", unique: true, sparse: false } }),
      model.serialize({ _id: 3, $$deleted: true }),
      model.serialize({ _id: 4, text: "mentions $$date in a string" })
    ];
    for (const line of lines) expect(model.deserialize(line)).toEqual(original(line));
    expect(model.deserialize(lines[1]).at).toBeInstanceOf(Date);
    expect(() => model.deserialize("{broken")).toThrow();
  });
});
