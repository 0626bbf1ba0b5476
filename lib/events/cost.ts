// Event cost: storage, currency inference, `values` and the formatted string (docs/records.md#cost, D9: cost parsing).
import { sanitizeSlug } from "../text/slug";

// Raw cost values as given: a string input is one value, an array input one value per element.
export type StoredCost = string[];

export type CurrencyPosition = "" | "prefix" | "postfix";

/**
 * A number: digits, optional "," thousands groups (a "," followed by exactly 3 digits),
 * then at most one "." or "," decimal separator followed by digits.
 */
const NUMBER_RE = /\d+(?:,\d{3}(?!\d))*(?:[.,]\d+)?/g;
// Part separator: a comma, except one directly between two digits (inside a number like "25,55").
const PART_SEPARATOR_RE = /,(?!\d)|(?<!\d),/;

// One stored value from an input element (numbers → string form, booleans like PHP, others dropped).
function toValue(v: unknown): string | null {
  if (typeof v === "string") return v === "" ? null : v;
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : null;
  if (typeof v === "boolean") return v ? "1" : null;
  return null;
}

// Cost input (string, number, array of them, null) → stored values; empty values are dropped.
export function normaliseCostInput(input: unknown): StoredCost {
  const items = Array.isArray(input) ? input : [input];
  return items.map(toValue).filter((v): v is string => v !== null);
}

// A number match normalised to a "." decimal string: "1,500" → "1500", "25,55" → "25.55".
function normaliseNumber(raw: string): string {
  const m = /^(\d+(?:,\d{3}(?!\d))*)(?:[.,](\d+))?$/.exec(raw)!;
  const intPart = m[1].replace(/,/g, "");
  return m[2] === undefined ? intPart : `${intPart}.${m[2]}`;
}

// Comma-separated parts of the stored values (each trimmed, blanks dropped).
function costParts(stored: StoredCost): string[] {
  return stored.flatMap((v) => v.split(PART_SEPARATOR_RE)).map((p) => p.trim()).filter((p) => p !== "");
}

// The text of a part around its numbers (range dashes and blanks removed), e.g. "€6.50 - €8.50" → "€".
function partSymbol(part: string): string {
  const tokens = part.replace(NUMBER_RE, " ").split(/[\s\-–—]+/).filter((t) => t !== "");
  return [...new Set(tokens)].join(" ");
}

// Currency symbol and position inferred from the stored values (both "" when absent or inconsistent).
export function costCurrency(stored: StoredCost): { currency_symbol: string; currency_position: CurrencyPosition } {
  const priced = costParts(stored).filter((p) => /\d/.test(p));
  const symbols = [...new Set(priced.map(partSymbol))];
  if (symbols.length !== 1 || symbols[0] === "") return { currency_symbol: "", currency_position: "" };
  const symbol = symbols[0];
  const positions = new Set(priced.map((p) => (p.startsWith(symbol) ? "prefix" : "postfix")));
  const position: CurrencyPosition = positions.size === 1 ? [...positions][0] as CurrencyPosition : "";
  return { currency_symbol: symbol, currency_position: position };
}

interface ParsedValue { text: string; num: number | null; raw: string }

// Every number (or, for a value without numbers, its slug form) in storage order.
function parseValues(stored: StoredCost): ParsedValue[] {
  const out: ParsedValue[] = [];
  for (const raw of stored) {
    const numbers = raw.match(NUMBER_RE);
    if (numbers) {
      for (const n of numbers) {
        const text = normaliseNumber(n);
        out.push({ text, num: Number(text), raw });
      }
    } else {
      const slug = sanitizeSlug(raw);
      if (slug !== "") out.push({ text: slug, num: null, raw });
    }
  }
  return out;
}

// Parsed values sorted numerically ascending (words count as 0, like PHP SORT_NUMERIC), duplicates collapsed.
function sortedValues(stored: StoredCost): ParsedValue[] {
  const seen = new Set<string>();
  const unique = parseValues(stored).filter((v) => {
    const key = v.num === null ? `s:${v.text}` : `n:${v.num}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort((a, b) => (a.num ?? 0) - (b.num ?? 0));
}

// `cost_details.values`: "." decimal strings (and slug forms of wordy values), ascending, no duplicates.
export function costValues(stored: StoredCost): string[] {
  return sortedValues(stored).map((v) => v.text);
}

// One bound of the formatted cost: "Free" for 0, else the number with the currency symbol.
function formatBound(v: ParsedValue, symbol: string, position: string): string {
  if (v.num === 0) return "Free";
  return position === "postfix" ? v.text + symbol : symbol + v.text;
}

// The formatted `cost` string: "", the stored text of a single wordy value, or "min – max" with symbols.
export function formatCost(stored: StoredCost, symbol: string, position: string): string {
  const values = sortedValues(stored);
  if (values.length === 0) return "";
  const numeric = values.filter((v) => v.num !== null);
  if (numeric.length === 0) return values[0].raw.trim();
  const sym = symbol === "" ? "$" : symbol;
  const pos = position === "" ? "prefix" : position;
  const min = numeric[0];
  const max = numeric[numeric.length - 1];
  if (min.num === max.num) return formatBound(min, sym, pos);
  return `${formatBound(min, sym, pos)} \u2013 ${formatBound(max, sym, pos)}`;
}

// The `cost_details` object, keys in output order.
export function costDetails(
  stored: StoredCost,
  symbol: string,
  position: string,
): { currency_symbol: string; currency_code: ""; currency_position: string; values: string[] } {
  return { currency_symbol: symbol, currency_code: "", currency_position: position, values: costValues(stored) };
}
