/**
 * Names of countries and regions as people type them in a venue's address, mapped to the codes the
 * gazetteer uses: ISO 3166-1 alpha-2 country codes, and GeoNames admin1 codes for the regions of the
 * countries whose venues usually carry one (US states, Canadian provinces, Australian states, the UK's
 * nations). Country names come from the runtime's own CLDR data (Intl.DisplayNames) in the service's
 * languages, plus the usual variants CLDR does not list.
 */
import { memoOfObject } from "../memo";

/** Lower case, accents and punctuation removed, common abbreviations unified: the key of every lookup. */
export function normalizePlace(s: string): string {
  const plain = s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/['’‘`´]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  if (!plain) return "";
  return plain
    .split(" ")
    .map(word => ABBREVIATIONS[word] ?? word)
    .join(" ");
}

const ABBREVIATIONS: Record<string, string> = { saint: "st", sainte: "ste", mount: "mt", fort: "ft" };

const LANGUAGES = ["en", "fr", "de", "es", "it", "pt", "nl", "ja", "zh", "bg"];

const COUNTRY_ALIASES: Record<string, string> = {
  usa: "US", "u s a": "US", "u s": "US", "united states of america": "US", america: "US", "the united states": "US",
  uk: "GB", "u k": "GB", "great britain": "GB", britain: "GB", england: "GB", scotland: "GB", wales: "GB", "northern ireland": "GB",
  "united kingdom of great britain and northern ireland": "GB",
  holland: "NL", "the netherlands": "NL", turkey: "TR", "czech republic": "CZ", burma: "MM", "ivory coast": "CI",
  "russian federation": "RU", "republic of korea": "KR", korea: "KR", "korea republic of": "KR", "north korea": "KP",
  vatican: "VA", "vatican city": "VA", "holy see": "VA", macedonia: "MK", swaziland: "SZ", "cape verde": "CV", "east timor": "TL",
  "the bahamas": "BS", "the gambia": "GM", uae: "AE", "viet nam": "VN", "iran islamic republic of": "IR", "syrian arab republic": "SY",
  "lao peoples democratic republic": "LA", laos: "LA", "brunei darussalam": "BN", "republic of ireland": "IE", eire: "IE",
  "democratic republic of the congo": "CD", "dr congo": "CD", "republic of the congo": "CG", "congo brazzaville": "CG",
  "congo kinshasa": "CD", "falkland islands": "FK", "palestinian territories": "PS", palestine: "PS", "hong kong sar": "HK", "macau": "MO",
  "taiwan province of china": "TW", "st kitts and nevis": "KN", "st lucia": "LC", "st vincent and the grenadines": "VC"
};

const US_STATES: Record<string, string> = {
  alabama: "AL", alaska: "AK", arizona: "AZ", arkansas: "AR", california: "CA", colorado: "CO", connecticut: "CT", delaware: "DE",
  "district of columbia": "DC", "washington dc": "DC", "washington d c": "DC", florida: "FL", georgia: "GA", hawaii: "HI", idaho: "ID", illinois: "IL",
  indiana: "IN", iowa: "IA", kansas: "KS", kentucky: "KY", louisiana: "LA", maine: "ME", maryland: "MD", massachusetts: "MA",
  michigan: "MI", minnesota: "MN", mississippi: "MS", missouri: "MO", montana: "MT", nebraska: "NE", nevada: "NV",
  "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM", "new york": "NY", "north carolina": "NC", "north dakota": "ND",
  ohio: "OH", oklahoma: "OK", oregon: "OR", pennsylvania: "PA", "rhode island": "RI", "south carolina": "SC", "south dakota": "SD",
  tennessee: "TN", texas: "TX", utah: "UT", vermont: "VT", virginia: "VA", washington: "WA", "west virginia": "WV",
  wisconsin: "WI", wyoming: "WY"
};

/** GeoNames admin1 codes of Canada, Australia and the United Kingdom, by name and postal abbreviation. */
const ADMIN1: Record<string, Record<string, string>> = {
  CA: {
    alberta: "01", ab: "01", "british columbia": "02", bc: "02", manitoba: "03", mb: "03", "new brunswick": "04", nb: "04",
    "newfoundland and labrador": "05", newfoundland: "05", nl: "05", "nova scotia": "07", ns: "07", ontario: "08", on: "08",
    "prince edward island": "09", pe: "09", pei: "09", quebec: "10", qc: "10", saskatchewan: "11", sk: "11", yukon: "12", yt: "12",
    "northwest territories": "13", nt: "13", nunavut: "14", nu: "14"
  },
  AU: {
    "australian capital territory": "01", act: "01", "new south wales": "02", nsw: "02", "northern territory": "03", nt: "03",
    queensland: "04", qld: "04", "south australia": "05", sa: "05", tasmania: "06", tas: "06", victoria: "07", vic: "07",
    "western australia": "08", wa: "08"
  },
  GB: { england: "ENG", eng: "ENG", scotland: "SCT", sct: "SCT", wales: "WLS", wls: "WLS", "northern ireland": "NIR", nir: "NIR" }
};

/** Name (any of the service's languages, long or short form), alias or alpha-2 code → alpha-2 code. */
function buildCountryIndex(codes: Iterable<string>): Map<string, string> {
  const index = new Map<string, string>();
  for (const lang of LANGUAGES) {
    for (const style of ["long", "short"] as const) {
      let names: Intl.DisplayNames;
      try {
        names = new Intl.DisplayNames([lang], { type: "region", style });
      } catch {
        continue; // a runtime without that locale
      }
      for (const code of codes) {
        const name = names.of(code);
        if (!name || name === code) continue;
        const key = normalizePlace(name);
        if (key && !index.has(key)) index.set(key, code);
        // "Myanmar (Burma)": also the part before the parenthesis
        const bare = normalizePlace(name.replace(/\(.*\)/, ""));
        if (bare && !index.has(bare)) index.set(bare, code);
      }
    }
  }
  for (const [alias, code] of Object.entries(COUNTRY_ALIASES)) index.set(alias, code);
  return index;
}

/** The index of the `known` codes, built once per set of codes. */
const countryIndex = memoOfObject(buildCountryIndex);

/** The alpha-2 code of a country as typed, among `known` codes, or undefined. */
export function countryCode(input: string | undefined, known: ReadonlySet<string>): string | undefined {
  if (!input) return undefined;
  const raw = input.trim();
  if (/^[A-Za-z]{2}$/.test(raw) && known.has(raw.toUpperCase())) return raw.toUpperCase();
  const code = countryIndex(known).get(normalizePlace(raw));
  return code && known.has(code) ? code : undefined;
}

/** The admin1 codes a region as typed may stand for in a country (several when the country is unknown). */
export function regionCodes(input: string | undefined, country: string | undefined): string[] {
  if (!input) return [];
  const raw = input.trim();
  const key = normalizePlace(raw);
  if (!key) return [];
  const out = new Set<string>([raw.toUpperCase()]);
  const tables: Array<[string, Record<string, string>]> = [["US", US_STATES], ...Object.entries(ADMIN1)];
  for (const [cc, table] of tables) {
    if (country && country !== cc) continue;
    const code = table[key];
    if (code) out.add(code);
  }
  return [...out];
}
