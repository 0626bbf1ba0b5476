/**
 * Blanking of password-protected records (docs/records.md#password-protected-records, docs/records.md#venue-fields): the protected keys
 * are replaced by their blank values, also inside nested objects and arrays.
 */
export type Blanks = Record<string, unknown>;

/** A copy of `record` with every protected key (at any depth) blanked. */
export function blankProtected(record: Record<string, unknown>, blanks: Blanks): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    out[key] = key in blanks ? structuredClone(blanks[key]) : blankedValue(value, blanks);
  }
  return out;
}

/** A value inside a record: its objects and arrays copied with their protected keys blanked. */
function blankedValue(value: unknown, blanks: Blanks): unknown {
  if (Array.isArray(value)) return value.map(item => blankedValue(item, blanks));
  if (!value || typeof value !== "object") return value;
  return blankProtected({ ...value }, blanks);
}
