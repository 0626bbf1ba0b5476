/**
 * The dictionary of a site's custom field tokens (lib/fields/values.ts): each token ("field 12 holds
 * `main`") has an integer id, unique per site by the store's unique index on `token`, so a record's tokens
 * are integers the link table keeps (store/sql/schema.ts CUSTOM_LINKS) and a filter reads through its key.
 * Entries are only ever added while their field lives: an id made by a write that then failed is unused,
 * never wrong. A deleted field's entries go with it.
 */
import type { Collection } from "../../store/collection";
import type { IndexSpec } from "../../store";
import { isUniqueViolation } from "../../store/errors";

export const FIELD_TOKENS = "field_tokens";
export const FIELD_TOKEN_INDEXES: IndexSpec[] = [{ field: "token", unique: true }, { field: "field" }];

/** Tries of a token's insert that lost a race (its twin inserted meanwhile, or its number taken). */
const INSERT_TRIES = 5;

export class FieldTokens {
  /** `col`: the current site's dictionary (store/site-collection.ts). */
  constructor(private readonly col: () => Promise<Collection>) {}

  /** The ids of `tokens` that exist (a filter: a token no record ever had matches nothing). */
  async find(tokens: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!tokens.length) return out;
    const col = await this.col();
    for (const doc of await col.find({ token: { $in: [...new Set(tokens)] } })) out.set(String(doc.token), Number(doc._id));
    return out;
  }

  /** The ids of `tokens`, made where missing (a write); `field` is the field id each belongs to. */
  async ensure(tokens: ReadonlyArray<{ token: string; field: number }>): Promise<Map<string, number>> {
    const out = await this.find(tokens.map(t => t.token));
    const col = await this.col();
    for (const { token, field } of tokens) {
      if (out.has(token)) continue;
      for (let attempt = 1; !out.has(token); attempt++) {
        try {
          const made = await col.append({ token, field });
          out.set(token, Number(made._id));
        } catch (err) {
          if (!isUniqueViolation(err) || attempt >= INSERT_TRIES) throw err;
          const found = await col.findOne({ token });
          if (found) out.set(token, Number(found._id));
        }
      }
    }
    return out;
  }

  /** Every token id of a field. */
  async ofField(field: number): Promise<number[]> {
    const col = await this.col();
    return (await col.find({ field }, { projection: { _id: 1 } })).map(d => Number(d._id));
  }

  /** A deleted field's entries removed. */
  async removeField(field: number): Promise<void> {
    await (await this.col()).removeMany({ field });
  }
}
