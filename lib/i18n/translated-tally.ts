/**
 * How many records of a collection have values in each language besides their original one, kept
 * beside the embedded store: a search or a name lookup in language L needs the i18n service only when
 * some record is translated into L, and counting that in the store reads every record that lists L
 * (all of them, for the site language). Fed by the store's write observer.
 */
export interface TranslatableDoc {
  _id: number;
  lang?: string;
  translations?: string[];
}

export class TranslatedTally {
  private readonly byLanguage = new Map<string, number>();
  /** Per record, the languages it is counted under (only records translated into some language). */
  private readonly counted = new Map<number, string[]>();

  reset(docs: readonly TranslatableDoc[]): void {
    this.byLanguage.clear();
    this.counted.clear();
    for (const doc of docs) this.saved(doc);
  }

  saved(doc: TranslatableDoc): void {
    this.uncount(doc._id);
    const extra = (doc.translations ?? []).filter(l => l !== doc.lang);
    if (!extra.length) return;
    this.counted.set(doc._id, extra);
    for (const l of extra) this.byLanguage.set(l, (this.byLanguage.get(l) ?? 0) + 1);
  }

  removed(doc: TranslatableDoc): void {
    this.uncount(doc._id);
  }

  /** Records with values in `language` that is not their original one. */
  translatedInto(language: string): number {
    return this.byLanguage.get(language) ?? 0;
  }

  /** Records with values in more than one language. */
  get translatedRecords(): number {
    return this.counted.size;
  }

  private uncount(id: number): void {
    for (const l of this.counted.get(id) ?? []) this.byLanguage.set(l, this.byLanguage.get(l)! - 1);
    this.counted.delete(id);
  }
}
