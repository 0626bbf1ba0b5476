import fs from "fs";
import path from "path";
import { DEFAULT_LANGUAGE, LANGUAGES, hasMessage, isLanguage, translate } from "../../lib/i18n/messages";

const LOCALES = path.join(__dirname, "..", "..", "locales");

/**
 * Entries allowed to read exactly as in English, as `<lang>:<key>` (a product name, say). Keep it empty
 * unless a string is legitimately identical; an entry here needs a reason beside it.
 */
const SAME_AS_ENGLISH: ReadonlySet<string> = new Set<string>([]);

/** Keys the service relies on; en.json may hold more, never fewer. */
const REQUIRED_KEYS = [
  "rest_invalid_api_key", "rest_no_route", "rest_invalid_json", "rest_missing_callback_param", "rest_invalid_param",
  "geoloc-not-available", "rest_forbidden", "rest_invalid_namespace", "rest-event-not-found", "rest-invalid-event-id",
  "event-no-longer-available", "event-not-accessible", "event-password-protected", "could-not-create-venue",
  "could-not-create-organizer", "invalid-linked-post-id", "could-not-update-event", "event-is-in-trash",
  "could-not-delete-event", "event-archive-page-not-found", "venue-not-accessible", "organizer-not-accessible",
  "could-not-update-venue", "could-not-update-organizer", "venue-is-in-trash", "organizer-is-in-trash",
  "could-not-delete-venue", "could-not-delete-organizer", "venue-archive-page-not-found",
  "organizer-archive-page-not-found", "archive-bad-search-string", "rest_taxonomy_not_hierarchical", "term_exists",
  "empty_term_name", "duplicate_term_slug", "rest_cannot_delete", "rest_payload_too_large", "rest_too_many_requests",
  "rest_internal_error", "rest_service_unavailable", "rest_gateway_timeout", "rest_precondition_failed",
  "rest_idempotency_mismatch", "rest_idempotency_in_progress", "rest_invalid_type", "rest_not_ready",
  "param.invalid", "param.type", "param.required", "param.empty", "param.range", "param.date", "param.operator",
  "param.unknown_id", "param.timezone", "param.url", "param.image", "param.status", "param.language",
  "doc.title", "doc.description", "doc.ok", "doc.bad_request", "doc.forbidden", "doc.not_found", "doc.gone",
  "doc.server_error", "doc.created"
];

/** Placeholders the service fills in; each key must carry exactly these (in English, hence everywhere). */
const REQUIRED_PLACEHOLDERS: Record<string, string[]> = {
  "rest_missing_callback_param": ["params"],
  "rest_invalid_param": ["params"],
  "rest-event-not-found": ["id"],
  "param.type": ["param", "type"]
};

function readRaw(lang: string): string {
  return fs.readFileSync(path.join(LOCALES, `${lang}.json`), "utf8");
}

function readCatalog(lang: string): Record<string, unknown> {
  return JSON.parse(readRaw(lang)) as Record<string, unknown>;
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map(m => m[1]).sort();
}

const english = readCatalog("en") as Record<string, string>;
const englishKeys = Object.keys(english).sort();

describe("locale catalogs", () => {
  it("has exactly one catalog per language", () => {
    const files = fs.readdirSync(LOCALES).filter(f => f.endsWith(".json")).map(f => f.slice(0, -".json".length)).sort();
    expect(files).toEqual([...LANGUAGES].sort());
  });

  it("English holds every key the service needs", () => {
    const missing = REQUIRED_KEYS.filter(k => !Object.prototype.hasOwnProperty.call(english, k));
    expect(missing).toEqual([]);
  });

  it("English carries the placeholders the service fills in", () => {
    for (const [key, expected] of Object.entries(REQUIRED_PLACEHOLDERS)) expect({ key, placeholders: placeholders(english[key]) }).toEqual({ key, placeholders: expected });
    for (const key of Object.keys(english).filter(k => k.startsWith("param."))) expect({ key, has: placeholders(english[key]).includes("param") }).toEqual({ key, has: true });
  });

  describe.each([...LANGUAGES])("%s", lang => {
    const raw = readRaw(lang);
    const catalog = readCatalog(lang);

    it("is a flat object of non-empty strings without duplicate keys", () => {
      expect(catalog !== null && typeof catalog === "object" && !Array.isArray(catalog)).toBe(true);
      const problems: string[] = [];
      for (const [key, value] of Object.entries(catalog)) {
        if (typeof value !== "string") problems.push(`${key}: not a string`);
        else if (value.trim() === "") problems.push(`${key}: empty`);
        else if (value !== value.trim()) problems.push(`${key}: leading or trailing whitespace`);
      }
      expect(problems).toEqual([]);
      const written = [...raw.matchAll(/^\s*"((?:[^"\\]|\\.)*)"\s*:/gm)].map(m => JSON.parse(`"${m[1]}"`) as string);
      const duplicates = written.filter((k, i) => written.indexOf(k) !== i);
      expect(duplicates).toEqual([]);
    });

    it("has the same keys as English", () => {
      const keys = Object.keys(catalog);
      expect({ missing: englishKeys.filter(k => !keys.includes(k)), extra: keys.filter(k => !englishKeys.includes(k)) }).toEqual({ missing: [], extra: [] });
    });

    it("uses the same placeholders as English", () => {
      const mismatched = englishKeys
        .filter(k => typeof catalog[k] === "string")
        .filter(k => placeholders(catalog[k] as string).join(",") !== placeholders(english[k]).join(","))
        .map(k => `${k}: ${catalog[k]}`);
      expect(mismatched).toEqual([]);
    });

    if (lang !== DEFAULT_LANGUAGE) {
      it("is translated (no entry left as in English)", () => {
        const untranslated = englishKeys.filter(k => catalog[k] === english[k] && !SAME_AS_ENGLISH.has(`${lang}:${k}`));
        expect(untranslated).toEqual([]);
      });
    }
  });
});

describe("isLanguage", () => {
  it("accepts exactly the eight languages", () => {
    for (const lang of LANGUAGES) expect(isLanguage(lang)).toBe(true);
    for (const v of ["EN", "pt_BR", "pt", "zh", "xx", "", undefined, null, 1, {}]) expect(isLanguage(v)).toBe(false);
  });
});

describe("translate", () => {
  it("substitutes placeholders", () => {
    expect(translate("rest-event-not-found", "en", { id: 42 })).toBe("There is no event with the ID 42.");
    expect(translate("param.type", "en", { param: "featured", type: "boolean" })).toBe("featured must be of type boolean.");
    expect(translate("rest_invalid_param", "de", { params: "title, slug" })).toBe("Ungültige Parameter: title, slug");
    expect(translate("rest-event-not-found", "zh-hans", { id: 7 })).toBe("不存在 ID 为 7 的活动。");
  });

  it("substitutes every occurrence and leaves unknown placeholders alone", () => {
    expect(translate("param.type", "en", { param: "x" })).toBe("x must be of type {type}.");
    expect(translate("param.type", "en")).toBe("{param} must be of type {type}.");
    expect(translate("rest_forbidden", "en", { unused: "y" })).toBe(english.rest_forbidden);
  });

  it("does not re-substitute placeholder-like values", () => {
    expect(translate("param.type", "en", { param: "{type}", type: "integer" })).toBe("{type} must be of type integer.");
  });

  it("answers in every language", () => {
    for (const lang of LANGUAGES) expect(translate("doc.title", lang)).toBe((readCatalog(lang) as Record<string, string>)["doc.title"]);
  });

  it("falls back to English for an unknown or missing language", () => {
    expect(translate("doc.ok", undefined)).toBe("Returns the requested data.");
    expect(translate("doc.ok", "xx")).toBe("Returns the requested data.");
    expect(translate("doc.ok", "")).toBe("Returns the requested data.");
  });

  it("falls back to the key itself for an unknown key", () => {
    expect(translate("no.such.key", "fr")).toBe("no.such.key");
    expect(translate("constructor", "en")).toBe("constructor");
    expect(translate("no.such.{x}", "en", { x: 1 })).toBe("no.such.1");
  });

  it("falls back to English for a key a catalog lacks", () => {
    jest.isolateModules(() => {
      const { rest_forbidden: _dropped, ...partial } = readCatalog("de");
      jest.doMock(path.join(LOCALES, "de.json"), () => partial);
      const fresh = require("../../lib/i18n/messages") as typeof import("../../lib/i18n/messages");
      expect(fresh.translate("rest_forbidden", "de")).toBe(english.rest_forbidden);
      expect(fresh.translate("doc.ok", "de")).toBe("Gibt die angeforderten Daten zurück.");
    });
    jest.dontMock(path.join(LOCALES, "de.json"));
  });
});

describe("hasMessage", () => {
  it("knows the catalog keys and nothing else", () => {
    for (const key of REQUIRED_KEYS) expect(hasMessage(key)).toBe(true);
    for (const key of ["no.such.key", "constructor", "toString", ""]) expect(hasMessage(key)).toBe(false);
  });
});
