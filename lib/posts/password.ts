/**
 * Blanking of password-protected records (docs/records.md#password-protected-records, docs/records.md#venue-fields): the protected keys
 * are replaced by their blank values, also inside nested objects and arrays.
 */
export type Blanks = Record<string, unknown>;

export const EVENT_BLANKS: Blanks = {
  description: "", excerpt: "", image: false, all_day: null, cost: "",
  cost_details: { currency_symbol: "", currency_position: "", currency_code: "", values: [] },
  website: "", show_map: null, show_map_link: null, hide_from_listings: null, sticky: null, featured: null, ticketed: null,
  categories: [], tags: [], venue: [], organizer: [], custom_fields: []
};

export const VENUE_BLANKS: Blanks = {
  description: "", excerpt: "", image: false, phone: "", website: "", geo_lat: 0, geo_lng: 0, stateprovince: "", zip: "",
  province: "", state: "", country: "", city: "", address: ""
};

export const ORGANIZER_BLANKS: Blanks = { description: "", excerpt: "", image: false, email: "", phone: "", website: "" };

/** A copy of `record` with every protected key (at any depth) blanked. */
export function blankProtected<T>(record: T, blanks: Blanks): T {
  if (Array.isArray(record)) return record.map(item => blankProtected(item, blanks)) as unknown as T;
  if (!record || typeof record !== "object") return record;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record as Record<string, unknown>)) {
    out[key] = key in blanks ? structuredClone(blanks[key]) : blankProtected(value, blanks);
  }
  return out as T;
}
