/** The i18n service through a broker (embedded store in memory, memory cacher), without HTTP. */
import { ServiceBroker } from "moleculer";
import { readSettings, useSettings } from "../../lib/settings";
import I18nService from "../../services/i18n.service";
import type { Json } from "../helpers/json";

describe("i18n service", () => {
  let broker: ServiceBroker;
  let finds: jest.SpyInstance;
  let cleaned: string[];

  beforeAll(async () => {
    useSettings(readSettings({ DATA_DIR: ":memory:", DEFAULT_LANGUAGE: "en" }));
    broker = new ServiceBroker({ logger: false, cacher: "Memory" });
    broker.createService(I18nService);
    await broker.start();
    cleaned = [];
    // what each write cleans: the site's kept values and the records' kept reads (they embed translations)
    const clean = broker.cacher!.clean.bind(broker.cacher);
    broker.cacher!.clean = (match?: string | string[]) => { cleaned.push(([] as string[]).concat(match ?? []).join(" ")); return clean(match); };
    finds = jest.spyOn((broker.getLocalService("i18n") as Json).store, "find");
  });
  afterAll(() => broker.stop());

  it("lists the eight languages in the spec's order and the default", async () => {
    expect(await broker.call("i18n.languages")).toEqual({ languages: ["bg", "zh-hans", "en", "fr", "de", "ja", "pt-br", "es"], default: "en" });
  });

  it("stores a language's values, merging field by field, and answers the languages held", async () => {
    expect(await broker.call("i18n.write", { type: "event", id: 1, language: "fr", fields: { title: "Concert" }, originals: { title: "Gig", description: "Loud", excerpt: "" } })).toEqual(["fr"]);
    expect(await broker.call("i18n.write", { type: "event", id: 1, language: "fr", fields: { description: "Fort" } })).toEqual(["fr"]);
    expect(await broker.call("i18n.write", { type: "event", id: 1, language: "bg", fields: { title: "Концерт" } })).toEqual(["bg", "fr"]);
    expect(await broker.call("i18n.write", { type: "event", id: 1, language: "fr", fields: {}, original: "en" })).toEqual(["bg", "en", "fr"]);
    expect(await broker.call("i18n.values", { type: "event", ids: [1, 2], language: "fr" })).toEqual({ 1: { title: "Concert", description: "Fort" } });
    expect(cleaned.filter(c => c === "i18n.values:1:** RESP:1:** ACT:1:**")).toHaveLength(4);
  });

  it("caches values per language and forgets them after a write", async () => {
    finds.mockClear();
    const params = { type: "event", ids: [1], language: "bg" };
    expect(await broker.call("i18n.values", params)).toEqual({ 1: { title: "Концерт" } });
    expect(await broker.call("i18n.values", params)).toEqual({ 1: { title: "Концерт" } });
    expect(finds).toHaveBeenCalledTimes(1);
    await broker.call("i18n.write", { type: "event", id: 1, language: "bg", fields: { title: "Концерт на живо" } });
    expect(await broker.call("i18n.values", params)).toEqual({ 1: { title: "Концерт на живо" } });
  });

  it("an empty value clears the field; a language without values goes away", async () => {
    expect(await broker.call("i18n.write", { type: "event", id: 1, language: "bg", fields: { title: "" } })).toEqual(["fr"]);
    expect(await broker.call("i18n.values", { type: "event", ids: [1], language: "bg" })).toEqual({});
    expect(await broker.call("i18n.write", { type: "event", id: 1, language: "de", fields: { title: "" } })).toEqual(["fr"]);
  });

  it("searches the language's text with the original as fallback", async () => {
    const search = (terms: string[], extra: Record<string, unknown> = {}) =>
      broker.call("i18n.search", { type: "event", language: "fr", terms: terms.map(text => ({ text, exclude: false })), ...extra });
    expect(await search(["concert"])).toEqual([1]);
    expect(await search(["gig"])).toEqual([]);
    expect(await search(["fort"], { fields: ["title"] })).toEqual([]);
    expect(await search([])).toEqual([]);
    expect(await search(["concert"], { fields: [] })).toEqual([]);
    await broker.call("i18n.write", { type: "event", id: 1, language: "fr", fields: { description: "" } });
    expect(await search(["loud"])).toEqual([1]);
    await broker.call("i18n.originals", { type: "event", id: 1, originals: { description: "Quiet" } });
    expect(await search(["loud"])).toEqual([]);
    expect(await search(["quiet"])).toEqual([1]);
  });

  it("finds names in one language (with fallback) or in any", async () => {
    await broker.call("i18n.write", { type: "term", id: 7, language: "de", fields: { name: "Musik" }, originals: { name: "Music", description: "" } });
    await broker.call("i18n.write", { type: "term", id: 7, language: "es", fields: { description: "Música en vivo" }, originals: { name: "Music", description: "" } });
    expect(await broker.call("i18n.findByName", { type: "term", name: "MUSIK" })).toEqual([7]);
    expect(await broker.call("i18n.findByName", { type: "term", name: "musik", language: "es" })).toEqual([]);
    expect(await broker.call("i18n.findByName", { type: "term", name: "music", language: "es" })).toEqual([7]);
    expect(await broker.call("i18n.findByName", { type: "event", name: "musik" })).toEqual([]);
  });

  it("removes every language of a record deleted permanently", async () => {
    expect(await broker.call("i18n.remove", { type: "term", id: 7 })).toBe(2);
    expect(await broker.call("i18n.values", { type: "term", ids: [7], language: "de" })).toEqual({});
  });

  it("refuses unknown types, languages and fields", async () => {
    await expect(broker.call("i18n.values", { type: "post", ids: [1], language: "fr" })).rejects.toThrow();
    await expect(broker.call("i18n.values", { type: "event", ids: [1], language: "xx" })).rejects.toThrow();
    await expect(broker.call("i18n.write", { type: "event", id: 1, language: "fr", fields: { slug: "x" } })).rejects.toThrow(/no translatable field slug/);
  });
});
