/** Records translated into each language, kept beside the embedded store (lib/i18n/translated-tally.ts). */
import * as path from "path";
import { TranslatedTally } from "../../lib/i18n/translated-tally";
import { observeDatastore } from "../../mixins/store/write-observer";

const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

describe("translated records per language", () => {
  it("agrees with the store's count through inserts, updates and removals", async () => {
    const db = new Datastore({ inMemoryOnly: true });
    await db.insertAsync([{ _id: 1, lang: "en", translations: ["en"] }, { _id: 2, lang: "en", translations: ["en", "fr"] }]);
    const tally = new TranslatedTally();
    observeDatastore(db, tally as any);
    const check = async () => {
      for (const l of ["en", "fr", "ja", "de"]) expect(tally.translatedInto(l)).toBe(await db.countAsync({ translations: l, lang: { $ne: l } }));
      expect(tally.translatedRecords).toBe(await db.countAsync({ "translations.1": { $exists: true } }));
    };
    await check();
    expect(tally.translatedInto("fr")).toBe(1);
    await db.insertAsync({ _id: 3, lang: "fr", translations: ["fr", "en", "ja"] });
    await db.updateAsync({ _id: 1 }, { $push: { translations: "ja" } });
    await check();
    expect(tally.translatedInto("ja")).toBe(2);
    await db.updateAsync({ _id: 2 }, { $set: { translations: ["en"] } });
    await db.removeAsync({ _id: 3 }, {});
    await check();
    expect(tally.translatedInto("ja")).toBe(1);
    expect(tally.translatedInto("fr")).toBe(0);
  });
});
